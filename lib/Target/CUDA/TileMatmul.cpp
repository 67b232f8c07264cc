//===- TileMatmul.cpp - matrix products as shared-memory tiled launches ---===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// One thread per output reading a row of A and a column of B from global
// memory reads each element of A N times and each of B M times. Here each
// f32 contraction of a kernel (linalg.matmul, linalg.batch_matmul, or a
// generic of that shape) becomes one gpu.launch: a block per tile of the
// output, whose threads stage A and B through shared memory a slice of K at
// a time and each accumulate a piece of the tile in registers, so that an
// element loaded from global memory is used by a whole row or column of the
// tile. ms-cuda-map-to-gpu outlines the launch as written.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDATILEMATMULPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// A block's tile of the output (bm x bn) and the slice of K staged in
/// shared memory at a time (bk). The block's threads are a kSide x kSide
/// grid; thread (ty, tx) owns rows ty + kSide * i and columns tx + kSide * j
/// of the tile, so that adjacent threads read adjacent elements of a
/// shared row and write adjacent outputs.
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
static_assert(kLargeTile.bm % kSide == 0 && kLargeTile.bn % kSide == 0 &&
                  kSmallTile.bm % kSide == 0 && kSmallTile.bn % kSide == 0,
              "each thread owns whole rows and columns of its tile");
static_assert(kLargeTile.bm * kLargeTile.bk % kThreads == 0 &&
                  kLargeTile.bn * kLargeTile.bk % kThreads == 0 &&
                  kSmallTile.bm * kSmallTile.bk % kThreads == 0 &&
                  kSmallTile.bn * kSmallTile.bk % kThreads == 0,
              "the threads stage whole steps of K");
/// Blocks of large tiles a product needs for them to be chosen: two per
/// streaming multiprocessor of an H100 (132), so that none idles.
static constexpr int64_t kMinLargeBlocks = 264;
/// Shared rows are padded by this many elements: threads storing down a
/// column then hit distinct banks, and rows stay 16-byte aligned.
static constexpr int64_t kPad = 4;
/// The smallest M, N and K tiled; smaller products keep one thread per
/// output (a matrix-vector product would idle most of a tile).
static constexpr int64_t kMinRows = 16, kMinTerms = 8;

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

/// The memref `value` is a view of (through view-like ops), or `value`.
static Value getRootMemRef(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
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

namespace {
/// Emits a contraction's launch.
class GemmEmitter {
public:
  GemmEmitter(Contraction c, OpBuilder &builder)
      : c(c), b(builder), loc(c.op.getLoc()) {}

  /// Replaces the contraction by its launch; `init` is the value the output
  /// was filled with just before (the fill is then dropped), or null to add
  /// to the output's contents.
  LogicalResult emit(Value init) {
    int64_t m = c.extent(c.rowDims), n = c.ranges[c.nDim];
    int64_t grid = c.extent(c.gridDims);
    auto blocksOf = [&](TileShape t) {
      return grid * llvm::divideCeil(m, t.bm) * llvm::divideCeil(n, t.bn);
    };
    tile = kSmallTile;
    if (m >= kLargeTile.bm && n >= kLargeTile.bn &&
        blocksOf(kLargeTile) >= kMinLargeBlocks)
      tile = kLargeTile;
    int64_t blocks = blocksOf(tile);
    if (blocks > std::numeric_limits<int32_t>::max())
      return c.op.emitError("expected at most 2^31 - 1 tiles of the matrix "
                            "product, but found ")
             << blocks;

    Type f32 = b.getF32Type();
    auto workgroup = gpu::AddressSpaceAttr::get(b.getContext(),
                                                gpu::AddressSpace::Workgroup);
    auto sharedType = [&](int64_t width) {
      return MemRefType::get({tile.bk, width + kPad}, f32,
                             MemRefLayoutAttrInterface(), workgroup);
    };
    b.setInsertionPoint(c.op);
    Value one = index(1);
    Value gridX = index(blocks);
    Value blockX = index(kThreads);
    auto launch = gpu::LaunchOp::create(
        b, loc, gridX, one, one, blockX, one, one,
        /*dynamicSharedMemorySize=*/Value(), /*asyncTokenType=*/Type(),
        /*asyncDependencies=*/ValueRange(),
        TypeRange{sharedType(tile.bm), sharedType(tile.bn)});
    b.setInsertionPointToStart(&launch.getBody().front());
    aTile = launch.getWorkgroupAttributions()[0];
    bTile = launch.getWorkgroupAttributions()[1];
    Value block = launch.getBlockIds().x;
    Value thread = launch.getThreadIds().x;

    // block = (g * tilesM + tm) * tilesN + tn: neighbouring blocks share
    // the rows of A they read.
    Value tilesN = index(llvm::divideCeil(n, tile.bn));
    Value tilesM = index(llvm::divideCeil(m, tile.bm));
    Value tn = arith::RemUIOp::create(b, loc, block, tilesN);
    Value rest = arith::DivUIOp::create(b, loc, block, tilesN);
    Value tm = arith::RemUIOp::create(b, loc, rest, tilesM);
    Value g = arith::DivUIOp::create(b, loc, rest, tilesM);
    ivs.assign(c.ranges.size(), Value());
    setIndex(c.gridDims, g);
    m0 = mul(tm, tile.bm);
    n0 = mul(tn, tile.bn);
    ty = arith::DivUIOp::create(b, loc, thread, index(kSide));
    tx = arith::RemUIOp::create(b, loc, thread, index(kSide));
    this->thread = thread;

    // The accumulators, one per owned output, carried over the K steps.
    int64_t rows = tile.bm / kSide, cols = tile.bn / kSide;
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    SmallVector<Value> inits(rows * cols, zero);
    auto steps = scf::ForOp::create(
        b, loc, index(0), index(c.ranges[c.kDim]), index(tile.bk), inits,
        [&](OpBuilder &, Location, Value k0, ValueRange accs) {
          stage(c.lhs, c.lhsMap, c.rowDims, tile.bm, m0, k0, aTile);
          stage(c.rhs, c.rhsMap, c.nDim, tile.bn, n0, k0, bTile);
          gpu::BarrierOp::create(b, loc);
          SmallVector<Value> next(accs.begin(), accs.end());
          auto contract = arith::FastMathFlags::contract;
          for (int64_t kk = 0; kk < tile.bk; ++kk) {
            SmallVector<Value> as, bs;
            for (int64_t i = 0; i < rows; ++i)
              as.push_back(memref::LoadOp::create(
                  b, loc, aTile,
                  ValueRange{index(kk), add(ty, kSide * i)}));
            for (int64_t j = 0; j < cols; ++j)
              bs.push_back(memref::LoadOp::create(
                  b, loc, bTile,
                  ValueRange{index(kk), add(tx, kSide * j)}));
            for (int64_t i = 0; i < rows; ++i)
              for (int64_t j = 0; j < cols; ++j) {
                Value product =
                    arith::MulFOp::create(b, loc, as[i], bs[j], contract);
                next[i * cols + j] = arith::AddFOp::create(
                    b, loc, next[i * cols + j], product, contract);
              }
          }
          // The next step's stores wait for every thread's reads.
          gpu::BarrierOp::create(b, loc);
          scf::YieldOp::create(b, loc, next);
        });

    // Each thread adds its sums to the outputs it owns.
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) {
        Value row = arith::AddIOp::create(b, loc, m0, add(ty, kSide * i));
        setIndex(c.rowDims, row);
        ivs[c.nDim] = arith::AddIOp::create(b, loc, n0, add(tx, kSide * j));
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
        SmallVector<Value> at = indices(c.outMap);
        Value base = init;
        if (!base)
          base = memref::LoadOp::create(b, loc, c.out, at);
        Value sum = arith::AddFOp::create(b, loc, base,
                                          steps.getResult(i * cols + j));
        memref::StoreOp::create(b, loc, sum, c.out, at);
      }
    gpu::TerminatorOp::create(b, loc);
    return success();
  }

private:
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

  /// Copies this step's slice of `operand` (its `width` rows or columns of
  /// `loops`, linearized, from `start`; K from `k0`) into `shared` as
  /// [k][row]: each thread takes elements thread, thread + kThreads, ...,
  /// numbered along the operand's innermost dimension so that neighbouring
  /// threads read neighbouring addresses. Elements past the end read as
  /// zero.
  void stage(Value operand, AffineMap map, ArrayRef<unsigned> loops,
             int64_t width, Value start, Value k0, Value shared) {
    bool kInnermost =
        map.getDimPosition(map.getNumResults() - 1) == c.kDim;
    int64_t size = c.extent(loops), terms = c.ranges[c.kDim];
    for (int64_t r = 0; r < width * tile.bk / kThreads; ++r) {
      Value e = add(thread, r * kThreads);
      Value kk, w;
      if (kInnermost) {
        kk = arith::RemUIOp::create(b, loc, e, index(tile.bk));
        w = arith::DivUIOp::create(b, loc, e, index(tile.bk));
      } else {
        w = arith::RemUIOp::create(b, loc, e, index(width));
        kk = arith::DivUIOp::create(b, loc, e, index(width));
      }
      Value at = arith::AddIOp::create(b, loc, start, w);
      setIndex(loops, at);
      ivs[c.kDim] = arith::AddIOp::create(b, loc, k0, kk);
      SmallVector<std::pair<Value, int64_t>> checks;
      if (size % width)
        checks.push_back({at, size});
      if (terms % tile.bk)
        checks.push_back({ivs[c.kDim], terms});
      Value value;
      if (Value inside = inBounds(checks)) {
        auto guarded = scf::IfOp::create(
            b, loc, inside,
            [&](OpBuilder &, Location) {
              scf::YieldOp::create(
                  b, loc,
                  ValueRange{memref::LoadOp::create(b, loc, operand,
                                                    indices(map))});
            },
            [&](OpBuilder &, Location) {
              scf::YieldOp::create(
                  b, loc,
                  ValueRange{arith::ConstantOp::create(
                      b, loc, b.getF32FloatAttr(0.0))});
            });
        value = guarded.getResult(0);
      } else {
        value = memref::LoadOp::create(b, loc, operand, indices(map));
      }
      memref::StoreOp::create(b, loc, value, shared, ValueRange{kk, w});
    }
  }

  Contraction c;
  OpBuilder &b;
  Location loc;
  TileShape tile = kSmallTile;
  Value aTile, bTile, thread, ty, tx, m0, n0;
  /// The value of each loop of the contraction where the launch reads or
  /// writes.
  SmallVector<Value> ivs;
};

struct CUDATileMatmulPass final
    : mlir::ms::impl::CUDATileMatmulPassBase<CUDATileMatmulPass> {
  void runOnOperation() override {
    SmallVector<Contraction, 4> found;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        for (Operation &op : func.getBody().front())
          if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
            if (std::optional<Contraction> c = matchContraction(linalgOp))
              found.push_back(std::move(*c));
    for (const Contraction &c : found) {
      // A fill of the output just before is folded into the final sums.
      auto fill = dyn_cast_or_null<linalg::FillOp>(c.op->getPrevNode());
      if (fill && (!fill.hasPureBufferSemantics() ||
                   fill.getDpsInits()[0] != c.out ||
                   !fill.getDpsInputs()[0].getType().isF32()))
        fill = nullptr;
      OpBuilder builder(c.op);
      if (failed(GemmEmitter(c, builder)
                     .emit(fill ? fill.getDpsInputs()[0] : Value())))
        return signalPassFailure();
      c.op->erase();
      if (fill)
        fill->erase();
    }
  }
};
} // namespace
