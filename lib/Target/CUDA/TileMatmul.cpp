//===- TileMatmul.cpp - matrix products as shared-memory tiled launches ---===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// One thread per output reading a row of A and a column of B from global
// memory reads each element of A N times and each of B M times. Here each
// f32 contraction of a kernel (linalg.matmul, linalg.batch_matmul, or a
// generic of that shape) becomes one gpu.launch (two when its K is split, see
// kSplitBlocks): a block per tile of the
// output, whose threads stage A and B through shared memory a slice of K at
// a time and each accumulate a piece of the tile in registers, so that an
// element loaded from global memory is used by a whole row or column of the
// tile. The shared tiles are double-buffered: the next slice's loads are in
// flight while the block computes on the current one. With --precision
// tf32, bf16 or f16 the products run on tensor cores: the staged operands
// are rounded to the precision's type and each warp of the block reads its
// fragments with ldmatrix and updates its piece of the tile with mma.sync.
// Products of f16 or bf16 tensors (widened to f32 by the msgraph lowering)
// read the halves themselves and run on tensor cores at any precision,
// copied into shared memory by cp.async through a pipeline of up to four
// stages; on sm_90a such products run on wgmma, the block's two warpgroups
// multiplying straight from shared memory, their operands loaded by TMA
// (a tensor map the host makes, an mbarrier a stage; rows of 64 or 128
// bytes swizzled, which wgmma's descriptors name) where a tensor map can
// describe them. ms-cuda-map-to-gpu outlines the launch as written.
//
//===----------------------------------------------------------------------===//

#include "BlockProducts.h"

#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDATILEMATMULPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// A block's tile of the output (bm x bn) and the slice of K staged in
/// shared memory at a time (bk). The block's threads are a kSide x kSide
/// grid (SIMT: each thread owns groups of adjacent rows and columns,
/// emitSimt; tensor cores: warps own fragments, emitMma and emitWgmma).
struct TileShape {
  int64_t bm, bn, bk;
};
} // namespace

/// Threads per block, as a kSide x kSide grid.
static constexpr int64_t kSide = 16;
static constexpr int64_t kThreads = kSide * kSide;
/// Tiles for large products (8 x 8 outputs per thread) and for the rest
/// (4 x 4): both stage 1,024 elements of A and of B per step, 4 per thread.
static constexpr TileShape kLargeTile{128, 128, 8};
static constexpr TileShape kSmallTile{64, 64, 16};
/// A SIMT thread's rows and columns come in groups of this many adjacent
/// ones (a 16-byte load of a shared f32 tile).
static constexpr int64_t kSimtGroup = 4;
/// The blocks of a SIMT product resident on a multiprocessor at once
/// (kMinBlocksPerSmAttrName): 128 registers a thread.
static constexpr int64_t kSimtBlocksPerSm = 2;
static_assert(kSmallTile.bm % (kSide * kSimtGroup) == 0 &&
                  kSmallTile.bn % (kSide * kSimtGroup) == 0 &&
                  kLargeTile.bm % (kSide * kSimtGroup) == 0 &&
                  kLargeTile.bn % (kSide * kSimtGroup) == 0,
              "SIMT threads own whole groups of rows and columns");
static_assert(kLargeTile.bm * kLargeTile.bk % kThreads == 0 &&
                  kLargeTile.bn * kLargeTile.bk % kThreads == 0 &&
                  kSmallTile.bm * kSmallTile.bk % kThreads == 0 &&
                  kSmallTile.bn * kSmallTile.bk % kThreads == 0,
              "the threads stage whole steps of K");
/// The streaming multiprocessors of an H100 SXM or H200 (an H100 PCIe has
/// 114), which the tile choices below fill.
static constexpr int64_t kMultiprocessors = 132;
/// Blocks of large tiles a product needs for them to be chosen: two per
/// multiprocessor, so that none idles.
static constexpr int64_t kMinLargeBlocks = 2 * kMultiprocessors;
/// A product of fewer small tiles than kMinLargeBlocks (a linear layer of
/// few rows and columns: BERT-base's output projection and FFN down
/// projection at 1,024 tokens have 192) splits K into parts, each a block
/// per tile writing its partial sums to a scratch buffer, that a second
/// launch adds up in order: as many parts as keep the blocks at most
/// kSplitBlocks (four per multiprocessor, all resident at once), but at
/// most K / kMinSplitTerms (the parts are whole steps, so the last may be
/// shorter) and at most kMaxSplits.
static constexpr int64_t kSplitBlocks = 4 * kMultiprocessors;
static constexpr int64_t kMinSplitTerms = 256;
static constexpr int64_t kMaxSplits = 16;
/// Shared rows are padded by 16 bytes: threads storing down a column, or
/// the 8 rows an ldmatrix reads, then hit distinct banks, and rows stay
/// 16-byte aligned.
static constexpr int64_t kPadBytes = 16;
/// The smallest M, N and K tiled; smaller products keep one thread per
/// output (a matrix-vector product would idle most of a tile).
static constexpr int64_t kMinRows = 16, kMinTerms = 8;

/// Tensor-core tiles (--precision tf32, bf16 or f16) take 64 bytes of each
/// row of K a step: 32 halves (two mma.sync steps of 16), or 16 TF32 words
/// (two of 8). bk is the halves'.
static constexpr int64_t kMmaRowBytes = 64;
static constexpr TileShape kLargeMmaTile{128, 128, kMmaRowBytes / 2};
static constexpr TileShape kSmallMmaTile{64, 64, kMmaRowBytes / 2};
/// The block's 8 warps as a kWarpRows x kWarpCols grid, each owning a
/// (bm / kWarpRows) x (bn / kWarpCols) piece of the tile.
static constexpr int64_t kWarp = 32, kWarpRows = 2, kWarpCols = 4;
static_assert(kWarpRows * kWarpCols * kWarp == kThreads,
              "the warps of a block cover its tile");
/// The shape of one mma.sync (m16n8k16): a warp's 16 x 16 piece of A, 16 x
/// 8 of B, and its 16 x 8 accumulator fragment.
static constexpr int64_t kFragM = 16, kFragN = 8, kFragK = 16;
static_assert(kLargeMmaTile.bm % (kWarpRows * kFragM) == 0 &&
                  kLargeMmaTile.bn % (kWarpCols * kFragN) == 0 &&
                  kSmallMmaTile.bm % (kWarpRows * kFragM) == 0 &&
                  kSmallMmaTile.bn % (kWarpCols * kFragN) == 0 &&
                  kLargeMmaTile.bk % kFragK == 0 &&
                  kSmallMmaTile.bk % kFragK == 0,
              "each warp owns whole fragments");
/// On sm_90a, products whose operands both go by cp.async run on wgmma:
/// the block's two warpgroups of 4 warps each own a 64-row piece of the
/// tile (kWgmmaM: 128 x 128 tiles, each all 128 columns; kWideMmaTile's
/// 256) or half its columns (64 x 64 tiles), updated by 16 terms (kWgmmaK) a
/// wgmma from operands in shared memory, laid out as core matrices of kCoreRows
/// rows of 16 bytes (by TMA: swizzled rows, getTmaOperand).
static constexpr int64_t kWarpGroup = 4 * kWarp, kWgmmaM = 64, kWgmmaK = 16,
                         kCoreRows = 8, kCoreBytes = 16 * kCoreRows;
static_assert(kThreads == 2 * kWarpGroup && kLargeMmaTile.bm == 2 * kWgmmaM &&
                  kSmallMmaTile.bm == kWgmmaM &&
                  kLargeMmaTile.bk % kWgmmaK == 0,
              "the warpgroups of a block cover its tile");
/// The shared tiles hold two steps of K: the block computes on one while
/// the loads of the next step, issued before, land in registers and are
/// then stored in the other.
static constexpr int64_t kStages = 2;
/// Operands both copied by cp.async (isCopiedAsync) take as many stages as
/// fit kMaxDynamicSharedBytes, up to kMaxAsyncStages: the copies of the
/// next stages - 1 steps are in flight while the block computes. Tiles
/// over kMaxSharedBytes are in dynamic shared memory (the runtime opts the
/// kernel in to more than 48 KiB); two blocks of kMaxDynamicSharedBytes
/// fit a multiprocessor of an A100 (164 KiB) or an H100 (228 KiB), one of
/// an sm_86 or sm_89 (100 KiB).
static constexpr int64_t kMaxAsyncStages = 4;
/// wgmma leaves a step's products running into the next step, so its
/// tiles take one stage more to copy as many steps ahead (16,384 bytes a
/// stage of a 128 x 128 tile: 5 stages fill kMaxDynamicSharedBytes).
static constexpr int64_t kMaxWgmmaStages = kMaxAsyncStages + 1;
static constexpr int64_t kMaxDynamicSharedBytes = 80 * 1024;
static_assert(kMaxAsyncStages >= kStages &&
                  kMaxDynamicSharedBytes >= kStages * 18944,
              "a 128 x 128 tile of halves takes 18,944 bytes a stage");
/// With `wide-tiles`, wgmma products whose TMA loads a producer warp issues
/// take 128 x 256 tiles where they make at least kMinWideBlocks (one per
/// multiprocessor): each warpgroup's piece is 64 x 256,
/// one wgmma.m64n256k16 a 16 terms (128 f32 accumulators a thread, so one
/// block a multiprocessor), with as many stages as fit kMaxWideSharedBytes
/// up to kMaxWideStages (24,576 bytes a stage: 8 stages, 192 KiB), as
/// CUTLASS's and DeepGEMM's sm90 kernels take 128 x 256 tiles; only where
/// they pad no more columns than 128 x 128 tiles (N mod 256 is 0 or over
/// 128).
static constexpr TileShape kWideMmaTile{128, 256, kMmaRowBytes / 2};
static constexpr int64_t kMinWideBlocks = kMultiprocessors, kMaxWideStages = 8;
static constexpr int64_t kMaxWideSharedBytes = 200 * 1024;
static_assert(kWideMmaTile.bm == kLargeMmaTile.bm && kWideMmaTile.bn <= 256 &&
                  kWideMmaTile.bk == kLargeMmaTile.bk,
              "a wide tile's warpgroups each take one wgmma of at most 256 "
              "columns");
/// The shared memory a block of sm_90 may have (the runtime's limit too).
static constexpr int64_t kMaxBlockSharedBytes = 227 * 1024;
static_assert(kMaxWideSharedBytes + kSwizzledSharedAlignment -
                      kDynamicSharedAlignment + 2 * kMaxWideStages * 8 <=
                  kMaxBlockSharedBytes,
              "wide tiles' stages, their alignment slack and their two "
              "8-byte barriers a stage fit a block");
/// An f32 operand that tensor cores multiply as halves and that at least
/// this many tiles of the output read is rounded into a buffer of halves
/// by a launch of its own first: 6 bytes an element once (the f32 read, the
/// half written), then 2 a reading tile, where rounding as each block
/// stages it reads 4 a reading tile; and the halves then go by cp.async.
static constexpr int64_t kMinRoundedReaders = 3;
/// The static shared memory a block may have.
static constexpr int64_t kMaxSharedBytes = 48 * 1024;

/// Whether tensor cores multiply `type` as TensorFloat-32 (f32 operands
/// whose 13 lowest fraction bits are ignored).
static bool isTf32(Type type) { return type && isa<FloatTF32Type>(type); }

/// The bits of f32 `value` rounded to TF32 (to nearest, ties away from
/// zero, as cvt.rna.tf32.f32): half of the dropped bits' weight added to the
/// magnitude, then the 13 bits cleared (the largest floats round to
/// infinity); infinities and NaNs keep their bits.
static Value roundToTf32Bits(OpBuilder &b, Location loc, Value value) {
  auto constant = [&](uint32_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getI32IntegerAttr(static_cast<int32_t>(v)));
  };
  Value bits = arith::BitcastOp::create(b, loc, b.getI32Type(), value);
  Value rounded = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, bits, constant(0x1000)),
      constant(0xFFFFE000));
  Value exponent = arith::AndIOp::create(b, loc, bits, constant(0x7F800000));
  Value special = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        exponent, constant(0x7F800000));
  return arith::SelectOp::create(b, loc, special, bits, rounded);
}

namespace {
/// A contraction `out[...] += lhs[...] * rhs[...]` in f32 with static
/// shapes, and the loops the launch maps: the product's rows are the
/// output's dimensions just before its last that index `lhs` but not `rhs`
/// (linearized: a linear layer's batch and sequence are one M), its columns
/// the output's last dimension (of `rhs`), both tiled; its other dimensions
/// (batch) index blocks; k is the sum.
struct Contraction {
  linalg::LinalgOp op;
  Value lhs, rhs, out;
  AffineMap lhsMap, rhsMap, outMap;
  /// The row dimensions, outermost first.
  SmallVector<unsigned> rowDims;
  unsigned nDim, kDim;
  /// The output's other dimensions, outermost first.
  SmallVector<unsigned> gridDims;
  SmallVector<int64_t> ranges;
  /// The elementwise ops right after the product that the launch applies
  /// to each output before storing it (bias, activation, residual, cast),
  /// and the buffers it then need not store (kernel-local, read by nothing
  /// else).
  SmallVector<linalg::GenericOp> epilogue;
  SmallVector<Value> unstored;
  /// The generics that widened a half-precision operand to the f32 buffer
  /// the product read, which now reads their input (absorbWidenings).
  SmallVector<linalg::GenericOp> widenings;

  /// The iterations of `loops` together.
  int64_t extent(ArrayRef<unsigned> loops) const {
    int64_t total = 1;
    for (unsigned loop : loops)
      total *= ranges[loop];
    return total;
  }
};
} // namespace

/// Whether `body` is exactly `yield(out + lhs * rhs)` in f32 (either operand
/// order): the body the launch computes.
static bool isMulAddBody(Block &body) {
  if (body.getNumArguments() != 3 || body.getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulFOp>(&body.front());
  auto add = dyn_cast<arith::AddFOp>(body.front().getNextNode());
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!mul || !add || !yield || yield->getOperand(0) != add.getResult())
    return false;
  Value lhs = body.getArgument(0), rhs = body.getArgument(1),
        acc = body.getArgument(2);
  bool mulOk = (mul.getLhs() == lhs && mul.getRhs() == rhs) ||
               (mul.getLhs() == rhs && mul.getRhs() == lhs);
  bool addOk = (add.getLhs() == acc && add.getRhs() == mul.getResult()) ||
               (add.getRhs() == acc && add.getLhs() == mul.getResult());
  return mulOk && addOk;
}

static std::optional<Contraction> matchContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumRegions() != 1 ||
      !isMulAddBody(op->getRegion(0).front()))
    return std::nullopt;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return std::nullopt;
  }
  // Blocks read the operands while others write the output: they must not
  // overlap.
  Value outRoot = getRootMemRef(op.getDpsInits()[0]);
  if (getRootMemRef(op.getDpsInputs()[0]) == outRoot ||
      getRootMemRef(op.getDpsInputs()[1]) == outRoot)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1)
    return std::nullopt;
  Contraction c;
  c.op = op;
  c.lhs = op.getDpsInputs()[0];
  c.rhs = op.getDpsInputs()[1];
  c.out = op.getDpsInits()[0];
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  c.lhsMap = maps[0];
  c.rhsMap = maps[1];
  c.outMap = maps[2];
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  unsigned rank = c.outMap.getNumResults();
  if (rank < 2)
    return std::nullopt;
  c.nDim = c.outMap.getDimPosition(rank - 1);
  c.kDim = dims->k.front();
  if (!llvm::is_contained(dims->n, c.nDim))
    return std::nullopt;
  unsigned firstRow = rank - 1;
  while (firstRow > 0 &&
         llvm::is_contained(dims->m, c.outMap.getDimPosition(firstRow - 1)))
    --firstRow;
  if (firstRow == rank - 1)
    return std::nullopt;
  // Every loop is the output's or K: another reduction, a loop only an
  // operand indexes, or K in the output would have no value in the launch.
  if (op.getNumLoops() != rank + 1 || c.outMap.isFunctionOfDim(c.kDim))
    return std::nullopt;
  for (unsigned i = 0; i < rank - 1; ++i)
    (i < firstRow ? c.gridDims : c.rowDims)
        .push_back(c.outMap.getDimPosition(i));
  c.ranges = op.getStaticLoopRanges();
  // An empty batch has nothing to launch; the loops it leaves run nothing.
  if (c.extent(c.gridDims) == 0)
    return std::nullopt;
  if (c.extent(c.rowDims) < kMinRows || c.ranges[c.nDim] < kMinRows ||
      c.ranges[c.kDim] < kMinTerms)
    return std::nullopt;
  return c;
}

/// The generic that widened `operand`, a buffer the kernel allocated, from
/// a half-precision (f16 or bf16) buffer just before the product reads it:
/// a generic over its shape, every loop parallel, that writes it through
/// the identity as `extf` of its one input read through a permutation. It
/// must be the buffer's only writer and the product its only other reader,
/// and nothing between the two may write the input, which the product can
/// then read instead.
static linalg::GenericOp findWidening(const Contraction &c, Value operand) {
  auto alloc = operand.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return {};
  linalg::GenericOp widening;
  for (Operation *user : alloc->getUsers()) {
    if (user == c.op || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || (widening && generic != widening))
      return {};
    widening = generic;
  }
  if (!widening || widening->getBlock() != c.op->getBlock() ||
      !widening->isBeforeInBlock(c.op) || !widening.hasPureBufferSemantics() ||
      widening.getNumDpsInputs() != 1 || widening.getNumDpsInits() != 1 ||
      widening.getDpsInits()[0] != operand ||
      widening.getNumReductionLoops() != 0)
    return {};
  Value source = widening.getDpsInputs()[0];
  auto sourceType = dyn_cast<MemRefType>(source.getType());
  if (!sourceType || !sourceType.hasStaticShape() ||
      !(sourceType.getElementType().isF16() ||
        sourceType.getElementType().isBF16()))
    return {};
  SmallVector<AffineMap> maps = widening.getIndexingMapsArray();
  if (!maps[0].isPermutation() || !maps[1].isIdentity())
    return {};
  Block &body = widening.getRegion().front();
  auto extend = dyn_cast<arith::ExtFOp>(&body.front());
  if (body.getOperations().size() != 2 || !extend ||
      extend.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != extend.getResult())
    return {};
  Value root = getRootMemRef(source);
  if (root == getRootMemRef(c.out))
    return {};
  for (Operation *op = widening->getNextNode(); op != c.op;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op) || isa<memref::AllocOp, memref::DeallocOp>(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics())
      return {};
    for (Value init : linalgOp.getDpsInits())
      if (getRootMemRef(init) == root)
        return {};
  }
  return widening;
}

/// Makes the product read its half-precision operands where they were
/// widened to f32 just before it (findWidening) and returns the type its
/// products multiply in on tensor cores: `precision`'s (null: f32), or,
/// when that is f32 and both operands were widened from one half type,
/// that type. Tensor cores multiply halves exactly and add the products in
/// f32, as the widened product does (the sums' order differs, and the
/// tensor cores' adds within an mma.sync need not round as f32 adds do).
/// An operand widened from another type than the products' stays as it is.
static Type absorbWidenings(Contraction &c, Type precision) {
  linalg::GenericOp lhs = findWidening(c, c.lhs);
  linalg::GenericOp rhs = findWidening(c, c.rhs);
  auto halfOf = [](linalg::GenericOp widening) -> Type {
    return widening ? getElementTypeOrSelf(widening.getDpsInputs()[0]) : Type();
  };
  Type type = precision;
  if (!type && lhs && rhs && halfOf(lhs) == halfOf(rhs))
    type = halfOf(lhs);
  auto absorb = [&](linalg::GenericOp widening, Value &operand,
                    AffineMap &map) {
    if (!widening || halfOf(widening) != type)
      return;
    // The product read the f32 buffer at `map`; the widening read its
    // input at its own map of the buffer's indices.
    map = widening.getIndexingMapsArray()[0].compose(map);
    operand = widening.getDpsInputs()[0];
    if (llvm::is_contained(c.widenings, widening))
      return;
    c.widenings.push_back(widening);
    // The halves' dealloc after their last read, the widening, goes after
    // the product that now reads them.
    Value root = getRootMemRef(operand);
    for (Operation *op = widening->getNextNode(); op != c.op;) {
      Operation *next = op->getNextNode();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op);
          dealloc && getRootMemRef(dealloc.getMemref()) == root)
        op->moveAfter(c.op);
      op = next;
    }
  };
  absorb(lhs, c.lhs, c.lhsMap);
  absorb(rhs, c.rhs, c.rhsMap);
  return type;
}

namespace {
/// An operand wgmma's TMA loads copy: the tensor map (created on the host)
/// of a view of it, per dimension of the view (outermost first) the loop
/// it indexes (kTmaRows: the tile's rows or columns, linearized), how the
/// view's dimensions group the operand's, and the box a load copies (in
/// shared memory; the view's dimensions). A box's rows are `span`
/// elements of the operand's innermost dimension, swizzled in shared
/// memory by rows of span's bytes (32, 64 or 128: the tensor map's
/// swizzle, which wgmma's descriptors name too).
struct TmaOperand {
  Value descriptor;
  SmallVector<int64_t> loops;
  SmallVector<ReassociationIndices> collapse;
  MemRefType boxType;
  /// Whether K is the operand's innermost dimension.
  bool kInnermost = false;
  int64_t span = 0;
};
/// The longest rows (bytes) a swizzle has.
static constexpr int64_t kMaxSwizzleBytes = 128;
/// TmaOperand::loops' entry for the tile's rows or columns.
static constexpr int64_t kTmaRows = -1;
/// The most dimensions a tensor map has.
static constexpr size_t kMaxTmaRank = 5;
/// The clock ticks a thread waits at a TMA barrier before retrying.
static constexpr int64_t kMbarrierTicks = 10000000;

/// What the target and ms-cuda-tile-matmul's options allow a product.
struct GemmFeatures {
  /// The target has Hopper's warpgroup products (sm_90a).
  bool hasWgmma = false;
  /// wgmma's operands go by TMA where they can.
  bool useTma = false;
  /// A warp of its own issues the TMA loads.
  bool useProducerWarp = false;
  /// TMA products from a producer warp may take kWideMmaTile.
  bool useWideTiles = false;
  /// Products of more tiles than this whose TMA loads a producer warp
  /// issues launch this many blocks, each walking the tiles this many
  /// apart (0: a block a tile).
  int64_t persistentBlocks = 0;
};

/// Emits a contraction's launch.
class GemmEmitter {
public:
  /// `mmaType` is the type products multiply in on tensor cores (tf32,
  /// bf16 or f16), or null for f32 on the threads' FMA units; `features`
  /// what the target and the pass's options allow.
  GemmEmitter(Contraction c, Type mmaType, GemmFeatures features,
              OpBuilder &builder)
      : c(c), mmaType(mmaType), features(features), b(builder),
        loc(c.op.getLoc()) {}

  /// Replaces the contraction by its launch; `init` is the value the output
  /// was filled with just before (the fill is then dropped), or null to add
  /// to the output's contents.
  LogicalResult emit(Value init) {
    int64_t m = c.extent(c.rowDims), n = c.ranges[c.nDim];
    int64_t grid = c.extent(c.gridDims);
    auto blocksOf = [&](TileShape t) {
      return grid * llvm::divideCeil(m, t.bm) * llvm::divideCeil(n, t.bn);
    };
    TileShape large = mmaType ? kLargeMmaTile : kLargeTile;
    tile = mmaType ? kSmallMmaTile : kSmallTile;
    if (m >= large.bm && n >= large.bn && blocksOf(large) >= kMinLargeBlocks)
      tile = large;
    int64_t tiles = blocksOf(tile);
    if (tiles > std::numeric_limits<int32_t>::max())
      return c.op.emitError("expected at most 2^31 - 1 tiles of the matrix "
                            "product, but found ")
             << tiles;

    // SIMT tiles are [k][row] in f32; tensor-core tiles [row][k] in the
    // precision's type (TF32 as the bits of its f32 rounding), but for B's
    // halves [k][column] where K is not its innermost dimension (a linear
    // layer's [K][N] weights: stores along N, and ldmatrix.trans reads the
    // fragments).
    aKMajor = !mmaType;
    bKMajor = !mmaType || (!isTf32(mmaType) && !isKInnermost(c.rhsMap));
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Type staged = !mmaType          ? b.getF32Type()
                  : isTf32(mmaType) ? Type(b.getI32Type())
                                    : mmaType;
    int64_t bytes = staged.getIntOrFloatBitWidth() / 8;
    int64_t pad = kPadBytes / bytes;
    if (mmaType)
      tile.bk = kMmaRowBytes / bytes;
    if (mmaType && !isTf32(mmaType)) {
      roundFirst(c.lhs, c.lhsMap, c.rowDims, aKMajor,
                 llvm::divideCeil(n, tile.bn));
      roundFirst(c.rhs, c.rhsMap, c.nDim, bKMajor,
                 llvm::divideCeil(m, tile.bm));
    }
    asyncA = isCopiedAsync(c.lhs, c.lhsMap, c.rowDims, aKMajor);
    asyncB = isCopiedAsync(c.rhs, c.rhsMap, c.nDim, bKMajor);
    // wgmma reads both operands from shared memory, in core matrices of 8
    // rows of 16 bytes (sharedType): no padding.
    wgmma = features.hasWgmma && !isTf32(mmaType) && asyncA && asyncB;
    if (wgmma)
      pad = 0;
    // wgmma's operands go by TMA where both can (getTmaOperand) in the
    // current tile.
    auto getTmaOperands = [&] {
      return std::pair(
          getTmaOperand(c.lhs, c.lhsMap, c.rowDims, tile.bm, tile.bm),
          getTmaOperand(c.rhs, c.rhsMap, {c.nDim}, tile.bn,
                        tile.bn / getWarpgroupColumns()));
    };
    if (wgmma && features.useTma)
      std::tie(aTma, bTma) = getTmaOperands();
    tma = aTma && bTma;
    producerWarp = tma && features.useProducerWarp;
    // Large tiles of such products widen where enough wide ones remain
    // and TMA can still load both operands' boxes.
    int64_t wideTail = n % kWideMmaTile.bn;
    if (producerWarp && features.useWideTiles && tile.bn == large.bn &&
        n >= kWideMmaTile.bn && (!wideTail || wideTail > large.bn) &&
        blocksOf(kWideMmaTile) >= kMinWideBlocks) {
      TileShape previous = tile;
      tile = kWideMmaTile;
      auto [wideA, wideB] = getTmaOperands();
      wide = wideA && wideB;
      if (wide) {
        aTma = wideA;
        bTma = wideB;
        tiles = blocksOf(tile);
      } else {
        tile = previous;
      }
    }
    auto stageElements = [&](int64_t width, bool kMajor) {
      return kMajor ? tile.bk * (width + pad) : width * (tile.bk + pad);
    };
    int64_t stageBytes =
        (stageElements(tile.bm, aKMajor) + stageElements(tile.bn, bKMajor)) *
        bytes;
    int64_t maxSharedBytes =
        wide ? kMaxWideSharedBytes : kMaxDynamicSharedBytes;
    if (asyncA && asyncB)
      stages = std::min(wide    ? kMaxWideStages
                        : wgmma ? kMaxWgmmaStages
                                : kMaxAsyncStages,
                        maxSharedBytes / stageBytes);
    // Few tiles split K (kSplitBlocks) into parts of whole steps, none
    // empty (wide tiles are at least kMinWideBlocks: never).
    int64_t terms = c.ranges[c.kDim];
    if (tiles < (wide ? kMinWideBlocks : kMinLargeBlocks))
      splits = std::max<int64_t>(
          1,
          std::min({kSplitBlocks / tiles, terms / kMinSplitTerms, kMaxSplits}));
    int64_t steps = llvm::divideCeil(terms, tile.bk);
    splitSteps = llvm::divideCeil(steps, splits);
    splits = llvm::divideCeil(steps, splitSteps);
    // Persistent blocks (forEachTile): a producer warp's products whose K
    // is whole, where there are more tiles than blocks asked for.
    tileCount = tiles;
    if (producerWarp && splits == 1 && features.persistentBlocks &&
        tiles > features.persistentBlocks)
      persistentBlocks = features.persistentBlocks;
    auto sharedType = [&](int64_t width, bool kMajor, int64_t span) {
      SmallVector<int64_t> shape =
          kMajor ? SmallVector<int64_t>{stages, tile.bk, width + pad}
                 : SmallVector<int64_t>{stages, width, tile.bk + pad};
      // For wgmma, [stage][w / 8][k / 8] core matrices of 8 x 8 halves,
      // each 128 contiguous bytes: rows w % 8 of 8 terms where K is the
      // operand's innermost dimension, else rows k % 8 of 8 columns.
      if (wgmma)
        shape = {stages, width / kCoreRows, tile.bk / kCoreRows, kCoreRows,
                 kCoreRows};
      // For TMA, [stage][k / span][w][span] where K is the operand's
      // innermost dimension (a box of `span` terms of every row each),
      // else [stage][w / span][k][span] (a box of `span` columns of every
      // term each), rows swizzled (getTmaOperand).
      if (tma)
        shape = !kMajor
                    ? SmallVector<int64_t>{stages, tile.bk / span, width, span}
                    : SmallVector<int64_t>{stages, width / span, tile.bk, span};
      return MemRefType::get(shape, staged, MemRefLayoutAttrInterface(),
                             workgroup);
    };
    MemRefType aType = sharedType(tile.bm, aKMajor, tma ? aTma->span : 0);
    MemRefType bType = sharedType(tile.bn, bKMajor, tma ? bTma->span : 0);
    int64_t sharedBytes = stages * stageBytes;
    assert(stages >= kStages && sharedBytes <= maxSharedBytes &&
           "the shared tiles fit a block");
    // Swizzled TMA boxes start a repetition of the swizzle's pattern, at a
    // multiple of kSwizzledSharedAlignment. The driver aligns the dynamic
    // array to kDynamicSharedAlignment only, once static shared memory (the
    // barriers) comes first, so the launch takes the difference more and
    // the block starts its tiles at the array's first aligned byte (TMA is
    // sm_90's alone: two blocks of 128 x 128 tiles still fit its 228 KiB a
    // multiprocessor; one of wide tiles fits a block's 227 KiB).
    bool dynamic = sharedBytes > kMaxSharedBytes || tma;
    int64_t slackBytes =
        tma ? kSwizzledSharedAlignment - kDynamicSharedAlignment : 0;
    b.setInsertionPoint(c.op);
    if (splits > 1)
      partials = memref::AllocOp::create(
          b, loc, MemRefType::get({splits, grid, m, n}, b.getF32Type()));
    if (tma) {
      createTmaDescriptor(*aTma, c.lhs);
      createTmaDescriptor(*bTma, c.rhs);
    }
    Value one = index(1);
    Value gridX = index(persistentBlocks ? persistentBlocks : tiles * splits);
    Value blockX = index(producerWarp ? kThreads + kWarp : kThreads);
    Value dynamicBytes;
    if (dynamic)
      dynamicBytes =
          arith::ConstantIntOp::create(b, loc, sharedBytes + slackBytes, 32);
    auto launch = gpu::LaunchOp::create(
        b, loc, gridX, one, one, blockX, one, one, dynamicBytes,
        /*asyncTokenType=*/Type(), /*asyncDependencies=*/ValueRange(),
        dynamic ? TypeRange() : TypeRange{aType, bType});
    b.setInsertionPointToStart(&launch.getBody().front());
    if (dynamic) {
      // A's tile, then B's (A's stages are whole 16-byte rows).
      auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                       MemRefLayoutAttrInterface(), workgroup);
      Value memory = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
      Value aStart = index(0);
      if (slackBytes) {
        // aStart = -address mod kSwizzledSharedAlignment.
        Value address =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memory);
        Value negated = arith::SubIOp::create(b, loc, aStart, address);
        aStart = arith::AndIOp::create(b, loc, negated,
                                       index(kSwizzledSharedAlignment - 1));
      }
      aTile =
          memref::ViewOp::create(b, loc, aType, memory, aStart, ValueRange());
      Value bStart = index(aType.getNumElements() * bytes);
      if (slackBytes)
        bStart = arith::AddIOp::create(b, loc, aStart, bStart);
      bTile =
          memref::ViewOp::create(b, loc, bType, memory, bStart, ValueRange());
    } else {
      aTile = launch.getWorkgroupAttributions()[0];
      bTile = launch.getWorkgroupAttributions()[1];
    }
    blockId = launch.getBlockIds().x;
    thread = launch.getThreadIds().x;
    if (!persistentBlocks)
      setTile(blockId);
    // A SIMT thread's sums and operands take up to half the registers a
    // multiprocessor has for a block's threads: ask for two blocks
    // resident, each hiding the other's waits for memory.
    if (!wgmma && !mmaType)
      launch->setAttr(kMinBlocksPerSmAttrName,
                      b.getI32IntegerAttr(kSimtBlocksPerSm));
    if (wgmma)
      emitWgmma(init);
    else if (mmaType)
      emitMma(init);
    else
      emitSimt(init);
    gpu::TerminatorOp::create(b, loc);
    if (partials) {
      b.setInsertionPoint(c.op);
      emitCombine(init);
    }
    return success();
  }

private:
  /// Points the block at tile `at` (its grid index, part of K, and first
  /// row and column): at = (g * tilesM + tm) * tilesN + tn, so
  /// that neighbouring blocks share the rows of A they read.
  void setTile(Value at) {
    int64_t m = c.extent(c.rowDims), n = c.ranges[c.nDim];
    int64_t grid = c.extent(c.gridDims);
    Value tilesN = index(llvm::divideCeil(n, tile.bn));
    Value tilesM = index(llvm::divideCeil(m, tile.bm));
    Value tn = arith::RemUIOp::create(b, loc, at, tilesN);
    Value rest = arith::DivUIOp::create(b, loc, at, tilesN);
    Value tm = arith::RemUIOp::create(b, loc, rest, tilesM);
    Value g = arith::DivUIOp::create(b, loc, rest, tilesM);
    // With K split, at = (split * grid + g) * tilesM * tilesN + ...
    if (partials) {
      split = arith::DivUIOp::create(b, loc, g, index(grid));
      g = arith::RemUIOp::create(b, loc, g, index(grid));
    }
    gridIndex = g;
    ivs.assign(c.ranges.size(), Value());
    setIndex(c.gridDims, g);
    m0 = mul(tm, tile.bm);
    n0 = mul(tn, tile.bn);
  }

  /// Runs `body` for the block's tile, or with persistent blocks for each
  /// of its tiles in turn (the block's index, then persistentBlocks on,
  /// below tileCount), numbering each tile's steps on from the previous
  /// tile's (stepBase), so that the stages' barriers go on through their
  /// phases and the producer loads the next tile's first steps while the
  /// products store the last tile's outputs. Every tile has splitSteps
  /// steps (K is not split).
  void forEachTile(function_ref<void()> body) {
    if (!persistentBlocks)
      return body();
    scf::ForOp::create(
        b, loc, blockId, index(tileCount), index(persistentBlocks),
        ValueRange(), [&](OpBuilder &, Location, Value at, ValueRange) {
          setTile(at);
          Value walked = arith::SubIOp::create(b, loc, at, blockId);
          Value done =
              arith::DivUIOp::create(b, loc, walked, index(persistentBlocks));
          stepBase = mul(done, splitSteps);
          body();
          stepBase = Value();
          scf::YieldOp::create(b, loc);
        });
  }

  /// Replaces f32 `operand` (read through `map`, its rows or columns
  /// `loops`, staged [k][row] where `kMajor`), which `readers` tiles of the
  /// output read, by a buffer of the kernel holding it rounded to the
  /// tensor cores' halves (a generic before the product, a launch of its
  /// own) when there are at least kMinRoundedReaders of them and the
  /// halves can then go by cp.async (isCopiedAsync).
  void roundFirst(Value &operand, AffineMap map, ArrayRef<unsigned> loops,
                  bool kMajor, int64_t readers) {
    int64_t group = kCudaVectorBytes / 2;
    if (readers < kMinRoundedReaders ||
        !getElementTypeOrSelf(operand).isF32() || kMajor == isKInnermost(map) ||
        getSliceVector(group, map, loops, kMajor) != group)
      return;
    auto type = cast<MemRefType>(operand.getType());
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(c.op);
    Value halves = memref::AllocOp::create(
        b, loc, MemRefType::get(type.getShape(), mmaType));
    AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    linalg::GenericOp::create(
        b, loc, ValueRange{operand}, ValueRange{halves},
        ArrayRef<AffineMap>{identity, identity}, parallel,
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          Value rounded =
              arith::TruncFOp::create(nested, nestedLoc, mmaType, args[0]);
          linalg::YieldOp::create(nested, nestedLoc, rounded);
        });
    b.setInsertionPoint(c.op->getBlock()->getTerminator());
    memref::DeallocOp::create(b, loc, halves);
    operand = halves;
  }

  /// Thread (ty, tx) of the 16 x 16 grid accumulates the tile's rows
  /// 4 ty + 64 g + [0, 4) and columns 4 tx + 64 g + [0, 4) (g below the
  /// tile's side / 64) from f32 tiles staged as [k][row]: each group of 4
  /// is one 16-byte load of the shared tile a step of K, where rows ty +
  /// 16 i took a load each. A warp's loads of B read 16 adjacent groups
  /// (256 bytes: two wavefronts, the least) and of A two groups, each
  /// broadcast to 16 lanes.
  void emitSimt(Value init) {
    Value ty = arith::DivUIOp::create(b, loc, thread, index(kSide));
    Value tx = arith::RemUIOp::create(b, loc, thread, index(kSide));
    // The accumulators, one per owned output, carried over the K steps.
    int64_t rows = tile.bm / kSide, cols = tile.bn / kSide;
    Value rowBase = mul(ty, kSimtGroup), colBase = mul(tx, kSimtGroup);
    // Element e of this thread's rows or columns, from `base`.
    auto owned = [&](Value base, int64_t e) {
      return add(base, e / kSimtGroup * kSimtGroup * kSide + e % kSimtGroup);
    };
    Type group = VectorType::get({kSimtGroup}, b.getF32Type());
    auto loadGroups = [&](Value shared, Value current, int64_t kk, Value base,
                          int64_t count, SmallVectorImpl<Value> &values) {
      for (int64_t e = 0; e < count; e += kSimtGroup) {
        Value loaded = vector::LoadOp::create(
            b, loc, group, shared,
            ValueRange{current, index(kk), owned(base, e)},
            /*nontemporal=*/false, llvm::MaybeAlign(kSimtGroup * 4));
        for (int64_t i = 0; i < kSimtGroup; ++i)
          values.push_back(
              vector::ExtractOp::create(b, loc, loaded, ArrayRef<int64_t>{i}));
      }
    };
    scf::ForOp steps =
        stepK(rows * cols, [&](Value current, SmallVector<Value> &next) {
          auto contract = arith::FastMathFlags::contract;
          for (int64_t kk = 0; kk < tile.bk; ++kk) {
            SmallVector<Value> as, bs;
            loadGroups(aTile, current, kk, rowBase, rows, as);
            loadGroups(bTile, current, kk, colBase, cols, bs);
            for (int64_t i = 0; i < rows; ++i)
              for (int64_t j = 0; j < cols; ++j) {
                Value product =
                    arith::MulFOp::create(b, loc, as[i], bs[j], contract);
                next[i * cols + j] = arith::AddFOp::create(
                    b, loc, next[i * cols + j], product, contract);
              }
          }
        });

    // Each thread adds its sums to the outputs it owns, each group of
    // kSimtGroup adjacent columns at once where the epilogue allows it.
    epilogueWidth = getEpilogueWidth(kSimtGroup);
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; j += kSimtGroup)
        addToOutput(owned(rowBase, i), owned(colBase, j),
                    steps.getResults().slice(i * cols + j, kSimtGroup), init);
  }

  /// Warp (wr, wc) of the block's kWarpRows x kWarpCols grid owns rows
  /// wr * wm + [0, wm) and columns wc * wn + [0, wn) of the tile as
  /// 16 x 8 fragments, which mma.sync updates from tiles staged as [row][k]
  /// and [column][k] (or [k][column], bKMajor). Lane l holds, of each fragment
  /// of A (16 x 16 halves or 16 x 8 TF32), B (16 x 8 or 8 x 8) and the
  /// accumulators (16 x 8), with g = l / 4 and t = l % 4: A's rows g and g + 8
  /// at columns 2t, 2t + 1 and 2t + 8, 2t + 9 (TF32: t and t + 4); B's column g
  /// at the same rows; the accumulators' rows g and g + 8 at columns 2t, 2t
  /// + 1.
  void emitMma(Value init) {
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    Value warp = arith::DivUIOp::create(b, loc, thread, index(kWarp));
    Value lane = arith::RemUIOp::create(b, loc, thread, index(kWarp));
    int64_t wm = tile.bm / kWarpRows, wn = tile.bn / kWarpCols;
    int64_t fragsM = wm / kFragM, fragsN = wn / kFragN;
    Value warpRow =
        mul(arith::DivUIOp::create(b, loc, warp, index(kWarpCols)), wm);
    Value warpCol =
        mul(arith::RemUIOp::create(b, loc, warp, index(kWarpCols)), wn);

    bool tf32 = isTf32(mmaType);
    bool isBf16 = mmaType.isBF16();
    auto fragType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
    NVVM::MMATypes ptxType = tf32     ? NVVM::MMATypes::tf32
                             : isBf16 ? NVVM::MMATypes::bf16
                                      : NVVM::MMATypes::f16;
    // Each 8 x 8 matrix of 16-bit elements a fragment is made of comes from
    // shared memory by ldmatrix, the warp's lanes giving the addresses of
    // its rows (16 bytes each, aligned as the tiles' rows are); lane (g, t)
    // then holds row g at the row's bytes 4t to 4t + 3. A row is
    // `matrixK` terms: 8 halves (m16n8k16, lane (g, t) holding A's columns
    // 2t, 2t + 1 and 2t + 8, 2t + 9, B's rows likewise) or 4 TF32 words
    // (m16n8k8: columns t and t + 4). For A's fragment (matrices: rows 0-7
    // and 8-15 at the first matrixK terms, then at the next) lane l gives
    // row l % 16 at term matrixK (l / 16); for two of B's fragments
    // (columns 0-7 at both halves of the terms, then the next fragment's)
    // lane l gives column 8 (l / 16) + l % 8 at term matrixK (l / 8 % 2).
    // The lanes then hold the fragments as mma.sync takes them.
    Type staged = tf32 ? Type(b.getI32Type()) : mmaType;
    int64_t matrixK = 128 / staged.getIntOrFloatBitWidth();
    int64_t fragK = 2 * matrixK;
    Value aRowLane = arith::AddIOp::create(
        b, loc, warpRow, arith::RemUIOp::create(b, loc, lane, index(16)));
    Value aKLane =
        mul(arith::DivUIOp::create(b, loc, lane, index(16)), matrixK);
    // B's halves as [k][column] (bKMajor): ldmatrix.trans gives lane
    // (g, t) column g of the matrices at rows 2t, 2t + 1, so the lanes give
    // row l % 16 (k: 0-7, then 8-15) at column 8 (l / 16) (the next
    // fragment).
    Value bKRowLane, bColPair, bColOne, bColLane, bKLane;
    if (bKMajor) {
      bKRowLane = arith::RemUIOp::create(b, loc, lane, index(16));
      bColPair = arith::AddIOp::create(
          b, loc, warpCol,
          mul(arith::DivUIOp::create(b, loc, lane, index(16)), kFragN));
    } else {
      bColOne = arith::AddIOp::create(
          b, loc, warpCol, arith::RemUIOp::create(b, loc, lane, index(8)));
      bColLane = arith::AddIOp::create(
          b, loc, bColOne,
          mul(arith::DivUIOp::create(b, loc, lane, index(16)), kFragN));
      Value eighth = arith::DivUIOp::create(b, loc, lane, index(8));
      bKLane = mul(arith::RemUIOp::create(b, loc, eighth, index(2)), matrixK);
    }
    // The operands of mma.sync: a TF32 element's bits, or a pair of halves
    // as an i32 (bf16) or a vector of two (f16), of the matrices whose rows
    // the lanes give at `row` + `rowOffset`, `k` + `kOffset`.
    auto loadMatrices = [&](Value shared, Value current, Value row,
                            int64_t rowOffset, Value k, int64_t kOffset,
                            int64_t count,
                            bool transpose = false) -> SmallVector<Value> {
      row = add(row, rowOffset);
      k = add(k, kOffset);
      Value matrices = nvgpu::LdMatrixOp::create(
          b, loc,
          VectorType::get({count, 32 / staged.getIntOrFloatBitWidth()}, staged),
          shared, ValueRange{current, row, k}, transpose,
          static_cast<uint32_t>(count));
      SmallVector<Value> operands;
      for (int64_t r = 0; r < count; ++r) {
        Value v =
            vector::ExtractOp::create(b, loc, matrices, ArrayRef<int64_t>{r});
        if (isBf16)
          v = vector::BitCastOp::create(
              b, loc, VectorType::get({1}, b.getI32Type()), v);
        if (!mmaType.isF16())
          v = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
        operands.push_back(v);
      }
      return operands;
    };

    scf::ForOp steps = stepK(
        fragsM * fragsN * 4, [&](Value current, SmallVector<Value> &next) {
          for (int64_t ks = 0; ks < tile.bk; ks += fragK) {
            SmallVector<SmallVector<Value>> as, bs;
            for (int64_t i = 0; i < fragsM; ++i)
              as.push_back(loadMatrices(aTile, current, aRowLane, kFragM * i,
                                        aKLane, ks, 4));
            for (int64_t j = 0; j < fragsN; ++j) {
              if (bKMajor) {
                int64_t count = j + 1 < fragsN ? 4 : 2;
                SmallVector<Value> matrices = loadMatrices(
                    bTile, current, bKRowLane, ks,
                    count == 4 ? bColPair : warpCol, kFragN * j, count,
                    /*transpose=*/true);
                bs.push_back({matrices[0], matrices[1]});
                if (count == 4) {
                  bs.push_back({matrices[2], matrices[3]});
                  ++j;
                }
                continue;
              }
              if (j + 1 < fragsN) {
                SmallVector<Value> two = loadMatrices(
                    bTile, current, bColLane, kFragN * j, bKLane, ks, 4);
                bs.push_back({two[0], two[1]});
                bs.push_back({two[2], two[3]});
                ++j;
                continue;
              }
              // The last of an odd number: lanes 16-31 repeat 0-15.
              bs.push_back(loadMatrices(bTile, current, bColOne, kFragN * j,
                                        bKLane, ks, 2));
            }
            for (int64_t i = 0; i < fragsM; ++i)
              for (int64_t j = 0; j < fragsN; ++j) {
                int64_t at = (i * fragsN + j) * 4;
                auto mma = NVVM::MmaOp::create(
                    b, loc, fragType, as[i], bs[j],
                    ArrayRef<Value>(next).slice(at, 4),
                    ArrayRef<int64_t>{kFragM, kFragN, fragK},
                    /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
                    std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                    std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                                   NVVM::MMALayout::col});
                for (int64_t e = 0; e < 4; ++e)
                  next[at + e] = LLVM::ExtractValueOp::create(
                      b, loc, mma, ArrayRef<int64_t>{e});
              }
          }
        });

    // Each lane adds its fragments' elements to their outputs: of each,
    // rows g and g + 8 at columns 2t and 2t + 1 (a pair at once where the
    // epilogue allows it).
    epilogueWidth = getEpilogueWidth(2);
    Value group = arith::DivUIOp::create(b, loc, lane, index(4));
    Value pair = mul(arith::RemUIOp::create(b, loc, lane, index(4)), 2);
    Value rowBase = arith::AddIOp::create(b, loc, warpRow, group);
    Value colPair = arith::AddIOp::create(b, loc, warpCol, pair);
    for (int64_t i = 0; i < fragsM; ++i)
      for (int64_t j = 0; j < fragsN; ++j)
        for (int64_t e = 0; e < 4; e += 2) {
          Value row = add(rowBase, kFragM * i + (e / 2) * 8);
          Value col = add(colPair, kFragN * j);
          addToOutput(row, col,
                      steps.getResults().slice((i * fragsN + j) * 4 + e, 2),
                      init);
        }
  }

  /// The block's two warpgroups each own a 64 x wn piece of the tile (two
  /// pieces down a 128 x 128 tile, two across a 64 x 64 one), which each
  /// step updates by wgmma.m64n{wn}k16 (f32 sums) from the shared tiles,
  /// addressed by descriptors (describe). Warp q of a warpgroup holds, of
  /// each 8 columns of its piece, mma.sync's accumulator fragment at rows
  /// 16 q to 16 q + 15: with g = lane / 4 and t = lane % 4, rows g and
  /// g + 8 at columns 2 t and 2 t + 1. With a producer warp, the block's
  /// ninth warp issues the TMA loads (produceSteps) and the two
  /// warpgroups only compute.
  void emitWgmma(Value init) {
    // Both operands go by cp.async or TMA (pipelineK): no block barrier
    // in the loop, which the producer warp would never reach.
    assert(asyncA && asyncB && "wgmma's operands are copied asynchronously");
    if (!producerWarp)
      return emitWgmmaProducts(init);
    initBarriers();
    Value computes = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           thread, index(kThreads));
    auto role = scf::IfOp::create(b, loc, computes, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    // The producer first: it reads `ivs` (the batch loops') as set for the
    // tile, which the products' epilogue then sets in its region.
    b.setInsertionPointToStart(role.elseBlock());
    forEachTile([&] { produceSteps(); });
    b.setInsertionPointToStart(role.thenBlock());
    forEachTile([&] { emitWgmmaProducts(init); });
  }

  /// emitWgmma's products and epilogue, by the block's kThreads threads.
  void emitWgmmaProducts(Value init) {
    MLIRContext *ctx = b.getContext();
    Type f32 = b.getF32Type();
    int64_t wgCols = getWarpgroupColumns();
    int64_t wn = tile.bn / wgCols;
    Value group = arith::DivUIOp::create(b, loc, thread, index(kWarpGroup));
    Value wgRow =
        mul(arith::DivUIOp::create(b, loc, group, index(wgCols)), kWgmmaM);
    Value wgCol = mul(arith::RemUIOp::create(b, loc, group, index(wgCols)), wn);
    int64_t bytes = mmaType.getIntOrFloatBitWidth() / 8;
    // Where an operand's piece (`w`: its first row or column) starts in a
    // stage, and the descriptor of its terms [ks, ks + 16) from `stage`,
    // that start plus the stage's.
    std::function<Value(Value, int64_t)> aTerms, bTerms;
    Value aPiece, bPiece;
    if (!tma) {
      // [stage][w / 8][k / 8] core matrices (sharedType): 8 terms on from
      // one, kCoreBytes; 8 rows or columns on, a step's terms of 8.
      int64_t stepCores = tile.bk / kCoreRows * kCoreBytes;
      auto pieceStart = [&](Value shared, Value w) {
        Value start =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, shared);
        Value cores = arith::DivUIOp::create(b, loc, w, index(kCoreRows));
        return arith::AddIOp::create(b, loc, start, mul(cores, stepCores));
      };
      aPiece = pieceStart(aTile, wgRow);
      bPiece = pieceStart(bTile, wgCol);
      auto terms = [=, this](Value stage, int64_t ks) {
        return describeShared(add(stage, ks / kCoreRows * kCoreBytes),
                              kCoreBytes, stepCores, /*rowBytes=*/0);
      };
      aTerms = bTerms = terms;
    } else {
      // By TMA, [stage][k / span][w][span] where K is the operand's
      // innermost dimension (K-major: 8 rows on, 8 swizzled rows), else
      // [stage][w / span][k][span] (MN-major: span columns on, the next
      // box, the leading offset; 8 terms on, the stride offset); the
      // pieces start on whole boxes (getTmaOperand).
      auto layout = [&](const TmaOperand &t, Value shared, Value w,
                        int64_t width, Value &piece,
                        std::function<Value(Value, int64_t)> &terms) {
        int64_t rowBytes = t.span * bytes;
        Value start =
            memref::ExtractAlignedPointerAsIndexOp::create(b, loc, shared);
        if (t.kInnermost) {
          int64_t boxBytes = width * rowBytes;
          piece = arith::AddIOp::create(b, loc, start, mul(w, rowBytes));
          terms = [=, this](Value stage, int64_t ks) {
            return describeShared(
                add(stage, ks / t.span * boxBytes + ks % t.span * bytes),
                kCudaVectorBytes, kCoreRows * rowBytes, rowBytes);
          };
          return;
        }
        int64_t boxBytes = tile.bk * rowBytes;
        Value boxes = arith::DivUIOp::create(b, loc, w, index(t.span));
        piece = arith::AddIOp::create(b, loc, start, mul(boxes, boxBytes));
        terms = [=, this](Value stage, int64_t ks) {
          return describeShared(add(stage, ks * rowBytes), boxBytes,
                                kCoreRows * rowBytes, rowBytes);
        };
      };
      layout(*aTma, aTile, wgRow, tile.bm, aPiece, aTerms);
      layout(*bTma, bTile, wgCol, tile.bn, bPiece, bTerms);
    }
    NVVM::WGMMATypes type =
        mmaType.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
    // B's core matrices are rows of terms (col: K-major) where K is its
    // innermost dimension, else rows of columns (row: transposed).
    NVVM::MMALayout bLayout =
        isKInnermost(c.rhsMap) ? NVVM::MMALayout::col : NVVM::MMALayout::row;
    int64_t count = wn / 2;
    auto accsType =
        LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(count, f32));

    scf::ForOp steps =
        stepK(count, [&](Value current, SmallVector<Value> &next) {
          Value accs = LLVM::PoisonOp::create(b, loc, accsType);
          for (int64_t e = 0; e < count; ++e)
            accs = LLVM::InsertValueOp::create(b, loc, accs, next[e],
                                               ArrayRef<int64_t>{e});
          Value aStage = arith::AddIOp::create(
              b, loc, aPiece, mul(current, tile.bm * tile.bk * bytes));
          Value bStage = arith::AddIOp::create(
              b, loc, bPiece, mul(current, tile.bn * tile.bk * bytes));
          NVVM::WgmmaFenceAlignedOp::create(b, loc);
          for (int64_t ks = 0; ks < tile.bk; ks += kWgmmaK) {
            Value aDescriptor = aTerms(aStage, ks);
            Value bDescriptor = bTerms(bStage, ks);
            accs = NVVM::WgmmaMmaAsyncOp::create(
                b, loc, accsType, accs, aDescriptor, bDescriptor,
                NVVM::MMAShapeAttr::get(ctx, kWgmmaM, wn, kWgmmaK), type, type,
                NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
                NVVM::MMALayout::row, bLayout,
                /*satfinite=*/NVVM::MMAIntOverflowAttr());
          }
          NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
          // The step's products run on while the next step waits for its
          // operands; the previous step's end here, before its stage may be
          // copied into again (pipelineK: after the block's next barrier
          // with cp.async; by TMA, once every warp has released it). The
          // next products add to these accumulators as they are (no fence
          // needed between products of one shape).
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
          for (int64_t e = 0; e < count; ++e)
            next[e] = LLVM::ExtractValueOp::create(b, loc, accs,
                                                   ArrayRef<int64_t>{e});
        });

    // The last step's products end.
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
    // Each lane adds its fragments' elements to their outputs.
    Value lane = arith::RemUIOp::create(b, loc, thread, index(kWarp));
    Value warp = arith::DivUIOp::create(b, loc, thread, index(kWarp));
    Value quarter = arith::RemUIOp::create(b, loc, warp, index(4));
    Value rowBase = arith::AddIOp::create(b, loc, wgRow, mul(quarter, kFragM));
    rowBase = arith::AddIOp::create(
        b, loc, rowBase, arith::DivUIOp::create(b, loc, lane, index(4)));
    Value colBase = arith::AddIOp::create(
        b, loc, wgCol, mul(arith::RemUIOp::create(b, loc, lane, index(4)), 2));
    epilogueWidth = getEpilogueWidth(2);
    for (int64_t j = 0; j < wn / kFragN; ++j)
      for (int64_t e = 0; e < 4; e += 2) {
        Value row = add(rowBase, (e / 2) * 8);
        Value col = add(colBase, kFragN * j);
        addToOutput(row, col, steps.getResults().slice(4 * j + e, 2), init);
      }
  }

  /// A wgmma descriptor of an operand in shared memory from `address`
  /// (bytes, 16-byte aligned): `leading` and `stride` bytes (the leading
  /// and stride byte offsets), and its layout: unswizzled core matrices of
  /// 8 rows of 16 bytes (`rowBytes` 0; `leading` between neighbouring
  /// ones along K, `stride` along the rows or columns), or rows of
  /// `rowBytes` (32, 64 or 128) swizzled as a TMA load of a tensor map of
  /// that swizzle writes them, in patterns of 8 rows that start at
  /// multiples of their size (a base offset of 0).
  Value describeShared(Value address, int64_t leading, int64_t stride,
                       int64_t rowBytes) {
    Type i64 = b.getI64Type();
    Value bits = arith::IndexCastUIOp::create(b, loc, i64, address);
    Value four = arith::ConstantIntOp::create(b, loc, i64, 4);
    bits = arith::ShRUIOp::create(b, loc, bits, four);
    Value field = arith::ConstantIntOp::create(b, loc, i64, 0x3fff);
    bits = arith::AndIOp::create(b, loc, bits, field);
    // Layout types 1, 2 and 3: 128-, 64- and 32-byte swizzles.
    assert((rowBytes == 0 || rowBytes == 32 || rowBytes == 64 ||
            rowBytes == 128) &&
           "rows of a swizzle's bytes");
    uint64_t layout = rowBytes == 128  ? 1
                      : rowBytes == 64 ? 2
                      : rowBytes       ? 3
                                       : 0;
    Value offsets = arith::ConstantIntOp::create(
        b, loc, i64,
        static_cast<int64_t>((leading >> 4) << 16 | (stride >> 4) << 32 |
                             layout << 62));
    return arith::OrIOp::create(b, loc, bits, offsets);
  }

  /// The warpgroups side by side across a wgmma tile (emitWgmma).
  int64_t getWarpgroupColumns() {
    return kThreads / kWarpGroup / (tile.bm / kWgmmaM);
  }

  /// The loop over K in steps of the tile's: `count` f32 accumulators from
  /// zero, updated by `compute` from the stage of the shared tiles holding
  /// the step. The first step is staged before the loop; each step then
  /// loads the next one's elements into registers, computes, stores them
  /// in the other stage and waits for the block: one barrier a step, and
  /// the loads are in flight while the tensor cores or FMA units work. The
  /// last step reloads itself into the other stage, which nothing reads:
  /// one step's reads more, where a branch around the loads and stores
  /// took 30 registers more a thread (158 for a large bf16 tile, one block
  /// per multiprocessor where 128 allow two).
  scf::ForOp stepK(int64_t count,
                   function_ref<void(Value, SmallVector<Value> &)> compute) {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    SmallVector<Value> inits(count, zero);
    auto [first, end, last] = getPartOfK();
    if (asyncA && asyncB)
      return pipelineK(first, end, last, inits, compute);
    stageStep(first, index(0));
    return scf::ForOp::create(
        b, loc, first, end, index(tile.bk), inits,
        [&](OpBuilder &, Location, Value k0, ValueRange accs) {
          // Ops are created one by one (not as call arguments, whose order
          // C++ leaves open): the IR is the same with every compiler.
          Value step = stepOf(k0, first);
          Value current = arith::RemUIOp::create(b, loc, step, index(kStages));
          Value other = arith::SubIOp::create(b, loc, index(1), current);
          Value kNext = arith::MinUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, k0, index(tile.bk)), last);
          bool copied = copyStep(kNext, other);
          SmallVector<Value> as, bs;
          if (!asyncA)
            as = loadSlice(c.lhs, c.lhsMap, c.rowDims, tile.bm, aKMajor, m0,
                           kNext);
          if (!asyncB)
            bs =
                loadSlice(c.rhs, c.rhsMap, c.nDim, tile.bn, bKMajor, n0, kNext);
          SmallVector<Value> next(accs.begin(), accs.end());
          compute(current, next);
          if (!asyncA)
            storeSlice(as, c.lhs, c.lhsMap, c.rowDims, tile.bm, aTile, aKMajor,
                       other);
          if (!asyncB)
            storeSlice(bs, c.rhs, c.rhsMap, c.nDim, tile.bn, bTile, bKMajor,
                       other);
          if (copied)
            waitForCopies(0);
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, next);
        });
  }

  /// This block's part of K: the terms [first, end), its last step's
  /// first term `last`.
  std::tuple<Value, Value, Value> getPartOfK() {
    int64_t terms = c.ranges[c.kDim];
    int64_t lastStep = (llvm::divideCeil(terms, tile.bk) - 1) * tile.bk;
    Value first = index(0), end = index(terms), last = index(lastStep);
    if (partials) {
      int64_t part = splitSteps * tile.bk;
      first = mul(split, part);
      Value partEnd = add(first, part);
      end = arith::MinUIOp::create(b, loc, partEnd, index(terms));
      Value partLast = add(first, part - tile.bk);
      last = arith::MinUIOp::create(b, loc, partLast, index(lastStep));
    }
    return {first, end, last};
  }

  /// The number of the step of K at `k0` in this block's part of K, which
  /// starts at `first`, counted on from stepBase's (forEachTile).
  Value stepOf(Value k0, Value first) {
    Value fromFirst = k0;
    if (partials)
      fromFirst = arith::SubIOp::create(b, loc, k0, first);
    Value step = arith::DivUIOp::create(b, loc, fromFirst, index(tile.bk));
    if (stepBase)
      step = arith::AddIOp::create(b, loc, stepBase, step);
    return step;
  }

  /// stepK's loop when both operands are copied by cp.async, over `stages`
  /// stages, copying `ahead` = stages - 1 steps ahead: the copies of the
  /// first `ahead` steps start before the loop, a group each; step s waits
  /// until at most ahead - 1 groups are in flight (its own has landed) and
  /// for the block (which has then also finished computing on the stage
  /// step s - 1 read), starts the copies of step s + ahead into that stage
  /// and computes on its own. One barrier a step. With wgmma, whose
  /// products a step leaves running until the end of the next (emitWgmma),
  /// `ahead` is stages - 2: the stage copied into was read by step s - 2.
  /// Steps past `last` copy no bytes (copySlice), into stages nothing reads
  /// any more; the loop waits for all before it ends. By TMA (wgmma's
  /// operands), no barrier of the block's: step s waits for its stage's
  /// `loaded` phase; thread 0 then waits until every warp has released
  /// the stage of step s - 2 (at the end of step s - 1, whose wait ended
  /// step s - 2's products) and starts step s + ahead's loads into it;
  /// after computing, each warp releases the stage of step s - 1. Steps
  /// past `last` start no loads. With a producer warp (produceSteps), the
  /// loop only waits, computes and releases: the barriers are initialized
  /// before, and the loads issued, by the producer.
  scf::ForOp
  pipelineK(Value first, Value end, Value last, ValueRange inits,
            function_ref<void(Value, SmallVector<Value> &)> compute) {
    if (producerWarp)
      return scf::ForOp::create(
          b, loc, first, end, index(tile.bk), inits,
          [&](OpBuilder &, Location, Value k0, ValueRange accs) {
            Value step = stepOf(k0, first);
            Value current = arith::RemUIOp::create(b, loc, step, index(stages));
            waitForPhase(loaded, current, step, /*previous=*/false);
            SmallVector<Value> next(accs.begin(), accs.end());
            compute(current, next);
            releaseStage(step);
            scf::YieldOp::create(b, loc, next);
          });
    int64_t ahead = wgmma ? stages - 2 : stages - 1;
    assert(ahead >= 1 && "the pipeline copies ahead");
    auto start = [&](Value k0, Value into, Value live) {
      if (tma)
        loadStepByTma(k0, into, live);
      else
        copyStep(k0, into, live);
    };
    if (tma)
      initBarriers();
    for (int64_t s = 0; s < ahead; ++s) {
      Value k0 = add(first, s * tile.bk);
      if (!s) {
        start(k0, index(s), Value());
        continue;
      }
      Value live =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, k0, last);
      start(k0, index(s), live);
    }
    scf::ForOp loop = scf::ForOp::create(
        b, loc, first, end, index(tile.bk), inits,
        [&](OpBuilder &, Location, Value k0, ValueRange accs) {
          Value step = stepOf(k0, first);
          Value current = arith::RemUIOp::create(b, loc, step, index(stages));
          if (tma) {
            // The stage's loads have landed once its barrier completes
            // the phase of this use of the stage (step / stages).
            waitForPhase(loaded, current, step, /*previous=*/false);
          } else {
            waitForCopies(ahead - 1);
            // wgmma reads shared memory through the async proxy: this
            // thread's landed copies are ordered before it, then the
            // block's.
            if (wgmma)
              NVVM::FenceProxyOp::create(
                  b, loc, NVVM::ProxyKind::async_shared,
                  NVVM::SharedSpaceAttr::get(b.getContext(),
                                             NVVM::SharedSpace::shared_cta));
            gpu::BarrierOp::create(b, loc);
          }
          Value aheadStep = add(step, ahead);
          Value into = arith::RemUIOp::create(b, loc, aheadStep, index(stages));
          Value aheadK = add(k0, ahead * tile.bk);
          Value live = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                             aheadK, last);
          if (tma)
            loadStepByTma(aheadK, into, live, aheadStep);
          else
            copyStep(aheadK, into, live);
          SmallVector<Value> next(accs.begin(), accs.end());
          compute(current, next);
          if (tma)
            releaseStage(step);
          scf::YieldOp::create(b, loc, next);
        });
    if (!tma)
      waitForCopies(0);
    return loop;
  }

  /// The block's barriers of the TMA pipeline, one of each kind per stage,
  /// initialized by thread 0 and made visible to the async proxy and the
  /// block: `loaded`, which thread 0's one arrival (expecting the step's
  /// bytes) and the step's loads complete, and `released`, which each warp
  /// arrives at (lane 0) once its products of the step are done.
  void initBarriers() {
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto groupType =
        nvgpu::MBarrierGroupType::get(b.getContext(), workgroup, stages);
    loaded = nvgpu::MBarrierCreateOp::create(b, loc, groupType);
    released = nvgpu::MBarrierCreateOp::create(b, loc, groupType);
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         thread, index(0));
    auto init = scf::IfOp::create(b, loc, leader);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(init.thenBlock());
      Value one = index(1);
      Value warps = index(kThreads / kWarp);
      for (int64_t s = 0; s < stages; ++s) {
        Value id = index(s);
        nvgpu::MBarrierInitOp::create(b, loc, loaded, one, id,
                                      /*predicate=*/Value());
        nvgpu::MBarrierInitOp::create(b, loc, released, warps, id,
                                      /*predicate=*/Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    gpu::BarrierOp::create(b, loc);
  }

  /// Waits until `group`'s barrier `id` completes the phase of use `step /
  /// stages` of the stage (`previous`: of the use before; a fresh
  /// barrier's phase before the first counts as complete).
  void waitForPhase(Value group, Value id, Value step, bool previous) {
    Value use = arith::DivUIOp::create(b, loc, step, index(stages));
    Value odd = arith::RemUIOp::create(b, loc, use, index(2));
    Value parity = arith::CmpIOp::create(
        b, loc, previous ? arith::CmpIPredicate::eq : arith::CmpIPredicate::ne,
        odd, index(0));
    nvgpu::MBarrierTryWaitParityOp::create(b, loc, group, parity,
                                           index(kMbarrierTicks), id);
  }

  /// Once step `step`'s products have ended (those of step - 1, after the
  /// step's wgmma.wait_group 1), lane 0 of each warp releases the stage of
  /// step - 1 for loads: an arrival expecting no bytes, predicated on the
  /// lane, where an arrival under a branch made ptxas serialize the
  /// loop's wgmmas (C7520, a warpgroup.arrive on a divergent path).
  void releaseStage(Value step) {
    Value lane = arith::RemUIOp::create(b, loc, thread, index(kWarp));
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, index(0));
    Value after = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, step,
                                        index(0));
    Value arrives = arith::AndIOp::create(b, loc, first, after);
    Value previous = arith::SubIOp::create(b, loc, step, index(1));
    Value stage = arith::RemUIOp::create(b, loc, previous, index(stages));
    nvgpu::MBarrierArriveExpectTxOp::create(b, loc, released, index(0), stage,
                                            arrives);
  }

  /// Thread 0 starts the TMA loads of the step of K from `k0` into stage
  /// `into` (when `live`, if given): once every warp has released the
  /// stage's previous use (`step`: the step's number, when given; the
  /// first `stages` steps' stages are fresh), it arrives at the stage's
  /// `loaded` barrier expecting the step's bytes, which the loads then
  /// complete (elements past the end count, filled with zeros).
  void loadStepByTma(Value k0, Value into, Value live, Value step = {}) {
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         thread, index(0));
    if (live)
      leader = arith::AndIOp::create(b, loc, leader, live);
    auto issue = scf::IfOp::create(b, loc, leader);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(issue.thenBlock());
    issueStepByTma(k0, into, step);
  }

  /// The producer warp's lane 0 (thread kThreads) issues the TMA loads of
  /// every step of the block's part of K, each into its stage once the
  /// products have released the stage's previous use (the first `stages`
  /// uses are fresh): up to `stages` - 1 steps ahead of the products
  /// (step s releases the stage of step s - 1), whatever either warpgroup
  /// is doing, where thread 0 issued them between its own products,
  /// `stages` - 2 ahead, and waited there for the slower warpgroup. The
  /// other lanes have nothing to do.
  void produceSteps() {
    Value first, end;
    std::tie(first, end, std::ignore) = getPartOfK();
    Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         thread, index(kThreads));
    auto issue = scf::IfOp::create(b, loc, leader);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(issue.thenBlock());
    scf::ForOp::create(b, loc, first, end, index(tile.bk), ValueRange(),
                       [&](OpBuilder &, Location, Value k0, ValueRange) {
                         Value step = stepOf(k0, first);
                         Value into = arith::RemUIOp::create(b, loc, step,
                                                             index(stages));
                         issueStepByTma(k0, into, step);
                         scf::YieldOp::create(b, loc);
                       });
  }

  /// Issues the TMA loads of the step of K from `k0` into stage `into`
  /// (loadStepByTma's, from the thread issuing them).
  void issueStepByTma(Value k0, Value into, Value step) {
    if (step)
      waitForPhase(released, into, step, /*previous=*/true);
    int64_t bytes = mmaType.getIntOrFloatBitWidth() / 8;
    int64_t stepBytes = (tile.bm + tile.bn) * tile.bk * bytes;
    nvgpu::MBarrierArriveExpectTxOp::create(b, loc, loaded, index(stepBytes),
                                            into, /*predicate=*/Value());
    loadSliceByTma(*aTma, aTile, tile.bm, m0, k0, into);
    loadSliceByTma(*bTma, bTile, tile.bn, n0, k0, into);
  }

  /// Starts the TMA loads of the step's slice of an operand (`width` rows
  /// or columns from `start`, K from `k0`) into stage `into` of `shared`
  /// (sharedType): a box of `span` terms of the rows per `span` terms
  /// where K is the operand's innermost dimension, else of `span` columns
  /// of the terms per `span` columns.
  void loadSliceByTma(const TmaOperand &operand, Value shared, int64_t width,
                      Value start, Value k0, Value into) {
    auto sharedType = cast<MemRefType>(shared.getType());
    int64_t span = operand.span;
    int64_t pieces = (operand.kInnermost ? tile.bk : width) / span;
    int64_t rows = operand.kInnermost ? width : tile.bk;
    MemRefType boxType = operand.boxType;
    for (int64_t piece = 0; piece < pieces; ++piece) {
      SmallVector<OpFoldResult> offsets{into, b.getIndexAttr(piece),
                                        b.getIndexAttr(0), b.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{b.getIndexAttr(1), b.getIndexAttr(1),
                                      b.getIndexAttr(rows),
                                      b.getIndexAttr(span)};
      SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
      auto boxView = memref::SubViewOp::inferRankReducedResultType(
          {rows, span}, sharedType, offsets, sizes, strides);
      Value dst = memref::SubViewOp::create(b, loc, boxView, shared, offsets,
                                            sizes, strides);
      if (boxType.getRank() > 2) {
        // The box's unit dimensions (batch loops) around its two (rows, the
        // outer of them, may be as many as span).
        int64_t at =
            llvm::find(boxType.getShape(), rows) - boxType.getShape().begin();
        SmallVector<ReassociationIndices> groups(2);
        for (int64_t d = 0; d < boxType.getRank(); ++d)
          groups[d <= at ? 0 : 1].push_back(d);
        FailureOr<MemRefType> expanded =
            memref::ExpandShapeOp::computeExpandedType(
                boxView, boxType.getShape(), groups);
        assert(succeeded(expanded) && "a box's unit dimensions expand");
        dst = memref::ExpandShapeOp::create(b, loc, *expanded, dst, groups);
      }
      // Coordinates innermost first.
      SmallVector<Value> coordinates;
      for (int64_t loop : llvm::reverse(operand.loops)) {
        if (loop == kTmaRows)
          coordinates.push_back(operand.kInnermost ? start
                                                   : add(start, piece * span));
        else if (loop == static_cast<int64_t>(c.kDim))
          coordinates.push_back(operand.kInnermost ? add(k0, piece * span)
                                                   : k0);
        else
          coordinates.push_back(ivs[loop]);
      }
      nvgpu::TmaAsyncLoadOp::create(b, loc, dst, loaded, operand.descriptor,
                                    coordinates, into,
                                    /*multicastMask=*/Value(),
                                    /*predicate=*/Value());
    }
  }

  /// Stages the step of K from `k0` in stage `into` of the shared tiles and
  /// waits for the block.
  void stageStep(Value k0, Value into) {
    bool copied = copyStep(k0, into);
    if (!asyncA)
      storeSlice(
          loadSlice(c.lhs, c.lhsMap, c.rowDims, tile.bm, aKMajor, m0, k0),
          c.lhs, c.lhsMap, c.rowDims, tile.bm, aTile, aKMajor, into);
    if (!asyncB)
      storeSlice(loadSlice(c.rhs, c.rhsMap, c.nDim, tile.bn, bKMajor, n0, k0),
                 c.rhs, c.rhsMap, c.nDim, tile.bn, bTile, bKMajor, into);
    if (copied)
      waitForCopies(0);
    gpu::BarrierOp::create(b, loc);
  }

  /// Starts the cp.async copies of the step of K from `k0` into stage
  /// `into` of the operands copied asynchronously and commits them as one
  /// group of this thread's; returns whether any operand is. (The groups
  /// are NVVM's: nvgpu's wait takes a group's token, which a loop would
  /// have to carry.)
  /// A step that is not `live` (when given) copies no bytes.
  bool copyStep(Value k0, Value into, Value live = {}) {
    if (!asyncA && !asyncB)
      return false;
    if (asyncA)
      copySlice(c.lhs, c.lhsMap, c.rowDims, tile.bm, aTile, aKMajor, m0, k0,
                into, live);
    if (asyncB)
      copySlice(c.rhs, c.rhsMap, c.nDim, tile.bn, bTile, bKMajor, n0, k0, into,
                live);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    return true;
  }

  /// Waits until at most `pending` of this thread's groups of copies are
  /// in flight; a barrier then makes the landed ones visible to the block.
  void waitForCopies(int64_t pending) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
  }

  /// Adds `sums` to the outputs at row `row` and columns `col` on of the
  /// tile (bounds-checked when the tiles overrun the matrix), or stores
  /// `init` + `sums` when the output was filled with `init`; with K split,
  /// stores them as the block's partial sums there. `col` is a multiple of
  /// their number, and groups of epilogueWidth are finished as one vector.
  void addToOutput(Value row, Value col, ValueRange sums, Value init) {
    if (sums.size() > static_cast<size_t>(epilogueWidth)) {
      for (size_t i = 0; i < sums.size(); i += epilogueWidth)
        addToOutput(row, add(col, i), sums.slice(i, epilogueWidth), init);
      return;
    }
    Value sum = sums.front();
    if (sums.size() > 1)
      sum = vector::FromElementsOp::create(
          b, loc, VectorType::get({epilogueWidth}, sum.getType()), sums);
    int64_t m = c.extent(c.rowDims), n = c.ranges[c.nDim];
    row = arith::AddIOp::create(b, loc, m0, row);
    setIndex(c.rowDims, row);
    ivs[c.nDim] = arith::AddIOp::create(b, loc, n0, col);
    SmallVector<std::pair<Value, int64_t>> checks;
    if (m % tile.bm)
      checks.push_back({row, m});
    if (n % tile.bn)
      checks.push_back({ivs[c.nDim], n});
    Value inside = inBounds(checks);
    OpBuilder::InsertionGuard guard(b);
    if (inside) {
      auto owned = scf::IfOp::create(b, loc, inside);
      b.setInsertionPointToStart(owned.thenBlock());
    }
    if (partials) {
      SmallVector<Value, 4> at = {split, gridIndex, row, ivs[c.nDim]};
      if (sums.size() > 1)
        vector::StoreOp::create(b, loc, sum, partials, at,
                                /*nontemporal=*/false,
                                llvm::MaybeAlign(sums.size() * 4));
      else
        memref::StoreOp::create(b, loc, sum, partials, at);
      return;
    }
    finishOutput(sum, init);
  }

  /// A launch of a thread per group of adjacent outputs (one vector;
  /// neighbouring threads on neighbouring columns) that adds up the parts'
  /// partial sums in order, so that the result does not depend on which
  /// block finished first, and finishes the outputs as an unsplit product
  /// does. Its groups are as wide as 16-byte loads of the f32 partial sums
  /// allow (getEpilogueWidth), whatever the product's own launch took
  /// (a tensor core's pair of columns).
  void emitCombine(Value init) {
    int64_t m = c.extent(c.rowDims), n = c.ranges[c.nDim];
    int64_t width = getEpilogueWidth(kCudaVectorBytes / 4);
    int64_t groups = c.extent(c.gridDims) * m * n / width;
    Value one = index(1);
    Value gridX = index(llvm::divideCeil(groups, kThreads));
    Value blockX = index(kThreads);
    auto launch =
        gpu::LaunchOp::create(b, loc, gridX, one, one, blockX, one, one);
    b.setInsertionPointToStart(&launch.getBody().front());
    gpu::TerminatorOp terminator = gpu::TerminatorOp::create(b, loc);
    b.setInsertionPoint(terminator);
    Value first = mul(launch.getBlockIds().x, kThreads);
    Value id = arith::AddIOp::create(b, loc, first, launch.getThreadIds().x);
    if (groups % kThreads) {
      Value inside = inBounds({{id, groups}});
      auto owned = scf::IfOp::create(b, loc, inside);
      b.setInsertionPointToStart(owned.thenBlock());
    }
    Value col =
        mul(arith::RemUIOp::create(b, loc, id, index(n / width)), width);
    Value rest = arith::DivUIOp::create(b, loc, id, index(n / width));
    Value row = arith::RemUIOp::create(b, loc, rest, index(m));
    Value g = arith::DivUIOp::create(b, loc, rest, index(m));
    ivs.assign(c.ranges.size(), Value());
    setIndex(c.gridDims, g);
    setIndex(c.rowDims, row);
    ivs[c.nDim] = col;
    Value sum;
    for (int64_t s = 0; s < splits; ++s) {
      SmallVector<Value, 4> at = {index(s), g, row, col};
      Value part =
          width > 1
              ? vector::LoadOp::create(
                    b, loc, VectorType::get({width}, b.getF32Type()), partials,
                    at, /*nontemporal=*/false, llvm::MaybeAlign(width * 4))
                    .getResult()
              : memref::LoadOp::create(b, loc, partials, at).getResult();
      sum = sum ? arith::AddFOp::create(b, loc, sum, part).getResult() : part;
    }
    finishOutput(sum, init);
    b.setInsertionPointAfter(launch);
  }

  /// Finishes the output where `ivs` are: `init` (or the output's
  /// contents) plus `sum`, then the epilogue's ops. A vector `sum` is that
  /// many adjacent columns, which getEpilogueWidth allowed: the buffers
  /// read along the columns are read as vectors, those that are not once
  /// (broadcast where an op takes them with a vector), and each buffer
  /// written is stored as a vector.
  void finishOutput(Value sum, Value init) {
    SmallVector<Value> at = indices(c.outMap);
    auto vectorType = dyn_cast<VectorType>(sum.getType());
    int64_t width = vectorType ? vectorType.getNumElements() : 1;
    unsigned column = c.outMap.getNumResults() - 1;
    auto vectorOf = [&](Value value) -> Value {
      return vectorType ? broadcastToWidth(b, loc, value, width) : value;
    };
    auto alignment = [&](Type element) {
      return llvm::MaybeAlign(width * element.getIntOrFloatBitWidth() / 8);
    };
    // The value of `buffer` at `where`: a vector of the group's columns
    // where it is read along them.
    auto load = [&](Value buffer, ValueRange where,
                    bool alongColumns) -> Value {
      if (!vectorType || !alongColumns)
        return memref::LoadOp::create(b, loc, buffer, where);
      Type element = cast<MemRefType>(buffer.getType()).getElementType();
      return vector::LoadOp::create(b, loc, vectorType.clone(element), buffer,
                                    where, /*nontemporal=*/false,
                                    alignment(element));
    };
    Value base = init ? vectorOf(init) : load(c.out, at, true);
    Value value = arith::AddFOp::create(b, loc, base, sum);
    // The epilogue's ops on this element, each op's result held for the
    // next instead of stored and read back; each buffer written is stored
    // once, with its last value.
    llvm::MapVector<Value, Value> held;
    held[c.out] = value;
    for (linalg::GenericOp op : c.epilogue) {
      Block &body = op.getRegion().front();
      IRMapping mapping;
      for (OpOperand &operand : op->getOpOperands()) {
        BlockArgument arg = body.getArgument(operand.getOperandNumber());
        Value v = held.lookup(operand.get());
        if (!v && arg.use_empty())
          continue;
        if (!v) {
          AffineMap map = op.getMatchingIndexingMap(&operand);
          SmallVector<Value> where;
          for (AffineExpr e : map.getResults())
            where.push_back(isa<AffineDimExpr>(e)
                                ? at[cast<AffineDimExpr>(e).getPosition()]
                                : index(0));
          v = load(operand.get(), where, map.isFunctionOfDim(column));
        }
        mapping.map(arg, v);
      }
      for (Operation &bodyOp : body.without_terminator()) {
        // The epilogue's loops are the output's dimensions; the column's
        // index is the group's (a vector).
        if (auto loopIndex = dyn_cast<linalg::IndexOp>(bodyOp)) {
          Value v = at[loopIndex.getDim()];
          if (vectorType && loopIndex.getDim() == column)
            v = getIndexVector(b, loc, v, width);
          mapping.map(loopIndex.getResult(), v);
          continue;
        }
        cloneOnVectors(b, bodyOp, mapping, width);
      }
      Value result = mapping.lookupOrDefault(
          body.getTerminator()->getOperand(0));
      held[op.getDpsInits()[0]] = result;
    }
    for (auto &[buffer, v] : held) {
      if (llvm::is_contained(c.unstored, buffer))
        continue;
      if (vectorType)
        vector::StoreOp::create(
            b, loc, vectorOf(v), buffer, at, /*nontemporal=*/false,
            alignment(cast<MemRefType>(buffer.getType()).getElementType()));
      else
        memref::StoreOp::create(b, loc, v, buffer, at);
    }
  }

  /// The most adjacent columns (a power of two of at most `most`) a thread
  /// finishes at once (finishOutput): the columns' extent must be a
  /// multiple of it (a group lies wholly inside or outside the matrix),
  /// every buffer the epilogue writes or reads along the columns must
  /// allow aligned vectors of it along its last dimension
  /// (getAlignedVectorWidth), which the columns index (with K split, the
  /// partial sums' scratch buffer too), and the epilogue's ops on such
  /// values (the column's index among them) must be elementwise-mappable,
  /// on ints, indices and floats; 1 when not.
  int64_t getEpilogueWidth(int64_t most) {
    int64_t width = most;
    auto fit = [&](Value buffer) {
      width = std::min(width, getAlignedVectorWidth(buffer));
    };
    fit(c.out);
    if (partials)
      fit(partials);
    unsigned column = c.outMap.getNumResults() - 1;
    DenseSet<Value> held = {c.out}, varying;
    for (linalg::GenericOp op : c.epilogue) {
      Block &body = op.getRegion().front();
      for (OpOperand &operand : op->getOpOperands()) {
        BlockArgument arg = body.getArgument(operand.getOperandNumber());
        if (held.contains(operand.get())) {
          varying.insert(arg);
          continue;
        }
        AffineMap map = op.getMatchingIndexingMap(&operand);
        if (arg.use_empty() || !map.isFunctionOfDim(column))
          continue;
        // Its last index the column's (not a broadcast's 0).
        auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
        if (!last || last.getPosition() != column)
          return 1;
        fit(operand.get());
        varying.insert(arg);
      }
      for (Operation &bodyOp : body.without_terminator()) {
        if (auto loopIndex = dyn_cast<linalg::IndexOp>(bodyOp)) {
          if (loopIndex.getDim() == column)
            varying.insert(loopIndex.getResult());
          continue;
        }
        if (llvm::none_of(bodyOp.getOperands(),
                          [&](Value v) { return varying.contains(v); }))
          continue;
        if (!isElementwiseOnScalars(&bodyOp))
          return 1;
        varying.insert_range(bodyOp.getResults());
      }
      Value written = op.getDpsInits()[0];
      if (!llvm::is_contained(c.unstored, written))
        fit(written);
      held.insert(written);
    }
    while (width > 1 && c.ranges[c.nDim] % width != 0)
      width /= 2;
    return std::max<int64_t>(width, 1);
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value v, int64_t k) {
    return k ? arith::AddIOp::create(b, loc, v, index(k)).getResult() : v;
  }
  Value mul(Value v, int64_t k) {
    return arith::MulIOp::create(b, loc, v, index(k));
  }

  /// The conjunction of `value < bound` for each pair whose bound the tiles
  /// overrun, or null when all are in bounds.
  Value inBounds(ArrayRef<std::pair<Value, int64_t>> checks) {
    Value all;
    for (auto [value, bound] : checks) {
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          value, index(bound));
      all = all ? arith::AndIOp::create(b, loc, all, below).getResult()
                : below;
    }
    return all;
  }

  /// The indices of an operand read through `map` at the current `ivs`.
  SmallVector<Value> indices(AffineMap map) {
    SmallVector<Value> result;
    for (unsigned i = 0; i < map.getNumResults(); ++i)
      result.push_back(ivs[map.getDimPosition(i)]);
    return result;
  }

  /// Sets the values of `loops` (outermost first) from their linear index.
  void setIndex(ArrayRef<unsigned> loops, Value linear) {
    for (auto [i, loop] : llvm::enumerate(llvm::reverse(loops))) {
      if (i + 1 == loops.size()) {
        ivs[loop] = linear;
        break;
      }
      Value range = index(c.ranges[loop]);
      ivs[loop] = arith::RemUIOp::create(b, loc, linear, range);
      linear = arith::DivUIOp::create(b, loc, linear, range);
    }
  }

  /// The bytes of an element of `operand` (f32, or half precision read
  /// unwidened).
  static int64_t bytesOf(Value operand) {
    return getElementTypeOrSelf(operand).getIntOrFloatBitWidth() / 8;
  }

  /// The elements of `operand` (read through `map`, its rows or
  /// columns `loops`, staged in a [k][row] tile where `kMajor`) a thread
  /// loads at once: up to kCudaVectorBytes along its last dimension when
  /// that is K or the only loop of `loops`, whose extent they divide (a
  /// group then lies wholly inside or outside the matrix) and whose layout
  /// allows them (getAlignedVectorWidth); else 1. A tensor-core tile takes
  /// a group only along its rows: down a column, the groups of a warp's
  /// lanes start 4 rows (80 bytes) apart, in two banks.
  int64_t getSliceVector(Value operand, AffineMap map, ArrayRef<unsigned> loops,
                         bool kMajor) {
    return getSliceVector(
        std::min<int64_t>(getAlignedVectorWidth(operand),
                          kCudaVectorBytes / bytesOf(operand)),
        map, loops, kMajor);
  }

  /// getSliceVector of an operand whose layout allows groups of `aligned`
  /// elements.
  int64_t getSliceVector(int64_t aligned, AffineMap map,
                         ArrayRef<unsigned> loops, bool kMajor) {
    unsigned last = map.getDimPosition(map.getNumResults() - 1);
    if (last != c.kDim && (loops.size() != 1 || loops.front() != last))
      return 1;
    if (mmaType && kMajor == (last == c.kDim))
      return 1;
    int64_t vector = aligned;
    while (vector > 1 && c.ranges[last] % vector != 0)
      vector /= 2;
    return std::max<int64_t>(vector, 1);
  }

  /// The position in the tile of group thread + r kThreads of `vector`
  /// elements of a step's slice of an operand read through `map` ((w, kk):
  /// the first element's row or column, and its term), numbered along the
  /// operand's innermost dimension so that neighbouring threads read
  /// neighbouring addresses.
  std::pair<Value, Value> sliceElement(AffineMap map, int64_t width,
                                       int64_t vector, int64_t r) {
    Value e = add(thread, r * kThreads);
    if (wgmma) {
      // 8 neighbouring threads copy the 8 rows of a core matrix (distinct
      // banks), then the next core matrix along the innermost dimension.
      Value row = arith::RemUIOp::create(b, loc, e, index(kCoreRows));
      Value rest = arith::DivUIOp::create(b, loc, e, index(kCoreRows));
      int64_t inner = (isKInnermost(map) ? tile.bk : width) / vector;
      Value along =
          mul(arith::RemUIOp::create(b, loc, rest, index(inner)), vector);
      Value across = arith::AddIOp::create(
          b, loc,
          mul(arith::DivUIOp::create(b, loc, rest, index(inner)), kCoreRows),
          row);
      if (isKInnermost(map))
        return {across, along};
      return {along, across};
    }
    if (isKInnermost(map)) {
      Value groups = index(tile.bk / vector);
      return {arith::DivUIOp::create(b, loc, e, groups),
              mul(arith::RemUIOp::create(b, loc, e, groups), vector)};
    }
    Value groups = index(width / vector);
    return {mul(arith::RemUIOp::create(b, loc, e, groups), vector),
            arith::DivUIOp::create(b, loc, e, groups)};
  }

  /// Points `ivs` at this thread's group `r` (sliceElement) of the step's
  /// slice of an operand read through `map` (its `width` rows or columns
  /// of `loops`, linearized, from `start`; K from `k0`); returns the group's
  /// place in the tile (row or column, term) and whether it lies inside the
  /// matrix (null when every group does).
  std::tuple<Value, Value, Value> placeGroup(AffineMap map,
                                             ArrayRef<unsigned> loops,
                                             int64_t width, int64_t vector,
                                             int64_t r, Value start, Value k0) {
    int64_t size = c.extent(loops), terms = c.ranges[c.kDim];
    auto [w, kk] = sliceElement(map, width, vector, r);
    Value at = arith::AddIOp::create(b, loc, start, w);
    setIndex(loops, at);
    ivs[c.kDim] = arith::AddIOp::create(b, loc, k0, kk);
    SmallVector<std::pair<Value, int64_t>> checks;
    if (size % width)
      checks.push_back({at, size});
    if (terms % tile.bk)
      checks.push_back({ivs[c.kDim], terms});
    return {w, kk, inBounds(checks)};
  }

  /// This thread's elements of the step's slice of `operand` (its `width`
  /// rows or columns of `loops`, linearized, from `start`; K from `k0`), as
  /// numbered by sliceElement: scalars of the operand's type, or vectors of
  /// getSliceVector elements. Elements past the end read as zero.
  SmallVector<Value> loadSlice(Value operand, AffineMap map,
                               ArrayRef<unsigned> loops, int64_t width,
                               bool kMajor, Value start, Value k0) {
    int64_t vector = getSliceVector(operand, map, loops, kMajor);
    assert(tile.bk % vector == 0 && width % vector == 0 &&
           width * tile.bk % (kThreads * vector) == 0 &&
           "the threads load whole groups of a step");
    Type type = getElementTypeOrSelf(operand);
    if (vector > 1)
      type = VectorType::get({vector}, type);
    auto load = [&]() -> Value {
      if (vector == 1)
        return memref::LoadOp::create(b, loc, operand, indices(map));
      return vector::LoadOp::create(
          b, loc, type, operand, indices(map),
          /*nontemporal=*/false, llvm::MaybeAlign(vector * bytesOf(operand)));
    };
    SmallVector<Value> values;
    for (int64_t r = 0; r < width * tile.bk / (kThreads * vector); ++r) {
      Value inside =
          std::get<2>(placeGroup(map, loops, width, vector, r, start, k0));
      if (!inside) {
        values.push_back(load());
        continue;
      }
      auto guarded = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &, Location) {
            scf::YieldOp::create(b, loc, ValueRange{load()});
          },
          [&](OpBuilder &, Location) {
            scf::YieldOp::create(
                b, loc,
                ValueRange{arith::ConstantOp::create(
                    b, loc, type, cast<TypedAttr>(b.getZeroAttr(type)))});
          });
      values.push_back(guarded.getResult(0));
    }
    return values;
  }

  /// Stores the elements loadSlice gave of `operand` in stage `into` of
  /// `shared` ([k][row] where `kMajor`, else [row][k]; f32 rounded to the
  /// tensor cores' type): a group as one vector where it is contiguous
  /// there.
  void storeSlice(ArrayRef<Value> values, Value operand, AffineMap map,
                  ArrayRef<unsigned> loops, int64_t width, Value shared,
                  bool kMajor, Value into) {
    int64_t vector = getSliceVector(operand, map, loops, kMajor);
    bool kInnermost = isKInnermost(map);
    // [row][k] tiles hold a group along K together, [k][row] along rows.
    bool contiguous = kMajor != kInnermost;
    auto sharedType = cast<MemRefType>(shared.getType());
    // Elements already of the tile's type (f32 for SIMT, halves read as
    // they are) are stored as they were loaded.
    bool rounded = getElementTypeOrSelf(operand) != sharedType.getElementType();
    for (auto [r, value] : llvm::enumerate(values)) {
      auto [w, kk] = sliceElement(map, width, vector, r);
      bool asVector = vector > 1 && contiguous;
      SmallVector<Value> elements;
      for (int64_t i = 0; i < vector && (rounded || !asVector); ++i) {
        Value element = value;
        if (vector > 1)
          element =
              vector::ExtractOp::create(b, loc, value, ArrayRef<int64_t>{i});
        if (rounded && isTf32(mmaType))
          element = roundToTf32Bits(b, loc, element);
        else if (rounded)
          element = arith::TruncFOp::create(b, loc, mmaType, element);
        elements.push_back(element);
      }
      auto at = [&](int64_t i) -> SmallVector<Value> {
        Value row = w, k = kk;
        (kInnermost ? k : row) = add(kInnermost ? kk : w, i);
        if (kMajor)
          return {into, k, row};
        return {into, row, k};
      };
      if (asVector) {
        Type element = sharedType.getElementType();
        Value group = value;
        if (rounded)
          group = vector::FromElementsOp::create(
              b, loc, VectorType::get({vector}, element), elements);
        vector::StoreOp::create(
            b, loc, group, shared, at(0), /*nontemporal=*/false,
            llvm::MaybeAlign(vector * element.getIntOrFloatBitWidth() / 8));
        continue;
      }
      for (auto [i, element] : llvm::enumerate(elements))
        memref::StoreOp::create(b, loc, element, shared, at(i));
    }
  }

  /// Whether `operand`'s slices go to shared memory by cp.async, without
  /// passing through registers: its elements are the tensor cores' halves,
  /// read as they are, in 16-byte groups (getSliceVector) contiguous in
  /// its tile.
  bool isCopiedAsync(Value operand, AffineMap map, ArrayRef<unsigned> loops,
                     bool kMajor) {
    return mmaType && getElementTypeOrSelf(operand) == mmaType &&
           kMajor != isKInnermost(map) &&
           getSliceVector(operand, map, loops, kMajor) * bytesOf(operand) ==
               kCudaVectorBytes;
  }

  /// Starts copying this thread's groups of the step's slice of `operand`
  /// (as loadSlice reads them) into stage `into` of `shared` by cp.async
  /// (bypassing L1). A group past the end, or every group when `live` is
  /// given and false, copies no bytes from the operand's first element and
  /// fills its place with zeros.
  void copySlice(Value operand, AffineMap map, ArrayRef<unsigned> loops,
                 int64_t width, Value shared, bool kMajor, Value start,
                 Value k0, Value into, Value live) {
    int64_t vector = getSliceVector(operand, map, loops, kMajor);
    auto token = nvgpu::DeviceAsyncTokenType::get(b.getContext());
    for (int64_t r = 0; r < width * tile.bk / (kThreads * vector); ++r) {
      auto [w, kk, inside] =
          placeGroup(map, loops, width, vector, r, start, k0);
      if (live)
        inside = inside ? arith::AndIOp::create(b, loc, inside, live) : live;
      SmallVector<Value> from = indices(map);
      Value elements;
      if (inside) {
        Value zero = index(0);
        for (Value &i : from)
          i = arith::SelectOp::create(b, loc, inside, i, zero);
        Value all = index(vector);
        elements = arith::SelectOp::create(b, loc, inside, all, zero);
      }
      SmallVector<Value> to = kMajor ? SmallVector<Value>{into, kk, w}
                                     : SmallVector<Value>{into, w, kk};
      if (wgmma) {
        Value inCore = isKInnermost(map) ? w : kk;
        to = {into, arith::DivUIOp::create(b, loc, w, index(kCoreRows)),
              arith::DivUIOp::create(b, loc, kk, index(kCoreRows)),
              arith::RemUIOp::create(b, loc, inCore, index(kCoreRows)),
              index(0)};
      }
      nvgpu::DeviceAsyncCopyOp::create(b, loc, token, shared, to, operand, from,
                                       b.getIndexAttr(vector), elements,
                                       b.getUnitAttr());
    }
  }

  /// The view of `operand` (read through `map`, its `width` rows or
  /// columns `loops` in a tile, of which a warpgroup's products take
  /// `pieceWidth`) that a tensor map describes for wgmma's TMA loads: its
  /// dimensions, with `loops` (consecutive and contiguous in it, in their
  /// order) as one, and the box each load copies: the step's terms of
  /// every row where K is the operand's innermost dimension, else the
  /// step's terms of `span` columns, rows of up to kMaxSwizzleBytes (but
  /// not more than a piece's columns: a warpgroup's start on a box);
  /// none when TMA cannot load it: a layout of static strides, unit
  /// innermost, every other stride and the offset multiples of 16 bytes,
  /// the memref a view of the kernel's argument or buffer, at most five
  /// dimensions, rows of 32, 64 or 128 bytes.
  std::optional<TmaOperand> getTmaOperand(Value operand, AffineMap map,
                                          ArrayRef<unsigned> loops,
                                          int64_t width, int64_t pieceWidth) {
    auto type = dyn_cast<MemRefType>(operand.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic) || strides.back() != 1)
      return std::nullopt;
    Value root = getRootMemRef(operand);
    auto rootType = dyn_cast<MemRefType>(root.getType());
    if (!rootType || !rootType.getLayout().isIdentity() ||
        !(isa<BlockArgument>(root) || root.getDefiningOp<memref::AllocOp>()))
      return std::nullopt;
    int64_t bytes = bytesOf(operand);
    int64_t rank = type.getRank();
    TmaOperand t;
    t.kInnermost = isKInnermost(map);
    t.span =
        std::min(t.kInnermost ? tile.bk : pieceWidth, kMaxSwizzleBytes / bytes);
    int64_t rowBytes = t.span * bytes;
    if ((rowBytes != 32 && rowBytes != 64 && rowBytes != 128) ||
        (t.kInnermost ? tile.bk : width) % t.span)
      return std::nullopt;
    SmallVector<int64_t> box, viewStrides;
    for (int64_t d = 0; d < rank; ++d) {
      unsigned loop = map.getDimPosition(d);
      if (loop == loops.front()) {
        // The rows or columns, one dimension where contiguous.
        ReassociationIndices group;
        for (auto [i, rowLoop] : llvm::enumerate(loops)) {
          int64_t at = d + i;
          if (at >= rank || map.getDimPosition(at) != rowLoop ||
              (i + 1 < loops.size() &&
               strides[at] != type.getDimSize(at + 1) * strides[at + 1]))
            return std::nullopt;
          group.push_back(at);
        }
        d += loops.size() - 1;
        t.collapse.push_back(group);
        t.loops.push_back(kTmaRows);
        box.push_back(t.kInnermost ? width : t.span);
        viewStrides.push_back(strides[d]);
        continue;
      }
      if (loop != c.kDim && !llvm::is_contained(c.gridDims, loop))
        return std::nullopt;
      t.collapse.push_back({d});
      t.loops.push_back(loop);
      box.push_back(loop != c.kDim ? 1 : t.kInnermost ? t.span : tile.bk);
      viewStrides.push_back(strides[d]);
    }
    if (t.loops.size() > kMaxTmaRank || offset * bytes % kCudaVectorBytes)
      return std::nullopt;
    for (int64_t stride : ArrayRef<int64_t>(viewStrides).drop_back())
      if (stride * bytes % kCudaVectorBytes)
        return std::nullopt;
    // A tensor map's dimensions have at most 2^32 elements.
    for (const ReassociationIndices &group : t.collapse) {
      int64_t extent = 1;
      for (int64_t d : group)
        extent *= type.getDimSize(d);
      if (extent > (int64_t(1) << 32))
        return std::nullopt;
    }
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    t.boxType = MemRefType::get(box, type.getElementType(),
                                MemRefLayoutAttrInterface(), workgroup);
    return t;
  }

  /// Creates the tensor map of `t`, getTmaOperand's of `operand`, before
  /// the launch (the host's; the launch takes it as a parameter).
  void createTmaDescriptor(TmaOperand &t, Value operand) {
    auto type = cast<MemRefType>(operand.getType());
    Value view = operand;
    if (t.collapse.size() != static_cast<size_t>(type.getRank()))
      view = memref::CollapseShapeOp::create(b, loc, operand, t.collapse);
    auto unranked =
        UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace());
    Value cast = memref::CastOp::create(b, loc, unranked, view);
    int64_t rowBytes = t.span * bytesOf(operand);
    nvgpu::TensorMapSwizzleKind swizzle = getTmaSwizzleKind(rowBytes);
    auto descriptorType = nvgpu::TensorMapDescriptorType::get(
        b.getContext(), t.boxType, swizzle,
        nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
    SmallVector<Value> box;
    for (int64_t size : t.boxType.getShape())
      box.push_back(index(size));
    t.descriptor =
        nvgpu::TmaCreateDescriptorOp::create(b, loc, descriptorType, cast, box);
  }

  /// Whether an operand read through `map` has K as its innermost
  /// dimension.
  bool isKInnermost(AffineMap map) {
    return map.getDimPosition(map.getNumResults() - 1) == c.kDim;
  }

  Contraction c;
  Type mmaType;
  GemmFeatures features;
  OpBuilder &b;
  Location loc;
  TileShape tile = kSmallTile;
  Value aTile, bTile, thread, m0, n0;
  /// The parts K is split into and the steps of K each takes (the last may
  /// take fewer); with more than one part, the scratch buffer of their
  /// partial sums ([part][grid][row][column]) and this block's part.
  int64_t splits = 1, splitSteps = 0;
  Value partials, split;
  /// This block's index of the output's other (batch) dimensions, linear.
  Value gridIndex;
  /// The adjacent columns a thread finishes at once (getEpilogueWidth).
  int64_t epilogueWidth = 1;
  /// Whether the shared tiles of A and B are [k][row] rather than [row][k].
  bool aKMajor = false, bKMajor = false;
  /// Whether A's and B's slices are copied by cp.async (isCopiedAsync).
  bool asyncA = false, asyncB = false;
  /// Whether this product runs on wgmma (hasWgmma, both operands copied
  /// by cp.async).
  bool wgmma = false;
  /// Whether wgmma's operands are loaded by TMA (both can be), their
  /// tensor maps, and the pipeline's barriers (initBarriers).
  bool tma = false;
  /// Whether the TMA loads are issued by a warp of their own, after the
  /// products' kThreads threads (produceSteps).
  bool producerWarp = false;
  /// Whether the tile is kWideMmaTile.
  bool wide = false;
  /// The product's tiles; with persistent blocks (forEachTile), the blocks
  /// launched (else 0), and the steps before the current tile's.
  int64_t tileCount = 0, persistentBlocks = 0;
  Value blockId, stepBase;
  std::optional<TmaOperand> aTma, bTma;
  Value loaded, released;
  /// The steps of K the shared tiles hold.
  int64_t stages = kStages;
  /// The value of each loop of the contraction where the launch reads or
  /// writes.
  SmallVector<Value> ivs;
};

/// Appends to `c.epilogue` the elementwise ops right after the product
/// that can run in its launch, on each output as it is stored: generics
/// over the output's shape, every loop parallel, writing one buffer through
/// the identity, whose body is free of memory effects; a buffer the product
/// or an earlier op of the epilogue wrote is read through the identity (it
/// is then the value in registers), other buffers are read anywhere but
/// are written by none of them (no block reads what another writes), and
/// no buffer written is one the product reads. `fill` is the product's
/// folded fill. Sets `c.unstored`: buffers allocated in the kernel that
/// nothing but these ops uses.
static void findEpilogue(Contraction &c, linalg::FillOp fill) {
  auto outType = cast<MemRefType>(c.out.getType());
  SmallVector<Value> written = {c.out}, readRoots;
  Value lhsRoot = getRootMemRef(c.lhs), rhsRoot = getRootMemRef(c.rhs);
  auto isWritten = [&](Value root) {
    return llvm::any_of(written,
                        [&](Value w) { return getRootMemRef(w) == root; });
  };
  for (Operation *next = c.op->getNextNode(); next;
       next = next->getNextNode()) {
    auto op = dyn_cast<linalg::GenericOp>(next);
    if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op.getNumReductionLoops() != 0 ||
        op.getStaticLoopRanges() != outType.getShape())
      break;
    Value init = op.getDpsInits()[0];
    auto initType = dyn_cast<MemRefType>(init.getType());
    if (!initType || initType.getShape() != outType.getShape() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
      break;
    // Values from outside the body are constants, which the launch's
    // outlining copies in.
    Block &body = op.getRegion().front();
    bool ok = llvm::all_of(body, [&](Operation &bodyOp) {
      return bodyOp.getNumRegions() == 0 &&
             (isMemoryEffectFree(&bodyOp) ||
              bodyOp.hasTrait<OpTrait::IsTerminator>()) &&
             llvm::all_of(bodyOp.getOperands(), [&](Value v) {
               return v.getParentBlock() == &body ||
                      matchPattern(v, m_Constant());
             });
    });
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value v = input->get();
      AffineMap map = op.getMatchingIndexingMap(input);
      if (llvm::is_contained(written, v)) {
        ok &= map.isIdentity();
        continue;
      }
      Value root = getRootMemRef(v);
      ok &= isa<MemRefType>(v.getType()) && !isWritten(root) &&
            map.isProjectedPermutation(/*allowZeroInResults=*/true);
    }
    Value initRoot = getRootMemRef(init);
    // Its own inputs: the buffer it writes only as that very value, read
    // through the identity (each thread its own element).
    for (OpOperand *input : op.getDpsInputOperands())
      if (getRootMemRef(input->get()) == initRoot)
        ok &= input->get() == init &&
              op.getMatchingIndexingMap(input).isIdentity();
    ok &= initRoot != lhsRoot && initRoot != rhsRoot &&
          !llvm::is_contained(readRoots, initRoot) &&
          (llvm::is_contained(written, init) || !isWritten(initRoot));
    if (!ok)
      break;
    for (OpOperand *input : op.getDpsInputOperands())
      if (!llvm::is_contained(written, input->get()))
        readRoots.push_back(getRootMemRef(input->get()));
    c.epilogue.push_back(op);
    if (!llvm::is_contained(written, init))
      written.push_back(init);
  }
  // A kernel's own buffer only these ops use is never read again.
  for (Value w : written) {
    if (!w.getDefiningOp<memref::AllocOp>())
      continue;
    bool local = llvm::all_of(w.getUsers(), [&](Operation *user) {
      return user == c.op || (fill && user == fill) ||
             isa<memref::DeallocOp>(user) ||
             llvm::is_contained(c.epilogue, user);
    });
    if (local)
      c.unstored.push_back(w);
  }
}

/// Rounds the operands of `op`, a product `out += lhs * rhs` in f32 that
/// is not tiled (a matrix-vector product, a convolution), to `type` where
/// the body reads them, so that with --precision tf32, bf16 or f16 every
/// product multiplies what the tensor cores would. A named op is generalized first.
static void roundOperands(linalg::LinalgOp op, Type type) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0 ||
      op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op->getNumRegions() != 1 ||
      !isMulAddBody(op->getRegion(0).front()))
    return;
  for (Value operand : op->getOperands())
    if (!getElementTypeOrSelf(operand.getType()).isF32())
      return;
  // A matrix product or a convolution; not a sum of squares (a norm's).
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (op.getDpsInputs()[0] == op.getDpsInputs()[1] && maps[0] == maps[1])
    return;
  if (failed(linalg::inferContractionDims(op)) &&
      !linalg::isaConvolutionOpInterface(op))
    return;
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  if (!isa<linalg::GenericOp>(op)) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return;
    op = *generic;
  }
  Block &body = op->getRegion(0).front();
  rewriter.setInsertionPointToStart(&body);
  for (unsigned i = 0; i < 2; ++i) {
    BlockArgument arg = body.getArgument(i);
    SmallVector<OpOperand *> uses =
        llvm::map_to_vector(arg.getUses(), [](OpOperand &use) { return &use; });
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    Value rounded =
        isTf32(type)
            ? arith::BitcastOp::create(rewriter, loc, f32,
                                       roundToTf32Bits(rewriter, loc, arg))
                  .getResult()
            : arith::ExtFOp::create(
                  rewriter, loc, f32,
                  arith::TruncFOp::create(rewriter, loc, type, arg).getResult())
                  .getResult();
    for (OpOperand *use : uses)
      use->set(rounded);
  }
}

struct CUDATileMatmulPass final
    : mlir::ms::impl::CUDATileMatmulPassBase<CUDATileMatmulPass> {
  using CUDATileMatmulPassBase::CUDATileMatmulPassBase;
  void runOnOperation() override {
    Type mmaType;
    if (precision == "tf32")
      mmaType = FloatTF32Type::get(&getContext());
    else if (precision == "bf16")
      mmaType = BFloat16Type::get(&getContext());
    else if (precision == "f16")
      mmaType = Float16Type::get(&getContext());
    else if (precision != "f32") {
      getOperation().emitError(
          "expected precision f32, tf32, bf16 or f16, found '")
          << precision << "'";
      return signalPassFailure();
    }
    GemmFeatures features{arch == "sm_90a", tma, producerWarp, wideTiles,
                          persistentBlocks};
    SmallVector<Contraction, 4> found;
    SmallVector<linalg::LinalgOp> untiled;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        func.walk([&](linalg::LinalgOp linalgOp) {
          std::optional<Contraction> c;
          if (linalgOp->getParentOp() == func)
            c = matchContraction(linalgOp);
          if (c)
            found.push_back(std::move(*c));
          else
            untiled.push_back(linalgOp);
        });
    for (linalg::LinalgOp op : untiled) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (generic && rewriteBlockProductOnTensorCores(generic, mmaType))
        continue;
      if (mmaType)
        roundOperands(op, mmaType);
    }
    for (Contraction &c : found) {
      // A fill of the output just before is folded into the final sums.
      auto fill = dyn_cast_or_null<linalg::FillOp>(c.op->getPrevNode());
      if (fill && (!fill.hasPureBufferSemantics() ||
                   fill.getDpsInits()[0] != c.out ||
                   !fill.getDpsInputs()[0].getType().isF32()))
        fill = nullptr;
      Type type = absorbWidenings(c, mmaType);
      findEpilogue(c, fill);
      OpBuilder builder(c.op);
      if (failed(GemmEmitter(c, type, features, builder)
                     .emit(fill ? fill.getDpsInputs()[0] : Value())))
        return signalPassFailure();
      c.op->erase();
      for (linalg::GenericOp op : c.epilogue)
        op->erase();
      if (fill)
        fill->erase();
      // A widened buffer nothing reads any more goes with its widening.
      for (linalg::GenericOp op : c.widenings) {
        Value wide = op.getDpsInits()[0];
        op->erase();
        if (!llvm::all_of(wide.getUsers(), llvm::IsaPred<memref::DeallocOp>))
          continue;
        for (Operation *user : llvm::make_early_inc_range(wide.getUsers()))
          user->erase();
        wide.getDefiningOp()->erase();
      }
    }
  }
};
} // namespace
