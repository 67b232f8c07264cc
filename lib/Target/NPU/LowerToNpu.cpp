//===- LowerToNpu.cpp - bufferized kernels to msnpu programs --------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ms-npu-lower-kernels: each top-level linalg op of a bufferized kernel
// becomes one step of an msnpu program (docs/NPU.md). Tiles are static:
// every tile's shape and GM offsets are constants, tiles are split over the
// cores in contiguous runs (a core runs its run inside a loop whose count
// is 1 on that core and 0 on the others), and only a contraction's K steps
// are a loop. Double-buffered buffers are ordered by flags derived from the
// schedule: the producing pipe sets "full" after writing a slot and the
// consuming pipe waits for it; the consumer sets "empty" after reading and
// the producer waits for it before writing the slot again (primed with one
// "empty" per slot, drained at the end of the step).
//
//===----------------------------------------------------------------------===//

#include "ms/Target/NPU/NPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/SmallBitVector.h"

#include <cmath>
#include <functional>

namespace mlir::ms {
#define GEN_PASS_DEF_NPULOWERKERNELSPASS
#include "ms/Target/NPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::npu;

namespace {
constexpr int64_t kFractal = 16;
/// The most instructions one op's unrolled vector-unit code may take.
constexpr int64_t kMaxVectorInstructions = 400000;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t roundUp(int64_t a, int64_t b) { return ceilDiv(a, b) * b; }

/// Byte size of one element of `type`.
int64_t elementBytes(Type type) {
  return std::max<int64_t>(1, type.getIntOrFloatBitWidth() / 8);
}

/// The number `value` holds when it is a constant.
std::optional<double> getConstant(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return i.getType().isInteger(1) ? double(i.getValue().getZExtValue())
                                    : double(i.getInt());
  return std::nullopt;
}

/// An index an indexing map computes: `constant + sum(coef * dim)`, with
/// each loop dimension at most once (`oh * 2 + kh` for a strided window).
struct LinearIndex {
  int64_t constant = 0;
  SmallVector<std::pair<unsigned, int64_t>> terms;

  /// The coefficient of loop dimension `dim` (0 when absent).
  int64_t coefficient(unsigned dim) const {
    for (auto [d, c] : terms)
      if (d == dim)
        return c;
    return 0;
  }
};

/// `expr` as a LinearIndex, if it is one.
std::optional<LinearIndex> decomposeIndex(AffineExpr expr) {
  LinearIndex result;
  std::function<bool(AffineExpr, int64_t)> visit = [&](AffineExpr e,
                                                       int64_t scale) {
    if (auto constant = dyn_cast<AffineConstantExpr>(e)) {
      result.constant += scale * constant.getValue();
      return true;
    }
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      if (result.coefficient(dim.getPosition()))
        return false;
      result.terms.push_back({dim.getPosition(), scale});
      return true;
    }
    auto binary = dyn_cast<AffineBinaryOpExpr>(e);
    if (!binary)
      return false;
    if (binary.getKind() == AffineExprKind::Add)
      return visit(binary.getLHS(), scale) && visit(binary.getRHS(), scale);
    if (binary.getKind() == AffineExprKind::Mul)
      if (auto c = dyn_cast<AffineConstantExpr>(binary.getRHS()))
        return visit(binary.getLHS(), scale * c.getValue());
    return false;
  };
  if (!visit(expr, 1))
    return std::nullopt;
  return result;
}

/// Whether every result of `map` is a LinearIndex (a loop dimension, a
/// constant, or a strided window such as `oh * 2 + kh`).
bool isIndexedByLoops(AffineMap map) {
  return llvm::all_of(map.getResults(), [](AffineExpr e) {
    return decomposeIndex(e).has_value();
  });
}

/// Whether some result of `map` combines loop dimensions or scales one.
bool hasWindows(AffineMap map) {
  return llvm::any_of(map.getResults(), [](AffineExpr e) {
    std::optional<LinearIndex> index = decomposeIndex(e);
    return index && (index->terms.size() > 1 ||
                     (index->terms.size() == 1 && index->terms[0].second != 1));
  });
}

/// Whether the vector unit computes on elements of `type` (bf16 and f16
/// widened to f32, results rounded back).
bool isVectorType(Type type) {
  return type.isF32() || type.isF16() || type.isBF16() || type.isInteger(32);
}

/// Splits `count` items into `parts` contiguous runs as even as possible;
/// returns the start of each run and the end.
SmallVector<int64_t> splitEvenly(int64_t count, int64_t parts) {
  SmallVector<int64_t> starts;
  for (int64_t p = 0; p <= parts; ++p)
    starts.push_back(count * p / parts);
  return starts;
}

//===----------------------------------------------------------------------===//
// Emitter: buffers, views, flags
//===----------------------------------------------------------------------===//

/// Builds msnpu code for one step: places on-chip buffers, makes views of
/// GM operands and emits flags.
class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, const NpuConfig &config)
      : b(b), loc(loc), config(config) {}

  OpBuilder &b;
  Location loc;
  NpuConfig config;

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// Reserves `bytes` of `space`; returns the offset or failure when the
  /// memory is full.
  FailureOr<int64_t> reserve(MemorySpace space, int64_t bytes) {
    int64_t &top = used[static_cast<int>(space)];
    int64_t offset = roundUp(top, config.alignBytes);
    if (offset + bytes > getCapacity(config, space))
      return failure();
    top = offset + bytes;
    return offset;
  }

  /// Bytes of `space` not reserved yet (after aligning).
  int64_t available(MemorySpace space) const {
    return getCapacity(config, space) -
           roundUp(used[static_cast<int>(space)], config.alignBytes);
  }

  /// A buffer of `shape` x `type` at `offset` of `space`.
  Value bufferAt(MemorySpace space, int64_t offset, ArrayRef<int64_t> shape,
                 Type type) {
    return BufferOp::create(b, loc, getBufferType(shape, type, space),
                            b.getI64IntegerAttr(offset));
  }

  /// Slot `slot` (a constant or an index value) of `slots` buffers of
  /// `shape` x `type` placed one after another at `offset`.
  Value slotView(MemorySpace space, int64_t offset, ArrayRef<int64_t> shape,
                 Type type, int64_t slotBytes, OpFoldResult slot) {
    if (auto constant = getConstantIntValue(slot))
      return bufferAt(space, offset + *constant * slotBytes, shape, type);
    int64_t elems = slotBytes / elementBytes(type);
    SmallVector<int64_t> full{2 * elems};
    Value all = bufferAt(space, offset, full, type);
    Value elemOffset = arith::MulIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, slot), index(elems));
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    auto flatType = cast<MemRefType>(memref::SubViewOp::inferResultType(
        cast<MemRefType>(all.getType()), {ShapedType::kDynamic}, {count}, {1}));
    SmallVector<OpFoldResult> offsets{elemOffset}, sizes{b.getIndexAttr(count)},
        strides{b.getIndexAttr(1)};
    Value flat = memref::SubViewOp::create(b, loc, flatType, all, offsets,
                                           sizes, strides);
    ReassociationIndices group;
    for (unsigned i = 0; i < shape.size(); ++i)
      group.push_back(i);
    return memref::ExpandShapeOp::create(b, loc, shape, flat, {group});
  }

  void setFlag(Pipe from, Pipe to, int count = 1, int id = 0) {
    for (int i = 0; i < count; ++i)
      SetFlagOp::create(b, loc, from, to, id);
  }
  void waitFlag(Pipe from, Pipe to, int count = 1, int id = 0) {
    for (int i = 0; i < count; ++i)
      WaitFlagOp::create(b, loc, from, to, id);
  }

  /// A view of `source` (rank 2) at `offsets` of `sizes`.
  Value subview(Value source, ArrayRef<OpFoldResult> offsets,
                ArrayRef<int64_t> sizes) {
    auto type = cast<MemRefType>(source.getType());
    SmallVector<OpFoldResult> sizeFolds, strides;
    for (int64_t s : sizes) {
      sizeFolds.push_back(b.getIndexAttr(s));
      strides.push_back(b.getIndexAttr(1));
    }
    auto resultType = cast<MemRefType>(
        memref::SubViewOp::inferResultType(type, offsets, sizeFolds, strides));
    return memref::SubViewOp::create(b, loc, resultType, source, offsets,
                                     sizeFolds, strides);
  }

  /// The view of GM operand `operand` (indexed through `map` by the loop
  /// dimensions) where loop dimension i starts at `offsets[i]`, with one
  /// dimension per entry of `dims` (loop dimensions, in this order) of the
  /// size in `sizes`; a loop dimension the operand does not depend on is a
  /// dimension of size 1 (broadcast), and every other loop dimension is
  /// fixed at its offset.
  Value tileView(Value operand, AffineMap map, ArrayRef<OpFoldResult> offsets,
                 ArrayRef<unsigned> dims, ArrayRef<int64_t> sizes) {
    auto type = cast<MemRefType>(operand.getType());
    SmallVector<OpFoldResult> opOffsets, opSizes, opStrides;
    SmallVector<int64_t> keptShape;
    SmallVector<unsigned> keptDims;
    for (AffineExpr result : map.getResults()) {
      // The index is constant + sum(coef * dim): at most one of its
      // dimensions is one of `dims` (the view's dimension, strided by its
      // coefficient); the others are fixed at their offsets.
      LinearIndex index = *decomposeIndex(result);
      std::optional<unsigned> kept;
      int64_t stride = 1;
      for (auto [dim, coef] : index.terms) {
        if (llvm::is_contained(dims, dim)) {
          kept = dim;
          stride = coef;
        }
      }
      OpFoldResult offset = b.getIndexAttr(index.constant);
      if (index.terms.size() == 1 && index.terms[0].second == 1 &&
          index.constant == 0) {
        offset = offsets[index.terms[0].first];
      } else {
        int64_t sum = index.constant;
        for (auto [dim, coef] : index.terms)
          sum += coef * *getConstantIntValue(offsets[dim]);
        offset = b.getIndexAttr(sum);
      }
      opOffsets.push_back(offset);
      int64_t size = 1;
      if (kept) {
        size = sizes[llvm::find(dims, *kept) - dims.begin()];
        keptShape.push_back(size);
        keptDims.push_back(*kept);
      }
      opSizes.push_back(b.getIndexAttr(size));
      opStrides.push_back(b.getIndexAttr(stride));
    }
    Value view = operand;
    if (type.getRank() > 0) {
      auto resultType =
          cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
              keptShape, type, opOffsets, opSizes, opStrides));
      view = memref::SubViewOp::create(b, loc, resultType, operand, opOffsets,
                                       opSizes, opStrides);
    }
    // Order the kept dimensions as `dims` orders them.
    SmallVector<unsigned> order;
    for (unsigned d : dims)
      if (auto it = llvm::find(keptDims, d); it != keptDims.end())
        order.push_back(it - keptDims.begin());
    if (!llvm::is_sorted(order)) {
      AffineMap perm = AffineMap::getPermutationMap(order, b.getContext());
      view =
          memref::TransposeOp::create(b, loc, view, AffineMapAttr::get(perm));
    }
    // Insert unit dimensions for the loop dimensions it lacks.
    if (keptDims.size() == dims.size())
      return view;
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    for (unsigned i = 0; i < dims.size(); ++i) {
      bool kept = llvm::is_contained(keptDims, dims[i]);
      shape.push_back(kept ? sizes[i] : 1);
      if (kept || groups.empty())
        groups.emplace_back();
      groups.back().push_back(i);
    }
    // Leading unit dimensions belong to the first kept one.
    if (!keptDims.empty() && !llvm::is_contained(keptDims, dims[0]) &&
        groups.size() > keptDims.size()) {
      ReassociationIndices first = groups[0];
      groups.erase(groups.begin());
      groups[0].insert(groups[0].begin(), first.begin(), first.end());
    }
    if (keptDims.empty())
      groups.clear();
    return memref::ExpandShapeOp::create(b, loc, shape, view, groups);
  }

  /// The fractals [at, at + count) (in fractal rows and columns) of the
  /// fractal matrix `matrix` (R x C x 16 x 16), of each the first
  /// `inner` rows and columns (all when empty).
  Value fractalSlice(Value matrix, ArrayRef<int64_t> at,
                     ArrayRef<int64_t> count, ArrayRef<int64_t> inner = {}) {
    return fractalSlice(matrix, b.getIndexAttr(at[0]), b.getIndexAttr(at[1]),
                        count, inner);
  }
  Value fractalSlice(Value matrix, OpFoldResult row, OpFoldResult col,
                     ArrayRef<int64_t> count, ArrayRef<int64_t> inner = {}) {
    auto type = cast<MemRefType>(matrix.getType());
    SmallVector<OpFoldResult> offsets{row, col, b.getIndexAttr(0),
                                      b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{
        b.getIndexAttr(count[0]), b.getIndexAttr(count[1]),
        b.getIndexAttr(inner.empty() ? type.getDimSize(2) : inner[0]),
        b.getIndexAttr(inner.empty() ? type.getDimSize(3) : inner[1])};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    auto resultType = cast<MemRefType>(
        memref::SubViewOp::inferResultType(type, offsets, sizes, strides));
    return memref::SubViewOp::create(b, loc, resultType, matrix, offsets, sizes,
                                     strides);
  }

  /// Runs `body` on core `core` only: inside a loop whose count is 1 there
  /// and 0 on the other cores.
  void onCore(int core, function_ref<void()> body) {
    SmallVector<int64_t> counts(config.cores, 0);
    counts[core] = 1;
    Value count = PerCoreOp::create(b, loc, b.getIndexType(), counts);
    auto loop = scf::ForOp::create(b, loc, index(0), count, index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    body();
  }

private:
  int64_t used[6] = {};
};

//===----------------------------------------------------------------------===//
// Contractions on the cube
//===----------------------------------------------------------------------===//

/// Tile sizes of a contraction (multiples of 16).
struct GemmTiles {
  int64_t tm = 0, tn = 0, tk = 0;
  /// K steps per L1 chunk: MTE2 loads `chunk` steps of A and B at once (its
  /// latency paid once per chunk), MTE1 moves one step at a time to L0.
  int64_t chunk = 1;
  /// Whether L0C holds two result tiles (the fixpipe drains one while the
  /// cube fills the other).
  bool doubleC = false;
  /// Whether A's rows of a tile stay in L1 for all of K (two such blocks)
  /// while the tiles of those rows run one after another, so that MTE2
  /// loads them once per run of tiles instead of once per tile.
  bool residentA = false;
};

/// A contraction's sizes.
struct GemmShape {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// Bytes of one element of A and of B in GM.
  int64_t aBytes = 4, bBytes = 4;
  /// Bytes of one element of the cube's inputs (2 for f16 and bf16, 4 for
  /// f32) and the K extent of their fractals: a fractal row is 32 bytes
  /// (16 for f16 and bf16, 8 for f32).
  int64_t cubeBytes = 2, k0 = 16;
  /// Vector-unit cycles per result element of a fused epilogue (0 without
  /// one).
  double epilogueCycles = 0;
};

/// Bytes of L1 one resident block of A takes: a tile's rows by all of K
/// (padded to whole fractals).
int64_t getResidentABytes(const GemmShape &shape, const GemmTiles &t) {
  return t.tm * roundUp(shape.k, shape.k0) * shape.cubeBytes;
}

/// Estimated cycles of one core for `shape` with `tiles`, by the timing
/// model of docs/NPU.md; nullopt when the tiles do not fit.
std::optional<double> estimateGemm(const NpuConfig &c, const GemmShape &shape,
                                   const GemmTiles &t) {
  int64_t e = shape.cubeBytes;
  int64_t fractalBytes = t.tm * t.tk * e + t.tk * t.tn * e;
  int64_t l1Bytes = 2 * fractalBytes * t.chunk;
  if (t.residentA)
    l1Bytes = 2 * getResidentABytes(shape, t) + 2 * t.tk * t.tn * e * t.chunk;
  if (2 * t.tm * t.tk * e > c.l0aBytes || 2 * t.tk * t.tn * e > c.l0bBytes ||
      l1Bytes > c.l1Bytes || (t.doubleC ? 2 : 1) * t.tm * t.tn * 4 > c.l0cBytes)
    return std::nullopt;
  int64_t nTiles = ceilDiv(shape.n, t.tn);
  int64_t tiles = shape.batch * ceilDiv(shape.m, t.tm) * nTiles;
  int64_t perCore = ceilDiv(tiles, c.cores);
  int64_t steps = ceilDiv(shape.k, t.tk);
  double mmad = c.cubeStartCycles + (t.tm / 16) * (t.tk / shape.k0) *
                                        (t.tn / 16) * c.cubeCyclesPerFractal;
  double mte1 =
      2 * c.mte1LatencyCycles + double(fractalBytes) / c.mte1BytesPerCycle;
  double fix =
      c.fixLatencyCycles + double(t.tm * t.tn * 4) / c.fixBytesPerCycle;
  // A tile's K steps in L1 chunks (the last maybe shorter); MTE2 loads a
  // chunk (A and B, or B only with a resident A) while the cube works on
  // the one before (two L1 slots), so a chunk takes the longer of its
  // compute and the next chunk's load.
  double stepLoad = double((t.residentA ? 0 : t.tm * t.tk * shape.aBytes) +
                           t.tk * t.tn * shape.bBytes) /
                    c.mte2BytesPerCycle;
  auto load = [&](int64_t chunkSteps) {
    return (t.residentA ? 1 : 2) * c.mte2LatencyCycles + chunkSteps * stepLoad;
  };
  SmallVector<int64_t> chunks(steps / t.chunk, t.chunk);
  if (steps % t.chunk)
    chunks.push_back(steps % t.chunk);
  double cube = 0;
  for (size_t i = 0; i < chunks.size(); ++i)
    cube += std::max(chunks[i] * std::max(mmad, mte1),
                     load(chunks[(i + 1) % chunks.size()]));
  // A resident block of A loads once per run of the tiles of its rows.
  double aLoad = t.residentA ? c.mte2LatencyCycles + double(t.tm) * shape.k *
                                                         shape.aBytes /
                                                         c.mte2BytesPerCycle
                             : 0.0;
  cube += aLoad / std::min(nTiles, perCore);
  double tile = cube + (t.doubleC ? 0 : fix);
  // A fused epilogue holds the tile's accumulators until the vector unit
  // has taken them: the next tile overlaps it only in the other L0C slot.
  if (shape.epilogueCycles > 0) {
    double drain = fix + shape.epilogueCycles * t.tm * t.tn;
    tile = t.doubleC ? std::max(cube, drain) : cube + drain;
  }
  // The first chunk's load and the last tile's store overlap nothing.
  double prologue = aLoad + load(chunks.front()) + mte1;
  return perCore * tile + prologue + fix;
}

/// Picks the tile sizes the timing model says are fastest.
GemmTiles chooseGemmTiles(const NpuConfig &c, const GemmShape &shape) {
  static const int64_t candidates[][3] = {
      {256, 256, 64}, {256, 128, 64}, {128, 256, 64}, {128, 128, 128},
      {128, 128, 64}, {64, 128, 128}, {128, 64, 128}, {64, 64, 128},
      {64, 64, 64},   {32, 32, 64},   {16, 16, 64},   {16, 16, 16}};
  GemmTiles best;
  double bestCycles = 0;
  for (const auto &cand : candidates) {
    for (bool doubleC : {true, false}) {
      for (int64_t chunk : {1, 2, 3, 4, 6, 8}) {
        for (bool residentA : {false, true}) {
          GemmTiles t;
          t.tm = std::min(cand[0], roundUp(shape.m, kFractal));
          t.tn = std::min(cand[1], roundUp(shape.n, kFractal));
          t.tk = std::min(cand[2], roundUp(shape.k, kFractal));
          t.doubleC = doubleC;
          t.chunk = chunk;
          t.residentA = residentA;
          // Chunks beyond K would only waste L1.
          if (chunk > 1 && (chunk / 2) * t.tk >= shape.k)
            continue;
          std::optional<double> cycles = estimateGemm(c, shape, t);
          if (cycles && (!best.tm || *cycles < bestCycles)) {
            best = t;
            bestCycles = *cycles;
          }
        }
      }
    }
  }
  return best;
}

/// An elementwise op fused into a contraction: it runs on the vector unit on
/// chunks of the contraction's result tiles, which the fixpipe moves from
/// L0C to UB, and stores its own result; the contraction's result never
/// goes to GM.
class CubeEpilogue {
public:
  virtual ~CubeEpilogue() = default;
  /// Places the UB buffers for result chunks of `rows` x `cols`, with
  /// `slots` buffers for each operand loaded from GM; false, placing
  /// nothing, when they do not fit.
  virtual bool place(int64_t rows, int64_t cols, int64_t slots) = 0;
  /// About how many instructions one chunk takes (the program is unrolled).
  virtual int64_t getInstructionsPerChunk() = 0;
  /// Primes (`begin`) and drains (`end`) the flags of one core's chunks.
  virtual void begin() = 0;
  virtual void end() = 0;
  /// Emits chunk number `chunk` of the core, which is part of its result
  /// tile number `tile` (`first` and `last` of it): the fixpipe from `acc`
  /// (L0C) to UB, the op on the vector unit and the store; `offsets` index
  /// the chunk's first element in the contraction's result.
  virtual void emitChunk(Value acc, ArrayRef<int64_t> offsets, int64_t rows,
                         int64_t cols, int64_t chunk, int64_t tile, bool first,
                         bool last) = 0;
};

/// Lowers one contraction (a linalg op with one M, N and K dimension and at
/// most one batch dimension) to cube code.
class ContractionLowering {
public:
  /// `cubeType`: the type the cube multiplies (f16, bf16 or f32; bf16 for
  /// a bf16 operand when f16).
  /// `narrowOf`: the narrow weight each widened input buffer holds (see
  /// getNarrowSource), read instead of it.
  ContractionLowering(Emitter &e, linalg::LinalgOp op, bool init, Type cubeType,
                      const DenseMap<Value, Value> *narrowOf = nullptr)
      : e(e), op(op), init(init), cubeType(cubeType),
        fractalK(getFractalK(cubeType)), narrowOf(narrowOf) {}

  LogicalResult run() {
    if (failed(prepare()))
      return failure();
    emit();
    return success();
  }

  /// Checks the contraction and places its tiles for an epilogue of
  /// `epilogueCycles` per result element (see GemmShape; `fuse` then fuses
  /// it); `emit` then emits it.
  LogicalResult prepare(double epilogueCycles = 0) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.empty() || dims->n.empty() ||
        dims->k.size() != 1)
      return op->emitError("the npu target runs contractions with one K "
                           "dimension on the cube; this one has ")
             << (failed(dims) ? 0 : dims->k.size());
    ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return op->emitError("the npu target needs static shapes");
    // The innermost M and N dimensions of the result are the cube's; the
    // other M and N dimensions, like batch dimensions, index whole tiles.
    AffineMap cMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    auto innermost = [&](ArrayRef<unsigned> candidates) {
      unsigned best = candidates.front();
      for (unsigned d : candidates)
        if (*cMap.getResultPosition(getAffineDimExpr(d, op.getContext())) >
            *cMap.getResultPosition(getAffineDimExpr(best, op.getContext())))
          best = d;
      return best;
    };
    mDim = innermost(dims->m);
    nDim = innermost(dims->n);
    kDim = dims->k[0];
    for (unsigned d = 0; d < op.getNumLoops(); ++d)
      if (d != mDim && d != nDim && d != kDim)
        outerDims.push_back(d);
    shape.m = ranges[mDim];
    shape.n = ranges[nDim];
    shape.k = ranges[kDim];
    for (unsigned d : outerDims)
      shape.batch *= ranges[d];
    a = op.getDpsInputOperand(0);
    bOperand = op.getDpsInputOperand(1);
    c = op.getDpsInitOperand(0);
    aSource = sourceOf(a);
    bSource = sourceOf(bOperand);
    Type aType = getElementTypeOrSelf(aSource.getType());
    Type bType = getElementTypeOrSelf(bSource.getType());
    Type cType = getElementTypeOrSelf(c->get().getType());
    auto isFloat = [](Type t) { return t.isF32() || t.isF16(); };
    if (!(isFloat(aType) || aType.isBF16()) ||
        !(isFloat(bType) || bType.isBF16()) || !isFloat(cType))
      return op->emitError("the npu target multiplies f32, f16 or bf16 "
                           "matrices on the cube, found ")
             << aType << " x " << bType << " -> " << cType;
    // A bf16 operand is multiplied in bf16 rather than f16, whose range
    // (up to 65504) it exceeds; f32 keeps f32.
    if (cubeType.isF16() && (aType.isBF16() || bType.isBF16())) {
      cubeType = BFloat16Type::get(op.getContext());
      fractalK = getFractalK(cubeType);
    }
    shape.aBytes = elementBytes(aType);
    shape.bBytes = elementBytes(bType);
    shape.cubeBytes = elementBytes(cubeType);
    shape.k0 = fractalK;
    shape.epilogueCycles = epilogueCycles;
    tiles = chooseGemmTiles(e.config, shape);
    if (!tiles.tm)
      return op->emitError("no tile of this contraction fits the npu's "
                           "on-chip memories");
    if (failed(placeBuffers()))
      return op->emitError("the contraction's buffers do not fit the npu's "
                           "on-chip memories");
    return success();
  }

  void emit() { emitCores(); }

  /// Runs `fused` on the result tiles (after `prepare`): true when the
  /// result starts from zero, its two innermost dimensions are the cube's
  /// M and N, and chunks of 64, 32 or 16 rows fit UB (and the unrolled
  /// program's size limit).
  bool fuse(CubeEpilogue &fused) {
    AffineMap cMap = op.getMatchingIndexingMap(c);
    unsigned rank = cMap.getNumResults();
    if (!init || !cMap.isProjectedPermutation() || rank < 2 ||
        cMap.getDimPosition(rank - 1) != nDim ||
        cMap.getDimPosition(rank - 2) != mDim)
      return false;
    // Each operand the epilogue loads gets a slot per chunk of two tiles,
    // so that MTE2 never waits for the vector unit before it loads the
    // next tile's inputs.
    int64_t tileCount =
        shape.batch * ceilDiv(shape.m, tiles.tm) * ceilDiv(shape.n, tiles.tn);
    for (int64_t rows : {64, 32, 16}) {
      rows = std::min(rows, roundUp(tiles.tm, kFractal));
      // Like the vector path's, the unrolled code is bounded (an epilogue
      // too large declines, and fails as a step of its own).
      if (tileCount * ceilDiv(tiles.tm, rows) *
              fused.getInstructionsPerChunk() >
          kMaxVectorInstructions)
        continue;
      if (fused.place(rows, tiles.tn, 2 * ceilDiv(tiles.tm, rows))) {
        epilogue = &fused;
        epilogueRows = rows;
        return true;
      }
    }
    return false;
  }

private:
  /// One output tile: the index of every outer dimension and the M and N
  /// ranges.
  struct Tile {
    SmallVector<int64_t> outer;
    int64_t m0, rows, n0, cols;
  };

  LogicalResult placeBuffers() {
    int64_t aBytes = tiles.tm * tiles.tk * shape.cubeBytes,
            bBytes = tiles.tk * tiles.tn * shape.cubeBytes;
    FailureOr<int64_t> l1a = e.reserve(
        MemorySpace::L1, tiles.residentA ? 2 * getResidentABytes(shape, tiles)
                                         : 2 * aBytes * tiles.chunk);
    FailureOr<int64_t> l1b =
        e.reserve(MemorySpace::L1, 2 * bBytes * tiles.chunk);
    FailureOr<int64_t> l0a = e.reserve(MemorySpace::L0A, 2 * aBytes);
    FailureOr<int64_t> l0b = e.reserve(MemorySpace::L0B, 2 * bBytes);
    int64_t cBytes = tiles.tm * tiles.tn * 4;
    FailureOr<int64_t> l0c =
        e.reserve(MemorySpace::L0C, (tiles.doubleC ? 2 : 1) * cBytes);
    if (failed(l1a) || failed(l1b) || failed(l0a) || failed(l0b) || failed(l0c))
      return failure();
    l1aOffset = *l1a;
    l1bOffset = *l1b;
    l0aOffset = *l0a;
    l0bOffset = *l0b;
    l0cOffset = *l0c;
    return success();
  }

  void emitCores() {
    SmallVector<Tile> all;
    for (int64_t bi = 0; bi < shape.batch; ++bi) {
      SmallVector<int64_t> outer(outerDims.size());
      int64_t rest = bi;
      for (int i = outerDims.size() - 1; i >= 0; --i) {
        outer[i] = rest % ranges[outerDims[i]];
        rest /= ranges[outerDims[i]];
      }
      for (int64_t m0 = 0; m0 < shape.m; m0 += tiles.tm)
        for (int64_t n0 = 0; n0 < shape.n; n0 += tiles.tn)
          all.push_back({outer, m0, std::min(tiles.tm, shape.m - m0), n0,
                         std::min(tiles.tn, shape.n - n0)});
    }
    SmallVector<int64_t> starts = splitEvenly(all.size(), e.config.cores);
    int cSlots = tiles.doubleC ? 2 : 1;
    for (int core = 0; core < e.config.cores; ++core) {
      if (starts[core] == starts[core + 1])
        continue;
      e.onCore(core, [&] {
        e.setFlag(Pipe::MTE1, Pipe::MTE2, 2);
        e.setFlag(Pipe::M, Pipe::MTE1, 2);
        e.setFlag(Pipe::FIX, Pipe::M, cSlots);
        chunks = steps = epilogueChunks = epilogueTiles = runs = 0;
        if (tiles.residentA)
          e.setFlag(Pipe::MTE1, Pipe::MTE2, 2, kResidentAFlag);
        if (epilogue)
          epilogue->begin();
        for (int64_t t = starts[core]; t < starts[core + 1]; ++t) {
          // A run: the tiles of the same rows of A, one after another.
          auto sameRows = [&](int64_t other) {
            return all[other].outer == all[t].outer &&
                   all[other].m0 == all[t].m0;
          };
          bool first = t == starts[core] || !sameRows(t - 1);
          bool last = t + 1 == starts[core + 1] || !sameRows(t + 1);
          emitTile(all[t], (t - starts[core]) % cSlots, first, last);
        }
        if (epilogue)
          epilogue->end();
        if (tiles.residentA)
          e.waitFlag(Pipe::MTE1, Pipe::MTE2, 2, kResidentAFlag);
        e.waitFlag(Pipe::MTE1, Pipe::MTE2, 2);
        e.waitFlag(Pipe::M, Pipe::MTE1, 2);
        e.waitFlag(Pipe::FIX, Pipe::M, cSlots);
      });
    }
  }

  /// Emits one output tile in L0C slot `cSlot`; `firstOfRun` and
  /// `lastOfRun` say where it is in its run of tiles of the same rows.
  void emitTile(const Tile &tile, int64_t cSlot, bool firstOfRun,
                bool lastOfRun) {
    OpBuilder &b = e.b;
    int64_t mf = ceilDiv(tile.rows, kFractal),
            nf = ceilDiv(tile.cols, kFractal);
    if (tiles.residentA) {
      // The run's rows of A, all of K, into the next of two L1 blocks.
      int64_t blockBytes = getResidentABytes(shape, tiles);
      int64_t kf = ceilDiv(shape.k, fractalK);
      if (firstOfRun) {
        residentA =
            e.bufferAt(MemorySpace::L1, l1aOffset + (runs % 2) * blockBytes,
                       {mf, kf, kFractal, fractalK}, cubeType);
        e.waitFlag(Pipe::MTE1, Pipe::MTE2, 1, kResidentAFlag);
        SmallVector<OpFoldResult> offsets =
            loopOffsets(tile, b.getIndexAttr(0));
        loadFractals(e.tileView(aSource, op.getMatchingIndexingMap(a), offsets,
                                {mDim, kDim}, {tile.rows, shape.k}),
                     residentA, /*zeroPadding=*/shape.k % fractalK != 0);
        e.setFlag(Pipe::MTE2, Pipe::MTE1, 1, kResidentAFlag);
        e.waitFlag(Pipe::MTE2, Pipe::MTE1, 1, kResidentAFlag);
      }
    }
    e.waitFlag(Pipe::FIX, Pipe::M);
    Value acc = e.bufferAt(MemorySpace::L0C,
                           l0cOffset + cSlot * tiles.tm * tiles.tn * 4,
                           {mf, nf, kFractal, kFractal}, b.getF32Type());
    int64_t chunkK = tiles.tk * tiles.chunk;
    int64_t fullChunks = shape.k / chunkK, tail = shape.k % chunkK;
    // The first chunk initializes the accumulators; the other full chunks
    // are a loop; a partial last chunk follows it.
    emitChunk(tile, acc, b.getIndexAttr(0), fullChunks ? chunkK : tail, Value(),
              /*initAcc=*/true);
    int64_t chunkFractals = chunkK / fractalK;
    if (fullChunks > 1) {
      auto loop = scf::ForOp::create(b, e.loc, e.index(0),
                                     e.index(fullChunks - 1), e.index(1));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(loop.getBody());
      Value iv = loop.getInductionVar();
      Value next = arith::AddIOp::create(b, e.loc, iv, e.index(1));
      Value k0 = arith::MulIOp::create(b, e.loc, next, e.index(chunkK));
      Value kf0 = arith::MulIOp::create(b, e.loc, next, e.index(chunkFractals));
      int64_t chunksBefore = chunks, stepsBefore = steps;
      emitChunk(tile, acc, k0, chunkK, iv, /*initAcc=*/false, kf0);
      chunks = chunksBefore + fullChunks - 1;
      steps = stepsBefore + (fullChunks - 1) * tiles.chunk;
    }
    if (fullChunks && tail)
      emitChunk(tile, acc, b.getIndexAttr(fullChunks * chunkK), tail, Value(),
                /*initAcc=*/false, b.getIndexAttr(fullChunks * chunkFractals));
    if (tiles.residentA && lastOfRun) {
      // MTE1 has moved the last of the block's fractals.
      e.setFlag(Pipe::MTE1, Pipe::MTE2, 1, kResidentAFlag);
      ++runs;
    }
    e.setFlag(Pipe::M, Pipe::FIX);
    e.waitFlag(Pipe::M, Pipe::FIX);
    if (epilogue) {
      emitEpilogue(tile, cSlot);
    } else {
      SmallVector<OpFoldResult> offsets = loopOffsets(tile, b.getIndexAttr(0));
      Value target = e.tileView(c->get(), op.getMatchingIndexingMap(c), offsets,
                                {mDim, nDim}, {tile.rows, tile.cols});
      FixpipeOp::create(b, e.loc, acc, target, /*relu=*/false,
                        /*acc=*/!init);
    }
    e.setFlag(Pipe::FIX, Pipe::M);
  }

  /// The fused epilogue on `tile` (in L0C slot `cSlot`), chunk by chunk of
  /// rows: each chunk's fractal rows are contiguous in L0C.
  void emitEpilogue(const Tile &tile, int64_t cSlot) {
    int64_t nf = ceilDiv(tile.cols, kFractal);
    AffineMap cMap = op.getMatchingIndexingMap(c);
    for (int64_t r0 = 0; r0 < tile.rows; r0 += epilogueRows) {
      int64_t rows = std::min(epilogueRows, tile.rows - r0);
      Value acc = e.bufferAt(
          MemorySpace::L0C,
          l0cOffset + cSlot * tiles.tm * tiles.tn * 4 + r0 * nf * kFractal * 4,
          {ceilDiv(rows, kFractal), nf, kFractal, kFractal}, e.b.getF32Type());
      SmallVector<int64_t> offsets;
      for (unsigned i = 0; i < cMap.getNumResults(); ++i) {
        unsigned d = cMap.getDimPosition(i);
        offsets.push_back(
            d == mDim ? tile.m0 + r0
            : d == nDim
                ? tile.n0
                : tile.outer[llvm::find(outerDims, d) - outerDims.begin()]);
      }
      epilogue->emitChunk(acc, offsets, rows, tile.cols, epilogueChunks++,
                          epilogueTiles, r0 == 0, r0 + rows == tile.rows);
    }
    ++epilogueTiles;
  }

  /// The slot (0 or 1) of a double buffer's use number `count`, inside the
  /// loop of counter `iv` (null outside one) whose iterations each make
  /// `perIteration` uses: `count` is the number in the first iteration.
  OpFoldResult slotOf(int64_t count, Value iv, int64_t perIteration) {
    if (!iv || perIteration % 2 == 0)
      return e.b.getIndexAttr(count % 2);
    Value parity = arith::RemUIOp::create(e.b, e.loc, iv, e.index(2));
    if (count % 2 == 0)
      return parity;
    return Value(arith::SubIOp::create(e.b, e.loc, e.index(1), parity));
  }

  /// Loop-dimension offsets of `tile` at K offset `k0`.
  SmallVector<OpFoldResult> loopOffsets(const Tile &tile, OpFoldResult k0) {
    SmallVector<OpFoldResult> offsets(op.getNumLoops(), e.b.getIndexAttr(0));
    offsets[mDim] = e.b.getIndexAttr(tile.m0);
    offsets[nDim] = e.b.getIndexAttr(tile.n0);
    offsets[kDim] = k0;
    for (auto [dim, index] : llvm::zip(outerDims, tile.outer))
      offsets[dim] = e.b.getIndexAttr(index);
    return offsets;
  }

  /// One L1 chunk of `kSize` along K at `k0` (`kf0` in fractal columns):
  /// A and B to L1 (MTE2; B only when A is resident), then per K step a
  /// slice of each to L0 (MTE1) and one mmad. `iv` is the chunk loop's
  /// counter when emitted inside it (slots then alternate per iteration);
  /// with `initAcc` the first mmad initializes the accumulators.
  void emitChunk(const Tile &tile, Value acc, OpFoldResult k0, int64_t kSize,
                 Value iv, bool initAcc, OpFoldResult kf0 = {}) {
    if (!kf0)
      kf0 = e.b.getIndexAttr(0);
    OpBuilder &b = e.b;
    int64_t mf = ceilDiv(tile.rows, kFractal),
            nf = ceilDiv(tile.cols, kFractal), kf = ceilDiv(kSize, fractalK);
    int64_t aBytes = tiles.tm * tiles.tk * shape.cubeBytes,
            bBytes = tiles.tk * tiles.tn * shape.cubeBytes;
    SmallVector<OpFoldResult> offsets = loopOffsets(tile, k0);

    e.waitFlag(Pipe::MTE1, Pipe::MTE2);
    OpFoldResult l1Slot = slotOf(chunks, iv, 1);
    Value l1a;
    if (!tiles.residentA) {
      l1a = e.slotView(MemorySpace::L1, l1aOffset, {mf, kf, kFractal, fractalK},
                       cubeType, aBytes * tiles.chunk, l1Slot);
      loadFractals(e.tileView(aSource, op.getMatchingIndexingMap(a), offsets,
                              {mDim, kDim}, {tile.rows, kSize}),
                   l1a, /*zeroPadding=*/kSize % fractalK != 0);
    }
    Value l1b =
        e.slotView(MemorySpace::L1, l1bOffset, {kf, nf, fractalK, kFractal},
                   cubeType, bBytes * tiles.chunk, l1Slot);
    loadFractals(e.tileView(bSource, op.getMatchingIndexingMap(bOperand),
                            offsets, {kDim, nDim}, {kSize, tile.cols}),
                 l1b, /*zeroPadding=*/kSize % fractalK != 0);
    e.setFlag(Pipe::MTE2, Pipe::MTE1);
    e.waitFlag(Pipe::MTE2, Pipe::MTE1);
    ++chunks;

    int64_t stepFractals = tiles.tk / fractalK;
    int64_t count = ceilDiv(kf, stepFractals);
    for (int64_t s = 0; s < count; ++s) {
      int64_t k0f = s * stepFractals, kfs = std::min(stepFractals, kf - k0f);
      Value srcA;
      if (tiles.residentA) {
        OpFoldResult at = b.getIndexAttr(k0f);
        if (auto constant = getConstantIntValue(kf0))
          at = b.getIndexAttr(*constant + k0f);
        else if (k0f)
          at = Value(
              arith::AddIOp::create(b, e.loc, cast<Value>(kf0), e.index(k0f)));
        else
          at = kf0;
        srcA = e.fractalSlice(residentA, b.getIndexAttr(0), at, {mf, kfs});
      } else {
        srcA = e.fractalSlice(l1a, {0, k0f}, {mf, kfs});
      }
      Value srcB = e.fractalSlice(l1b, {k0f, 0}, {kfs, nf});
      e.waitFlag(Pipe::M, Pipe::MTE1);
      OpFoldResult l0Slot = slotOf(steps, iv, tiles.chunk);
      Value l0a =
          e.slotView(MemorySpace::L0A, l0aOffset, {mf, kfs, kFractal, fractalK},
                     cubeType, aBytes, l0Slot);
      Value l0b =
          e.slotView(MemorySpace::L0B, l0bOffset, {kfs, nf, fractalK, kFractal},
                     cubeType, bBytes, l0Slot);
      DmaOp::create(b, e.loc, srcA, l0a);
      DmaOp::create(b, e.loc, srcB, l0b);
      if (s + 1 == count)
        e.setFlag(Pipe::MTE1, Pipe::MTE2);
      e.setFlag(Pipe::MTE1, Pipe::M);
      e.waitFlag(Pipe::MTE1, Pipe::M);
      MmadOp::create(b, e.loc, l0a, l0b, acc, initAcc && s == 0);
      e.setFlag(Pipe::M, Pipe::MTE1);
      ++steps;
    }
  }

  /// Copies the row-major GM tile `source` (R x C) into the fractal buffer
  /// `target` (ceil(R/fr) x ceil(C/fc) x fr x fc): one copy per block of
  /// whole fractals and per partial edge. With `zeroPadding`, the buffer is
  /// zeroed first (padding along K must contribute nothing).
  void loadFractals(Value source, Value target, bool zeroPadding) {
    OpBuilder &b = e.b;
    auto type = cast<MemRefType>(source.getType());
    auto targetType = cast<MemRefType>(target.getType());
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    int64_t fr = targetType.getDimSize(2), fc = targetType.getDimSize(3);
    if (zeroPadding)
      FillOp::create(b, e.loc, target, b.getF64FloatAttr(0.0));
    auto parts = [](int64_t size, int64_t f) {
      SmallVector<std::pair<int64_t, int64_t>> result;
      if (size >= f)
        result.push_back({0, size / f * f});
      if (size % f)
        result.push_back({size / f * f, size % f});
      return result;
    };
    for (auto [r0, nr] : parts(rows, fr)) {
      for (auto [c0, nc] : parts(cols, fc)) {
        Value piece = e.subview(
            source, {b.getIndexAttr(r0), b.getIndexAttr(c0)}, {nr, nc});
        int64_t pr = nr % fr ? nr : fr, pc = nc % fc ? nc : fc;
        int64_t ar = nr / pr, ac = nc / pc;
        Value expanded = memref::ExpandShapeOp::create(
            b, e.loc, SmallVector<int64_t>{ar, pr, ac, pc}, piece,
            {{0, 1}, {2, 3}});
        AffineMap perm = AffineMap::getPermutationMap(
            ArrayRef<unsigned>{0, 2, 1, 3}, b.getContext());
        Value fractals = memref::TransposeOp::create(b, e.loc, expanded,
                                                     AffineMapAttr::get(perm));
        Value dst =
            e.fractalSlice(target, {r0 / fr, c0 / fc}, {ar, ac}, {pr, pc});
        DmaOp::create(b, e.loc, fractals, dst);
      }
    }
  }

  /// The buffer MTE2 reads for `operand`.
  Value sourceOf(OpOperand *operand) const {
    if (narrowOf)
      if (Value narrow = narrowOf->lookup(operand->get()))
        return narrow;
    return operand->get();
  }

  Emitter &e;
  linalg::LinalgOp op;
  bool init;
  Type cubeType;
  /// The K extent of the cube's fractals of cubeType.
  int64_t fractalK;
  const DenseMap<Value, Value> *narrowOf;
  /// The buffers MTE2 reads for A and B.
  Value aSource, bSource;
  unsigned mDim = 0, nDim = 0, kDim = 0;
  /// Batch dimensions and M and N dimensions other than the innermost.
  SmallVector<unsigned> outerDims;
  SmallVector<int64_t> ranges;
  GemmShape shape;
  GemmTiles tiles;
  OpOperand *a = nullptr, *bOperand = nullptr, *c = nullptr;
  int64_t l1aOffset = 0, l1bOffset = 0, l0aOffset = 0, l0bOffset = 0,
          l0cOffset = 0;
  /// L1 chunks and K steps emitted so far on the current core (the slots
  /// of their buffers alternate).
  int64_t chunks = 0, steps = 0;
  /// The fused epilogue, if any, its chunks' rows, and the chunks and
  /// tiles emitted so far on the current core.
  CubeEpilogue *epilogue = nullptr;
  int64_t epilogueRows = 0, epilogueChunks = 0, epilogueTiles = 0;
  /// With a resident A: the current run's block in L1, and the runs whose
  /// blocks the current core has finished (blocks alternate per run).
  Value residentA;
  int64_t runs = 0;
  /// The flag id of the resident blocks' flags (id 0 is the chunks').
  static constexpr int kResidentAFlag = 1;
};

//===----------------------------------------------------------------------===//
// Elementwise ops and row reductions on the vector unit
//===----------------------------------------------------------------------===//

/// A value of a body during code generation: a UB tile or a constant.
struct BodyValue {
  Value tile;
  double constant = 0;
};

/// The vector-unit function of a body op, if it has one.
std::optional<BinaryFn> getBinaryFn(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return BinaryFn::Add;
  if (isa<arith::SubFOp, arith::SubIOp>(op))
    return BinaryFn::Sub;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return BinaryFn::Mul;
  if (isa<arith::DivFOp>(op))
    return BinaryFn::Div;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    return BinaryFn::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    return BinaryFn::Min;
  if (isa<math::PowFOp>(op))
    return BinaryFn::Pow;
  // Logic on masks of ones and zeros (i1 only: on wider integers these
  // are bitwise).
  if (op->getNumResults() == 1 && op->getResult(0).getType().isInteger(1)) {
    if (isa<arith::AndIOp>(op))
      return BinaryFn::Min;
    if (isa<arith::OrIOp>(op))
      return BinaryFn::Max;
    if (isa<arith::XOrIOp>(op))
      return BinaryFn::Ne;
  }
  // Comparisons as C writes them: ordered (false for a NaN) but for not
  // equal (true for a NaN).
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OLT:
      return BinaryFn::Lt;
    case arith::CmpFPredicate::OLE:
      return BinaryFn::Le;
    case arith::CmpFPredicate::OGT:
      return BinaryFn::Gt;
    case arith::CmpFPredicate::OGE:
      return BinaryFn::Ge;
    case arith::CmpFPredicate::OEQ:
      return BinaryFn::Eq;
    case arith::CmpFPredicate::UNE:
      return BinaryFn::Ne;
    default:
      return std::nullopt;
    }
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::slt:
      return BinaryFn::Lt;
    case arith::CmpIPredicate::sle:
      return BinaryFn::Le;
    case arith::CmpIPredicate::sgt:
      return BinaryFn::Gt;
    case arith::CmpIPredicate::sge:
      return BinaryFn::Ge;
    case arith::CmpIPredicate::eq:
      return BinaryFn::Eq;
    case arith::CmpIPredicate::ne:
      return BinaryFn::Ne;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

/// A comparison's function with its operands swapped (`k < x` is `x > k`).
BinaryFn swapComparison(BinaryFn fn) {
  switch (fn) {
  case BinaryFn::Lt:
    return BinaryFn::Gt;
  case BinaryFn::Le:
    return BinaryFn::Ge;
  case BinaryFn::Gt:
    return BinaryFn::Lt;
  case BinaryFn::Ge:
    return BinaryFn::Le;
  default:
    return fn;
  }
}

/// Whether `fn` is a comparison (its result a mask of ones and zeros in
/// its operands' type, for vselect).
bool isComparison(BinaryFn fn) {
  return fn == BinaryFn::Lt || fn == BinaryFn::Le || fn == BinaryFn::Gt ||
         fn == BinaryFn::Ge || fn == BinaryFn::Eq || fn == BinaryFn::Ne;
}

std::optional<UnaryFn> getUnaryFn(Operation *op) {
  if (isa<math::ExpOp>(op))
    return UnaryFn::Exp;
  if (isa<math::LogOp>(op))
    return UnaryFn::Log;
  if (isa<math::SqrtOp>(op))
    return UnaryFn::Sqrt;
  if (isa<math::RsqrtOp>(op))
    return UnaryFn::Rsqrt;
  if (isa<math::AbsFOp>(op))
    return UnaryFn::Abs;
  if (isa<arith::NegFOp>(op))
    return UnaryFn::Neg;
  if (isa<math::TanhOp>(op))
    return UnaryFn::Tanh;
  if (isa<math::ErfOp>(op))
    return UnaryFn::Erf;
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::SIToFPOp, arith::FPToSIOp>(op))
    return UnaryFn::Cast;
  // A mask's ones and zeros as numbers (a signed read of i1 would be -1).
  if (isa<arith::UIToFPOp, arith::ExtUIOp>(op) &&
      op->getOperand(0).getType().isInteger(1))
    return UnaryFn::Cast;
  return std::nullopt;
}

/// The reduction a combiner op computes.
std::optional<ReduceFn> getReduceFn(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return ReduceFn::Sum;
  if (isa<arith::MaximumFOp, arith::MaxNumFOp, arith::MaxSIOp>(op))
    return ReduceFn::Max;
  if (isa<arith::MinimumFOp, arith::MinNumFOp, arith::MinSIOp>(op))
    return ReduceFn::Min;
  return std::nullopt;
}

/// The identity of `fn` on elements of `type`.
double getIdentity(ReduceFn fn, Type type) {
  bool isInt = type.isInteger();
  unsigned bits = isInt ? type.getIntOrFloatBitWidth() : 0;
  switch (fn) {
  case ReduceFn::Sum:
    return 0.0;
  case ReduceFn::Max:
    return isInt ? double(APInt::getSignedMinValue(bits).getSExtValue())
                 : -INFINITY;
  case ReduceFn::Min:
    return isInt ? double(APInt::getSignedMaxValue(bits).getSExtValue())
                 : INFINITY;
  }
  return 0.0;
}

/// The binary function that combines two partial results of `fn`.
BinaryFn getCombineFn(ReduceFn fn) {
  switch (fn) {
  case ReduceFn::Sum:
    return BinaryFn::Add;
  case ReduceFn::Max:
    return BinaryFn::Max;
  case ReduceFn::Min:
    return BinaryFn::Min;
  }
  return BinaryFn::Add;
}

/// Lowers an elementwise linalg op (all loops parallel) or a reduction of
/// its innermost loop to vector-unit code over 2-d tiles: the two innermost
/// loops are the tile's rows and columns, the outer ones are unrolled.
class VectorLowering : public CubeEpilogue {
public:
  VectorLowering(Emitter &e, linalg::GenericOp op, bool outputIsIdentity)
      : e(e), op(op), outputIsIdentity(outputIsIdentity) {}

  /// Checks the op as the epilogue of a contraction whose result is
  /// `result` (see isEpilogue); `ContractionLowering::fuse` then places it.
  LogicalResult analyzeEpilogue(Value result) {
    cube = result;
    return analyze();
  }

  /// Estimated vector-unit cycles per element of the body (see
  /// docs/NPU.md's timing: slow functions take vecSlowFactor times longer).
  double cyclesPerElement() {
    double units = 0;
    for (Operation &bodyOp : op.getBlock()->without_terminator()) {
      if (isa<arith::ConstantOp>(bodyOp))
        continue;
      std::optional<UnaryFn> unary = getUnaryFn(&bodyOp);
      std::optional<BinaryFn> binary = getBinaryFn(&bodyOp);
      bool slow = (unary && *unary != UnaryFn::Abs && *unary != UnaryFn::Neg &&
                   *unary != UnaryFn::Cast) ||
                  binary == BinaryFn::Div || binary == BinaryFn::Pow;
      units += slow ? e.config.vecSlowFactor : 1;
    }
    return std::max(units, 1.0) * 4 / e.config.vecBytesPerCycle;
  }

  bool place(int64_t rowsPerChunk, int64_t colsPerChunk,
             int64_t slots) override {
    int64_t bytes = roundUp(rowsPerChunk * roundUp(colsPerChunk, 8) * 4, 64);
    Tile chunk;
    chunk.rows = rowsPerChunk;
    chunk.cols = colsPerChunk;
    // Operands read from GM (not the result), each in `slots` buffers of
    // its part of a chunk (a row of biases is one row).
    SmallVector<std::pair<OpOperand *, int64_t>> loads;
    auto load = [&](OpOperand *operand) {
      SmallVector<int64_t> shape = tileShape(operand, chunk);
      loads.push_back(
          {operand, roundUp(shape[0] * roundUp(shape[1], 8) * 4, 64)});
    };
    for (OpOperand *input : op.getDpsInputOperands())
      if (isLoaded(input) && input->get() != cube)
        load(input);
    OpOperand *init = op.getDpsInitOperand(0);
    if (readsOutput && init->get() != cube)
      load(init);
    // Operands the same for every row (biases) are loaded once per tile,
    // in two buffers.
    loadsPerTile = llvm::all_of(
        loads, [&](auto load) { return tileShape(load.first, chunk)[0] == 1; });
    if (loadsPerTile)
      slots = 2;
    // Two result buffers (the fixpipe's), two output buffers and the
    // body's temporaries, each aligned.
    int64_t need = (temps + 6) * bytes + 4 * e.config.alignBytes;
    for (auto [operand, slotSize] : loads)
      need += slots * slotSize + e.config.alignBytes;
    if (need > e.available(MemorySpace::UB))
      return false;
    tileRows = rowsPerChunk;
    tileCols = colsPerChunk;
    tileBytes = bytes;
    operandSlots = slots;
    for (auto [operand, slotSize] : loads) {
      inputOffsets[operand] = *e.reserve(MemorySpace::UB, slots * slotSize);
      slotBytes[operand] = slotSize;
    }
    cubeOffset = *e.reserve(MemorySpace::UB, 2 * bytes);
    outOffset = *e.reserve(MemorySpace::UB, 2 * bytes);
    outSlotBytes = bytes;
    tempOffset = *e.reserve(MemorySpace::UB, (temps + 2) * bytes);
    return true;
  }

  int64_t getInstructionsPerChunk() override {
    return int64_t(inputOffsets.size()) + temps + 16;
  }

  void begin() override {
    if (!inputOffsets.empty())
      e.setFlag(Pipe::V, Pipe::MTE2, operandSlots);
    e.setFlag(Pipe::V, Pipe::FIX, 2);
    e.setFlag(Pipe::MTE3, Pipe::V, 2);
  }

  void end() override {
    if (!inputOffsets.empty())
      e.waitFlag(Pipe::V, Pipe::MTE2, operandSlots);
    e.waitFlag(Pipe::V, Pipe::FIX, 2);
    e.waitFlag(Pipe::MTE3, Pipe::V, 2);
  }

  void emitChunk(Value acc, ArrayRef<int64_t> offsets, int64_t rows,
                 int64_t cols, int64_t chunk, int64_t tileIndex, bool first,
                 bool last) override {
    OpBuilder &b = e.b;
    Tile tile;
    tile.offsets.assign(offsets.begin(), offsets.end());
    tile.rows = rows;
    tile.cols = cols;
    int64_t slot = (loadsPerTile ? tileIndex : chunk) % operandSlots,
            pair = chunk % 2;
    SmallVector<int64_t> full{rows, cols};
    // The fixpipe moves the chunk to UB; the vector unit reads it.
    Value result = e.bufferAt(MemorySpace::UB, cubeOffset + pair * tileBytes,
                              full, getElementTypeOrSelf(cube.getType()));
    e.waitFlag(Pipe::V, Pipe::FIX);
    FixpipeOp::create(b, e.loc, acc, result, /*relu=*/false, /*acc=*/false);
    e.setFlag(Pipe::FIX, Pipe::V);
    DenseMap<Value, BodyValue> values;
    for (auto [input, constant] : scalars)
      values[op.getMatchingBlockArgument(input)] = {Value(), constant};
    for (auto [operand, offset] : inputOffsets)
      values[op.getMatchingBlockArgument(operand)] = {
          ubTile(operand, tile, offset, slot)};
    if (!inputOffsets.empty() && (first || !loadsPerTile)) {
      e.waitFlag(Pipe::V, Pipe::MTE2);
      for (auto [operand, offset] : inputOffsets)
        DmaOp::create(b, e.loc, gmTile(operand, tile),
                      values[op.getMatchingBlockArgument(operand)].tile);
      e.setFlag(Pipe::MTE2, Pipe::V);
      e.waitFlag(Pipe::MTE2, Pipe::V);
    }
    for (OpOperand &operand : op->getOpOperands())
      if (operand.get() == cube)
        values[op.getMatchingBlockArgument(&operand)] = {result};
    e.waitFlag(Pipe::FIX, Pipe::V);
    e.waitFlag(Pipe::MTE3, Pipe::V);
    Type outType =
        getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
    Value outTile = e.bufferAt(MemorySpace::UB, outOffset + pair * outSlotBytes,
                               full, outType);
    int64_t tempIndex = 0;
    castMasks(values, tempIndex);
    emitBody(values, full, outTile, tempIndex);
    emitYield(values, outTile);
    if (!inputOffsets.empty() && (last || !loadsPerTile))
      e.setFlag(Pipe::V, Pipe::MTE2);
    e.setFlag(Pipe::V, Pipe::FIX);
    e.setFlag(Pipe::V, Pipe::MTE3);
    e.waitFlag(Pipe::V, Pipe::MTE3);
    DmaOp::create(b, e.loc, outTile, outputView(tile));
    e.setFlag(Pipe::MTE3, Pipe::V);
  }

  LogicalResult run() {
    if (failed(analyze()))
      return failure();
    if (failed(placeBuffers()))
      return op->emitError("the tiles of this op do not fit the npu's "
                           "unified buffer");
    // Every tile is straight-line code: bound the program's size.
    SmallVector<Tile> tiles = makeTiles();
    int64_t perTile = int64_t(inputOffsets.size()) + temps + 12;
    if (int64_t(tiles.size()) * perTile > kMaxVectorInstructions)
      return op->emitError("the npu program of this op would take about ")
             << tiles.size() * perTile << " instructions (the vector path "
             << "unrolls its tiles; at most " << kMaxVectorInstructions
             << "): ops this large need loops the npu lowering does not "
                "generate yet";
    emitCores(tiles);
    return success();
  }

  /// Checks the op as a stage of a fused run of rows (RowFusion), without
  /// placing buffers.
  LogicalResult analyzeStage() { return analyze(); }

  /// The UB temporaries the body takes (each of a tile's shape, f32).
  int64_t getTemps() const { return temps + 2; }

  /// Emits the op's body on UB tiles as one stage of a fused run of rows
  /// (RowFusion): `tiles` holds the tile of each buffer operand the body
  /// reads (a row vector as [rows, 1], a column vector as [1, cols]),
  /// `full` is the tile's shape and `outTile` the output's tile (for a
  /// reduction of the columns: its row vector, combined with what it
  /// holds); temporaries lie at `tempBase`, `tempBytes` apart.
  void computeRows(const DenseMap<OpOperand *, Value> &tiles,
                   ArrayRef<int64_t> full, Value outTile, int64_t tempBase,
                   int64_t tempBytes) {
    tempOffset = tempBase;
    tileBytes = tempBytes;
    DenseMap<Value, BodyValue> values;
    for (auto [input, constant] : scalars)
      values[op.getMatchingBlockArgument(input)] = {Value(), constant};
    for (auto [operand, tile] : tiles)
      values[op.getMatchingBlockArgument(operand)] = {tile};
    int64_t tempIndex = 0;
    emitBody(values, full, outTile, tempIndex);
    if (!reduction) {
      emitYield(values, outTile);
      return;
    }
    Value source = reducedTile(values, full, tempIndex,
                               getElementTypeOrSelf(outTile.getType()));
    VReduceOp::create(e.b, e.loc, reduceFn, source, outTile, /*acc=*/true);
  }

private:
  /// One tile: the offsets of every loop and the rows and columns.
  struct Tile {
    SmallVector<int64_t> offsets;
    int64_t rows, cols;
    /// For reductions: the first and last column chunk of a row tile.
    bool firstChunk = true, lastChunk = true;
  };

  LogicalResult analyze() {
    ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return op.emitError("the npu target needs static shapes");
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (unsigned i = 0; i < op.getNumLoops(); ++i)
      if (iterators[i] == utils::IteratorType::reduction)
        reduced.push_back(i);
    reduction = !reduced.empty();
    // A reduction into an output that does not hold its identity (a
    // convolution's bias) starts from what the output holds.
    loadsInit = reduction && !outputIsIdentity;
    if (failed(analyzeOperands()) || failed(chooseTileDims()))
      return failure();
    rows = rowDim ? ranges[*rowDim] : 1;
    cols = colDim ? ranges[*colDim] : 1;
    reduceCols = colDim && isReduced(*colDim);
    reduceRows = rowDim && isReduced(*rowDim);
    return analyzeBody();
  }

  /// Checks the operands: one output buffer, constant scalars, indices the
  /// program can address, element types the vector unit computes.
  LogicalResult analyzeOperands() {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
      return op.emitError("the npu target expects one output buffer");
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (isa<MemRefType>(input->get().getType()))
        continue;
      std::optional<double> constant = getConstant(input->get());
      if (!constant)
        return op.emitError("the npu target expects scalar operands that are "
                            "constants");
      scalars[input] = *constant;
    }
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isIndexedByLoops(op.getMatchingIndexingMap(&operand)))
        return op.emitError("the npu target expects operands indexed by "
                            "loop dimensions (a projected permutation)");
      // i1 buffers hold one byte per element; their tiles are masks.
      Type type = getElementTypeOrSelf(operand.get().getType());
      if (!isVectorType(type) && !type.isInteger(1))
        return op.emitError(
                   "the npu vector unit computes f32, f16, bf16 and i32, "
                   "found ")
               << type;
    }
    return success();
  }

  /// Picks the tile's row and column dimensions: the two innermost loops,
  /// or for windows (convolutions, pooling) the output's two innermost
  /// dimensions, the window and other reduced dimensions then enumerated,
  /// each contribution accumulated into the output tile.
  LogicalResult chooseTileDims() {
    unsigned n = op.getNumLoops();
    colDim = n >= 1 ? std::optional<unsigned>(n - 1) : std::nullopt;
    rowDim = n >= 2 ? std::optional<unsigned>(n - 2) : std::nullopt;
    if (!llvm::any_of(op.getIndexingMapsArray(), hasWindows))
      return success();
    AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    auto dimAt = [&](int64_t fromEnd) -> std::optional<unsigned> {
      int64_t at = int64_t(out.getNumResults()) - fromEnd;
      if (at < 0)
        return std::nullopt;
      auto dim = dyn_cast<AffineDimExpr>(out.getResult(at));
      return dim ? std::optional<unsigned>(dim.getPosition()) : std::nullopt;
    };
    colDim = dimAt(1);
    rowDim = dimAt(2);
    if (!colDim)
      return op.emitError("the npu target expects a windowed op's output "
                          "indexed by loop dimensions");
    for (AffineMap map : op.getIndexingMapsArray())
      for (AffineExpr result : map.getResults()) {
        LinearIndex index = *decomposeIndex(result);
        if (index.coefficient(*colDim) && rowDim && index.coefficient(*rowDim))
          return op.emitError("the npu target cannot tile an index that "
                              "combines the tile's rows and columns");
      }
    return success();
  }

  /// Checks the body: each op has a vector instruction, values from outside
  /// are constants, and a reduction combines the output with one value.
  LogicalResult analyzeBody() {
    Block &body = *op.getBlock();
    // An i1 buffer's tile is loaded as bytes and cast to an f32 mask.
    Type f32 = Float32Type::get(op.getContext());
    for (OpOperand &operand : op->getOpOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(&operand);
      if (arg.getType().isInteger(1) && !arg.use_empty()) {
        stored[arg] = f32;
        ++temps;
      }
    }
    for (Operation &bodyOp : body.without_terminator()) {
      if (isa<arith::ConstantOp>(bodyOp))
        continue;
      if (!getBinaryFn(&bodyOp) && !getUnaryFn(&bodyOp) &&
          !isa<arith::SelectOp>(bodyOp)) {
        return bodyOp.emitError("the npu vector unit has no instruction for "
                                "'")
               << bodyOp.getName() << "'";
      }
      for (Value operand : bodyOp.getOperands())
        if (operand.getParentBlock() != &body && !getConstant(operand))
          return bodyOp.emitError("the npu target expects values from "
                                  "outside an op's body to be constants");
      // i1 values are masks of ones and zeros, not i1's -1 of a signed
      // read: they are a select's condition, the operands of logic, of
      // equality and of unsigned casts.
      std::optional<BinaryFn> fn = getBinaryFn(&bodyOp);
      Value result = bodyOp.getResult(0);
      if (result.getType().isInteger(1) &&
          !isa<arith::CmpFOp, arith::CmpIOp, arith::AndIOp, arith::OrIOp,
               arith::XOrIOp>(bodyOp))
        return bodyOp.emitError("the npu target computes i1 values as masks: "
                                "expected a comparison or logic to produce "
                                "one, found '")
               << bodyOp.getName() << "'";
      bool takesMasks =
          isa<arith::SelectOp, arith::UIToFPOp, arith::ExtUIOp, arith::AndIOp,
              arith::OrIOp, arith::XOrIOp>(bodyOp) ||
          fn == BinaryFn::Eq || fn == BinaryFn::Ne;
      for (auto [i, operand] : llvm::enumerate(bodyOp.getOperands()))
        if (operand.getType().isInteger(1) &&
            (!takesMasks || (isa<arith::SelectOp>(bodyOp) && i != 0)))
          return bodyOp.emitError("the npu target computes i1 values as "
                                  "masks: expected one as a select's "
                                  "condition or an operand of logic, an "
                                  "equality or an unsigned cast, found '")
                 << bodyOp.getName() << "'";
      if (auto select = dyn_cast<arith::SelectOp>(bodyOp))
        if (isConstantInBody(select.getCondition()))
          return bodyOp.emitError("the npu target selects by a computed "
                                  "condition, not a constant");
      // A mask lives in the (stored) type of its first computed operand.
      Type type = result.getType();
      if (type.isInteger(1)) {
        Value from = bodyOp.getOperand(0);
        if (isConstantInBody(from))
          from = bodyOp.getOperand(1);
        type = storedType(from);
        stored[result] = type;
      }
      if (!isVectorType(type))
        return bodyOp.emitError("the npu vector unit computes f32, f16, bf16 "
                                "and i32, found ")
               << type;
      ++temps;
    }
    BlockArgument out = op.getRegionOutputArgs()[0];
    readsOutput = !out.use_empty() && !reduction;
    if (!reduction)
      return success();
    combiner = body.getTerminator()->getOperand(0).getDefiningOp();
    std::optional<ReduceFn> fn =
        combiner ? getReduceFn(combiner) : std::nullopt;
    if (!fn || !llvm::is_contained(combiner->getOperands(), out))
      return op.emitError("the npu target reduces with a sum, max or min "
                          "of the output and one value");
    reduceFn = *fn;
    --temps;
    for (OpOperand &use : out.getUses())
      if (use.getOwner() != combiner)
        return op.emitError("the npu target expects a reduction's output "
                            "used only by its combiner");
    return success();
  }

  /// Whether `value` is a number in the body, not a tile: a constant, or
  /// the block argument of a scalar input.
  bool isConstantInBody(Value value) {
    if (getConstant(value))
      return true;
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner() == op.getBlock() &&
           arg.getArgNumber() < op.getNumDpsInputs() &&
           scalars.contains(op.getDpsInputOperand(arg.getArgNumber()));
  }

  /// The element type `value` occupies in UB: an i1 value's mask type.
  Type storedType(Value value) const {
    if (Type type = stored.lookup(value))
      return type;
    return value.getType();
  }

  /// Tile sizes from the unified buffer's capacity.
  LogicalResult placeBuffers() {
    int64_t loaded = 0;
    for (OpOperand *input : op.getDpsInputOperands())
      if (isLoaded(input))
        ++loaded;
    if (readsOutput)
      ++loaded;
    // Double-buffered inputs and output, one buffer per body value, all of
    // one tile; for reductions the output is one row per tile row.
    int64_t slots =
        2 * loaded + (reduction ? 0 : 2) + (loadsInit ? 2 : 0) + temps + 2;
    int64_t elems = e.config.ubBytes / 4 / slots - 64;
    elems = elems / 8 * 8;
    if (elems < 8)
      return failure();
    tileCols = std::min<int64_t>(cols, elems);
    int64_t rowBudget = elems / roundUp(tileCols, 8);
    if (reduction)
      rowBudget = elems / (roundUp(tileCols, 8) + 2);
    tileRows = std::max<int64_t>(1, std::min<int64_t>(rows, rowBudget));
    // Reduced rows accumulate one row per tile.
    if (reduceRows)
      tileRows = 1;
    // Enough tiles for every core to overlap loads, compute and stores
    // (four each), unless tiles would get smaller than 8 KiB.
    int64_t outer = 1;
    for (unsigned d = 0; d < ranges.size(); ++d)
      if (d != rowDim && d != colDim && !isReduced(d))
        outer *= ranges[d];
    int64_t others = outer * ceilDiv(cols, tileCols);
    int64_t wantRowTiles = ceilDiv(4 * e.config.cores, others);
    int64_t minRows = ceilDiv(8192, tileCols * 4);
    int64_t coreRows = ceilDiv(rows, ceilDiv(e.config.cores, others));
    tileRows = std::min(
        tileRows,
        std::min(coreRows, std::max(ceilDiv(rows, wantRowTiles), minRows)));
    tileBytes = roundUp(tileRows * roundUp(tileCols, 8) * 4, 64);
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!isLoaded(input))
        continue;
      FailureOr<int64_t> offset = e.reserve(MemorySpace::UB, 2 * tileBytes);
      if (failed(offset))
        return failure();
      inputOffsets[input] = *offset;
    }
    if (readsOutput) {
      FailureOr<int64_t> offset = e.reserve(MemorySpace::UB, 2 * tileBytes);
      if (failed(offset))
        return failure();
      inputOffsets[op.getDpsInitOperand(0)] = *offset;
    }
    int64_t outBytes = reduceCols ? roundUp(tileRows * 4, 64) : tileBytes;
    if (loadsInit) {
      FailureOr<int64_t> offset = e.reserve(MemorySpace::UB, 2 * outBytes);
      if (failed(offset))
        return failure();
      initOffset = *offset;
    }
    FailureOr<int64_t> out = e.reserve(MemorySpace::UB, 2 * outBytes);
    FailureOr<int64_t> temp =
        e.reserve(MemorySpace::UB, (temps + 2) * tileBytes);
    if (failed(out) || failed(temp))
      return failure();
    outOffset = *out;
    outSlotBytes = outBytes;
    tempOffset = *temp;
    return success();
  }

  /// Whether `input` is a buffer the body reads (so each tile loads it).
  bool isLoaded(OpOperand *input) {
    return isa<MemRefType>(input->get().getType()) &&
           !op.getMatchingBlockArgument(input).use_empty();
  }

  /// The tiles in order: those that contribute to one output tile (its
  /// reduced coordinates) are consecutive, the first and last marked.
  SmallVector<Tile> makeTiles() {
    // One axis per loop dimension: rows and columns step by the tile size,
    // the others by 1; kept (parallel) dimensions are outer, reduced ones
    // inner, so that an output tile's contributions are consecutive.
    struct Axis {
      unsigned dim;
      int64_t step;
    };
    unsigned n = op.getNumLoops();
    SmallVector<Axis> axes;
    for (bool kept : {true, false}) {
      for (unsigned d = 0; d < n; ++d) {
        if (isReduced(d) == kept)
          continue;
        int64_t step = rowDim && d == *rowDim   ? tileRows
                       : colDim && d == *colDim ? tileCols
                                                : 1;
        axes.push_back({d, step});
      }
    }
    unsigned keptAxes = n - reduced.size();
    SmallVector<Tile> tiles;
    SmallVector<int64_t> at(n, 0);
    while (true) {
      Tile tile;
      tile.offsets = at;
      tile.rows = rowDim ? std::min(tileRows, rows - at[*rowDim]) : 1;
      tile.cols = colDim ? std::min(tileCols, cols - at[*colDim]) : 1;
      tile.firstChunk =
          llvm::all_of(ArrayRef(axes).drop_front(keptAxes),
                       [&](const Axis &axis) { return at[axis.dim] == 0; });
      tile.lastChunk = llvm::all_of(
          ArrayRef(axes).drop_front(keptAxes), [&](const Axis &axis) {
            return at[axis.dim] + axis.step >= ranges[axis.dim];
          });
      tiles.push_back(tile);
      // Advance the innermost axis; carry outwards.
      int i = axes.size() - 1;
      for (; i >= 0; --i) {
        at[axes[i].dim] += axes[i].step;
        if (at[axes[i].dim] < ranges[axes[i].dim])
          break;
        at[axes[i].dim] = 0;
      }
      if (i < 0)
        break;
    }
    return tiles;
  }

  /// Whether loop dimension `dim` is reduced.
  bool isReduced(unsigned dim) const {
    return llvm::is_contained(reduced, dim);
  }

  void emitCores(ArrayRef<Tile> tiles) {
    // Reductions split whole rows (all their column chunks) over cores.
    SmallVector<int64_t> rowStarts;
    for (int64_t t = 0; t < static_cast<int64_t>(tiles.size()); ++t)
      if (tiles[t].firstChunk)
        rowStarts.push_back(t);
    rowStarts.push_back(tiles.size());
    SmallVector<int64_t> split =
        splitEvenly(rowStarts.size() - 1, e.config.cores);
    for (int core = 0; core < e.config.cores; ++core) {
      int64_t begin = rowStarts[split[core]], end = rowStarts[split[core + 1]];
      if (begin == end)
        continue;
      e.onCore(core, [&] {
        e.setFlag(Pipe::V, Pipe::MTE2, 2);
        e.setFlag(Pipe::MTE3, Pipe::V, 2);
        int64_t chunk = 0, rowTile = 0;
        for (int64_t t = begin; t < end; ++t) {
          emitTile(tiles[t], chunk % 2, rowTile % 2);
          ++chunk;
          if (tiles[t].lastChunk)
            ++rowTile;
        }
        e.waitFlag(Pipe::V, Pipe::MTE2, 2);
        e.waitFlag(Pipe::MTE3, Pipe::V, 2);
      });
    }
  }

  /// The UB view of `operand`'s part of `tile` in slot `slot`.
  Value ubTile(OpOperand *operand, const Tile &tile, int64_t offset,
               int64_t slot) {
    Type type = getElementTypeOrSelf(operand->get().getType());
    SmallVector<int64_t> shape = tileShape(operand, tile);
    int64_t stride = slotBytes.lookup(operand);
    return e.bufferAt(MemorySpace::UB,
                      offset + slot * (stride ? stride : tileBytes), shape,
                      type);
  }

  /// The 2-d shape of `operand`'s part of `tile` (1 where it broadcasts).
  SmallVector<int64_t> tileShape(OpOperand *operand, const Tile &tile) {
    AffineMap map = op.getMatchingIndexingMap(operand);
    auto has = [&](std::optional<unsigned> dim) {
      return dim && llvm::any_of(map.getResults(), [&](AffineExpr result) {
               return decomposeIndex(result)->coefficient(*dim) != 0;
             });
    };
    return {has(rowDim) ? tile.rows : 1, has(colDim) ? tile.cols : 1};
  }

  /// The GM view of `operand`'s part of `tile`, 2-d.
  Value gmTile(OpOperand *operand, const Tile &tile) {
    SmallVector<OpFoldResult> offsets;
    for (int64_t o : tile.offsets)
      offsets.push_back(e.b.getIndexAttr(o));
    SmallVector<unsigned> dims;
    SmallVector<int64_t> sizes;
    // The tile's dimensions, as 2-d: rows (or 1), columns (or 1).
    AffineMap map = op.getMatchingIndexingMap(operand);
    SmallVector<int64_t> shape = tileShape(operand, tile);
    Value view;
    if (rowDim)
      view = e.tileView(operand->get(), map, offsets, {*rowDim, *colDim},
                        {tile.rows, tile.cols});
    else if (colDim)
      view = e.tileView(operand->get(), map, offsets, {*colDim}, {tile.cols});
    else
      view = e.tileView(operand->get(), map, offsets, {}, {});
    auto type = cast<MemRefType>(view.getType());
    if (type.getRank() == 2)
      return view;
    // Rank 0 or 1: make it 1 x C (or 1 x 1).
    SmallVector<ReassociationIndices> groups;
    if (type.getRank() == 1)
      groups.push_back({0, 1});
    return memref::ExpandShapeOp::create(e.b, e.loc, shape, view, groups);
  }

  void emitTile(const Tile &tile, int64_t slot, int64_t outSlot) {
    OpBuilder &b = e.b;
    e.waitFlag(Pipe::V, Pipe::MTE2);
    DenseMap<Value, BodyValue> values;
    for (auto [input, constant] : scalars)
      values[op.getMatchingBlockArgument(input)] = {Value(), constant};
    for (auto [operand, offset] : inputOffsets) {
      Value ub = ubTile(operand, tile, offset, slot);
      DmaOp::create(b, e.loc, gmTile(operand, tile), ub);
      values[op.getMatchingBlockArgument(operand)] = {ub};
    }
    Type outType =
        getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType());
    SmallVector<int64_t> full{tile.rows, tile.cols};
    // Reduced columns leave one value per row; otherwise the output tile
    // has the tile's shape (one row when the rows are reduced).
    SmallVector<int64_t> outShape =
        reduceCols ? SmallVector<int64_t>{tile.rows} : full;
    Value initTile;
    if (loadsInit && tile.firstChunk) {
      initTile = e.bufferAt(MemorySpace::UB, initOffset + slot * outSlotBytes,
                            outShape, outType);
      DmaOp::create(b, e.loc, outputView(tile), initTile);
    }
    e.setFlag(Pipe::MTE2, Pipe::V);
    e.waitFlag(Pipe::MTE2, Pipe::V);
    if (tile.firstChunk)
      e.waitFlag(Pipe::MTE3, Pipe::V);

    Value outTile = e.bufferAt(
        MemorySpace::UB, outOffset + outSlot * outSlotBytes, outShape, outType);
    int64_t tempIndex = 0;
    castMasks(values, tempIndex);
    emitBody(values, full, outTile, tempIndex);
    if (reduction) {
      Value source = reducedTile(values, full, tempIndex, outType);
      // The first contribution starts the output tile (from what the
      // output held when that is not the identity); the others combine.
      if (reduceCols) {
        if (initTile)
          VUnaryOp::create(b, e.loc, UnaryFn::Copy, initTile, outTile);
        VReduceOp::create(b, e.loc, reduceFn, source, outTile,
                          /*acc=*/!tile.firstChunk || initTile);
      } else if (initTile) {
        VBinaryOp::create(b, e.loc, getCombineFn(reduceFn), initTile, source,
                          outTile);
      } else if (tile.firstChunk) {
        VUnaryOp::create(b, e.loc, UnaryFn::Copy, source, outTile);
      } else {
        VBinaryOp::create(b, e.loc, getCombineFn(reduceFn), outTile, source,
                          outTile);
      }
    } else {
      emitYield(values, outTile);
    }
    e.setFlag(Pipe::V, Pipe::MTE2);
    if (!tile.lastChunk)
      return;
    e.setFlag(Pipe::V, Pipe::MTE3);
    e.waitFlag(Pipe::V, Pipe::MTE3);
    DmaOp::create(b, e.loc, outTile, outputView(tile));
    e.setFlag(Pipe::MTE3, Pipe::V);
  }

  /// The tile of `full` shape (in a temporary where it must be made) of the
  /// value a reduction combines into its output.
  Value reducedTile(DenseMap<Value, BodyValue> &values, ArrayRef<int64_t> full,
                    int64_t &tempIndex, Type outType) {
    Value reduced = combiner->getOperand(0) == op.getRegionOutputArgs()[0]
                        ? combiner->getOperand(1)
                        : combiner->getOperand(0);
    BodyValue value = lookup(values, reduced);
    Value source = value.tile;
    if (!source) {
      source = e.bufferAt(MemorySpace::UB, tempOffset + tempIndex++ * tileBytes,
                          full, outType);
      VDupOp::create(e.b, e.loc, e.b.getF64FloatAttr(value.constant), source);
    }
    return broadcastTo(source, full, tempOffset + tempIndex++ * tileBytes);
  }

  /// Makes the i1 tiles loaded in `values` (bytes) f32 masks.
  void castMasks(DenseMap<Value, BodyValue> &values, int64_t &tempIndex) {
    for (auto [operand, offset] : inputOffsets) {
      BlockArgument arg = op.getMatchingBlockArgument(operand);
      if (!arg.getType().isInteger(1))
        continue;
      Value loaded = values[arg].tile;
      Value mask = e.bufferAt(
          MemorySpace::UB, tempOffset + tempIndex++ * tileBytes,
          cast<MemRefType>(loaded.getType()).getShape(), storedType(arg));
      VUnaryOp::create(e.b, e.loc, UnaryFn::Cast, loaded, mask);
      values[arg] = {mask};
    }
  }

  /// Emits the body's ops (up to a reduction's combiner) on tiles of
  /// `full`, each into a temporary or, the yielded value of an elementwise
  /// op, into `outTile`.
  void emitBody(DenseMap<Value, BodyValue> &values, ArrayRef<int64_t> full,
                Value outTile, int64_t &tempIndex) {
    Block &body = *op.getBlock();
    Value yielded = body.getTerminator()->getOperand(0);
    Type outType = getElementTypeOrSelf(outTile.getType());
    for (Operation &bodyOp : body.without_terminator()) {
      if (&bodyOp == combiner)
        break;
      if (auto constant = dyn_cast<arith::ConstantOp>(bodyOp)) {
        values[constant] = {Value(), getConstant(constant).value_or(0.0)};
        continue;
      }
      Type type = storedType(bodyOp.getResult(0));
      // (A value of row or column vectors only, say a norm's 1 / sqrt(var +
      // eps), is computed once per row or column, not over the tile.)
      Value target =
          !reduction && bodyOp.getResult(0) == yielded && type == outType
              ? outTile
              : e.bufferAt(MemorySpace::UB,
                           tempOffset + tempIndex++ * tileBytes,
                           broadcastShape(&bodyOp, values, full), type);
      emitBodyOp(&bodyOp, values, target);
      values[bodyOp.getResult(0)] = {target};
    }
  }

  /// The shape of `bodyOp`'s result on tiles of `full`: its operands'
  /// shapes broadcast (a constant is one element).
  static SmallVector<int64_t>
  broadcastShape(Operation *bodyOp, const DenseMap<Value, BodyValue> &values,
                 ArrayRef<int64_t> full) {
    SmallVector<int64_t> shape(full.size(), 1);
    for (Value operand : bodyOp->getOperands()) {
      BodyValue value = lookup(values, operand);
      if (!value.tile)
        continue;
      ArrayRef<int64_t> tile =
          cast<MemRefType>(value.tile.getType()).getShape();
      if (tile.size() != full.size())
        return SmallVector<int64_t>(full);
      for (auto [dim, extent] : llvm::zip(shape, tile))
        dim = std::max(dim, extent);
    }
    return shape;
  }

  /// Writes an elementwise op's yielded value to `outTile` (unless it was
  /// computed there).
  void emitYield(DenseMap<Value, BodyValue> &values, Value outTile) {
    OpBuilder &b = e.b;
    Type outType = getElementTypeOrSelf(outTile.getType());
    BodyValue value =
        lookup(values, op.getBlock()->getTerminator()->getOperand(0));
    if (!value.tile)
      VDupOp::create(b, e.loc, b.getF64FloatAttr(value.constant), outTile);
    else if (value.tile != outTile)
      VUnaryOp::create(b, e.loc,
                       getElementTypeOrSelf(value.tile.getType()) == outType
                           ? UnaryFn::Copy
                           : UnaryFn::Cast,
                       value.tile, outTile);
  }

  /// The GM view of the output's part of `tile`: one value per row when
  /// the columns are reduced, else 2-d.
  Value outputView(const Tile &tile) {
    OpOperand *init = op.getDpsInitOperand(0);
    if (!reduceCols)
      return gmTile(init, tile);
    SmallVector<OpFoldResult> offsets;
    for (int64_t o : tile.offsets)
      offsets.push_back(e.b.getIndexAttr(o));
    AffineMap map = op.getMatchingIndexingMap(init);
    Value gm =
        rowDim && !reduceRows
            ? e.tileView(init->get(), map, offsets, {*rowDim}, {tile.rows})
            : e.tileView(init->get(), map, offsets, {}, {});
    if (cast<MemRefType>(gm.getType()).getRank() == 0)
      gm = memref::ExpandShapeOp::create(e.b, e.loc, SmallVector<int64_t>{1},
                                         gm, {});
    return gm;
  }

  /// The tile or constant `value` of the body stands for: computed in
  /// `values`, or a constant defined outside the body.
  static BodyValue lookup(const DenseMap<Value, BodyValue> &values,
                          Value value) {
    if (auto it = values.find(value); it != values.end())
      return it->second;
    return {Value(), *getConstant(value)};
  }

  /// `tile` if it has `shape`, else a copy broadcast to it at `offset`.
  Value broadcastTo(Value tile, ArrayRef<int64_t> shape, int64_t offset) {
    auto type = cast<MemRefType>(tile.getType());
    if (type.getShape() == shape)
      return tile;
    Value full =
        e.bufferAt(MemorySpace::UB, offset, shape, type.getElementType());
    VUnaryOp::create(e.b, e.loc, UnaryFn::Copy, tile, full);
    return full;
  }

  /// Emits `target = x ** p` for small constant powers as multiplications,
  /// square roots and reciprocals (exact where the vector unit's pow is
  /// not).
  void emitPower(BodyValue x, double p, Value target) {
    OpBuilder &b = e.b;
    Value base = x.tile;
    if (!base) {
      VDupOp::create(b, e.loc, b.getF64FloatAttr(x.constant), target);
      base = target;
    }
    double magnitude = std::abs(p);
    if (magnitude == 0.5)
      VUnaryOp::create(b, e.loc, p < 0 ? UnaryFn::Rsqrt : UnaryFn::Sqrt, base,
                       target);
    else if (magnitude == 1.0)
      VUnaryOp::create(b, e.loc, p < 0 ? UnaryFn::Recip : UnaryFn::Copy, base,
                       target);
    if (magnitude < 2.0)
      return;
    // x * x (* x), then the reciprocal for negative powers; `base` is read
    // before `target` is written at every element.
    VBinaryOp::create(b, e.loc, BinaryFn::Mul, base, base, target);
    if (magnitude == 3.0)
      VBinaryOp::create(b, e.loc, BinaryFn::Mul, target, base, target);
    if (p < 0)
      VUnaryOp::create(b, e.loc, UnaryFn::Recip, target, target);
  }

  /// Emits the vector instruction(s) of `bodyOp` writing `target`.
  void emitBodyOp(Operation *bodyOp, DenseMap<Value, BodyValue> &values,
                  Value target) {
    OpBuilder &b = e.b;
    auto operand = [&](unsigned i) {
      return lookup(values, bodyOp->getOperand(i));
    };
    if (auto pow = dyn_cast<math::PowFOp>(bodyOp)) {
      std::optional<double> p = getConstant(pow.getRhs());
      if (p && llvm::is_contained({-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0}, *p)) {
        emitPower(operand(0), *p, target);
        return;
      }
    }
    if (std::optional<UnaryFn> fn = getUnaryFn(bodyOp)) {
      BodyValue x = operand(0);
      if (!x.tile) {
        VDupOp::create(b, e.loc, b.getF64FloatAttr(x.constant), target);
        VUnaryOp::create(b, e.loc, *fn, target, target);
        return;
      }
      VUnaryOp::create(b, e.loc, *fn, x.tile, target);
      return;
    }
    if (isa<arith::SelectOp>(bodyOp)) {
      // cond ? lhs : rhs; a constant lhs is a splat in the target (read
      // before written at each element), a constant rhs the scalar.
      Value cond = operand(0).tile;
      BodyValue lhs = operand(1), rhs = operand(2);
      Value lhsTile = lhs.tile;
      if (!lhsTile) {
        VDupOp::create(b, e.loc, b.getF64FloatAttr(lhs.constant), target);
        lhsTile = target;
      }
      VSelectOp::create(
          b, e.loc, cond, lhsTile, rhs.tile,
          rhs.tile ? FloatAttr() : b.getF64FloatAttr(rhs.constant), target);
      return;
    }
    BinaryFn fn = *getBinaryFn(bodyOp);
    BodyValue lhs = operand(0), rhs = operand(1);
    if (lhs.tile && rhs.tile) {
      // Masks of two types: the right one cast into the target (a mask in
      // the left one's type) first, read before written at each element.
      if (getElementTypeOrSelf(rhs.tile.getType()) !=
          getElementTypeOrSelf(lhs.tile.getType())) {
        VUnaryOp::create(b, e.loc, UnaryFn::Cast, rhs.tile, target);
        rhs.tile = target;
      }
      VBinaryOp::create(b, e.loc, fn, lhs.tile, rhs.tile, target);
      return;
    }
    if (lhs.tile) {
      VScalarOp::create(b, e.loc, BinaryFnAttr::get(b.getContext(), fn),
                        lhs.tile, b.getF64FloatAttr(rhs.constant), target);
      return;
    }
    if (!rhs.tile) {
      // Both constant: a splat of the constant operand, then the op.
      VDupOp::create(b, e.loc, b.getF64FloatAttr(lhs.constant), target);
      VScalarOp::create(b, e.loc, BinaryFnAttr::get(b.getContext(), fn), target,
                        b.getF64FloatAttr(rhs.constant), target);
      return;
    }
    // constant (op) tile: commutative ops swap, the others take a splat of
    // the constant as their left operand.
    if (fn == BinaryFn::Add || fn == BinaryFn::Mul || fn == BinaryFn::Max ||
        fn == BinaryFn::Min || isComparison(fn)) {
      VScalarOp::create(b, e.loc,
                        BinaryFnAttr::get(b.getContext(), swapComparison(fn)),
                        rhs.tile, b.getF64FloatAttr(lhs.constant), target);
      return;
    }
    VDupOp::create(b, e.loc, b.getF64FloatAttr(lhs.constant), target);
    VBinaryOp::create(b, e.loc, fn, target, rhs.tile, target);
  }

  Emitter &e;
  linalg::GenericOp op;
  bool outputIsIdentity;
  SmallVector<int64_t> ranges;
  /// The reduced loop dimensions; whether the tile's columns (rows) are.
  SmallVector<unsigned> reduced;
  bool reduction = false, readsOutput = false, reduceCols = false,
       reduceRows = false, loadsInit = false;
  std::optional<unsigned> rowDim, colDim;
  int64_t rows = 1, cols = 1, tileRows = 1, tileCols = 1, tileBytes = 0;
  int64_t temps = 0;
  Operation *combiner = nullptr;
  ReduceFn reduceFn = ReduceFn::Sum;
  llvm::MapVector<OpOperand *, int64_t> inputOffsets;
  /// The mask type of each i1 value of the body (see storedType).
  DenseMap<Value, Type> stored;
  /// Scalar (constant) inputs.
  llvm::MapVector<OpOperand *, double> scalars;
  int64_t outOffset = 0, outSlotBytes = 0, tempOffset = 0, initOffset = 0;
  /// As an epilogue: the contraction's result, where the fixpipe puts its
  /// chunks, the buffers per loaded operand and each one's size.
  /// Operands are loaded once per tile when every one is the same for all
  /// rows (else once per chunk).
  Value cube;
  int64_t cubeOffset = 0, operandSlots = 2;
  bool loadsPerTile = false;
  DenseMap<OpOperand *, int64_t> slotBytes;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The buffer `view` is a view of: a kernel argument or a scratch buffer.
Value getRootBuffer(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::TransposeOp>(def))
      break;
    view = def->getOperand(0);
  }
  return view;
}

/// The narrow weight `op` widens (an f16 or bf16 kernel argument that no
/// step of `stages` writes, converted to f32 elementwise, as
/// ms-npu-pack-weights leaves a weight it narrowed), when only contractions
/// read the widened scratch buffer: they read the narrow one instead (MTE2
/// converts as it loads) and `op` need not run.
Value getNarrowSource(linalg::GenericOp op, ArrayRef<Operation *> stages) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || !op.isAllParallelLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return Value();
  Block &body = *op.getBlock();
  auto extend = dyn_cast<arith::ExtFOp>(body.front());
  if (!extend || extend.getIn() != body.getArgument(0) ||
      body.getTerminator()->getOperand(0) != extend.getResult())
    return Value();
  Value narrow = op.getDpsInputOperand(0)->get();
  Value wide = op.getDpsInitOperand(0)->get();
  Type from = getElementTypeOrSelf(narrow.getType()),
       to = getElementTypeOrSelf(wide.getType());
  if (!(from.isF16() || from.isBF16()) || !to.isF32() ||
      !wide.getDefiningOp<memref::AllocOp>())
    return Value();
  // The contractions read it later: a kernel argument no step writes.
  Value root = getRootBuffer(narrow);
  if (!isa<BlockArgument>(root) || llvm::any_of(stages, [&](Operation *stage) {
        return getRootBuffer(
                   cast<linalg::LinalgOp>(stage).getDpsInitOperand(0)->get()) ==
               root;
      }))
    return Value();
  for (OpOperand &use : wide.getUses()) {
    Operation *user = use.getOwner();
    if (user == op.getOperation() || isa<memref::DeallocOp>(user))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp || !linalg::isaContractionOpInterface(linalgOp) ||
        linalgOp.isDpsInit(&use))
      return Value();
  }
  return narrow;
}

/// Whether `op` can run as the epilogue of `contraction` on its result
/// tiles in UB: an elementwise op over the result's shape that reads the
/// result (that buffer as is, at the element it writes), when the result
/// is needed nowhere else (the op writes it in place, or it is a scratch
/// buffer only the two, fills and its deallocation use).
bool isEpilogue(linalg::LinalgOp contraction, linalg::GenericOp op) {
  Value result = contraction.getDpsInitOperand(0)->get();
  auto type = dyn_cast<MemRefType>(result.getType());
  if (!type || !type.hasStaticShape() || !op.hasPureBufferSemantics() ||
      op.getNumDpsInits() != 1 || !op.isAllParallelLoops() ||
      !llvm::equal(op.getStaticLoopRanges(), type.getShape()) ||
      llvm::any_of(op.getIndexingMapsArray(), hasWindows))
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity())
    return false;
  // Stores of early tiles must not change what later tiles read: the
  // contraction's inputs, or (as the simulator checks ranges) the
  // epilogue's own inputs in strided chunks.
  Value outRoot = getRootBuffer(init->get());
  for (OpOperand *input : contraction.getDpsInputOperands())
    if (getRootBuffer(input->get()) == outRoot)
      return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (input->get() != result && isa<MemRefType>(input->get().getType()) &&
        getRootBuffer(input->get()) == outRoot)
      return false;
  Value root = getRootBuffer(result);
  bool reads = false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (operand.get() == result) {
      if (!op.getMatchingIndexingMap(&operand).isIdentity())
        return false;
      reads |= &operand != init ||
               !op.getMatchingBlockArgument(&operand).use_empty();
    } else if (isa<MemRefType>(operand.get().getType()) &&
               getRootBuffer(operand.get()) == root) {
      return false;
    }
  }
  if (!reads)
    return false;
  if (init->get() == result)
    return true;
  return result.getDefiningOp<memref::AllocOp>() &&
         llvm::all_of(result.getUsers(), [&](Operation *user) {
           return user == contraction.getOperation() ||
                  user == op.getOperation() ||
                  isa<linalg::FillOp, memref::DeallocOp>(user);
         });
}

/// The value `op` starts from when its output holds it (the identity of a
/// contraction's or a reduction's combination), or nullopt when `op` does
/// not read its output that way.
std::optional<double> getInitIdentity(linalg::LinalgOp op) {
  if (linalg::isaContractionOpInterface(op))
    return 0.0;
  if (op.getNumReductionLoops() == 0 || op.getNumDpsInits() != 1)
    return std::nullopt;
  Operation *yielded =
      op.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
  std::optional<ReduceFn> fn = yielded ? getReduceFn(yielded) : std::nullopt;
  if (!fn)
    return std::nullopt;
  return getIdentity(*fn, yielded->getResult(0).getType());
}

/// The buffer `op` copies unchanged into its output, if it is such a copy.
Value getCopySource(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !generic.isAllParallelLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return Value();
  Value yielded = generic.getBlock()->getTerminator()->getOperand(0);
  if (yielded != generic.getRegionInputArgs()[0])
    return Value();
  return generic.getDpsInputOperand(0)->get();
}

/// What the steps lowered so far leave in whole buffers: the value every
/// element of a buffer holds after a fill (or a copy of a filled buffer),
/// so that a contraction or reduction into it can start from its identity
/// instead of reading it.
class KnownContents {
public:
  /// The value every element of `view`'s buffer holds, if known.
  std::optional<double> lookup(Value view) const {
    auto it = values.find(getRootBuffer(view));
    if (it == values.end())
      return std::nullopt;
    return it->second;
  }

  /// Records what `op` (about to run) writes to its output.
  void update(linalg::LinalgOp op) {
    Value out = op.getDpsInitOperand(0)->get();
    Value root = getRootBuffer(out);
    std::optional<double> value;
    if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
      value = getConstant(fill.value());
    else if (Value source = getCopySource(op))
      value = lookup(source);
    if (value && out == root)
      values[root] = *value;
    else
      values.erase(root);
  }

private:
  DenseMap<Value, double> values;
};

//===----------------------------------------------------------------------===//
// Convolutions on the cube
//===----------------------------------------------------------------------===//

/// A convolution's loops by role: `out[b..., g..., m..., q...] += x[b, g,
/// k and q in windows] * w[g..., m..., k...]`. Batch loops `b` index the
/// input and the output before the groups and channels, groups `g` all
/// three, `m` the weight and the output, `k` (summed) the input and the
/// weight, the positions `q` the input (in windows such as `oh * 2 + kh`)
/// and the output after its channels; loops of extent 1 take no role.
struct WindowContraction {
  OpOperand *input = nullptr, *weight = nullptr;
  SmallVector<unsigned> batch, group, m, k, q;
  /// The output's dims grouped as [batch..., g..., m..., q...] and the
  /// weight's as [g..., m..., k...] (groups without loops left out);
  /// extent-1 dims join a group beside them.
  SmallVector<ReassociationIndices> outputGroups, weightGroups;
};

/// Whether `op` is a convolution the cube can run as a matmul of its
/// weight `[M, K]` by its input's windows laid out `[K, Q]` per batch and
/// group (im2col): a sum of products of a windowed input and a weight
/// indexed by loops alone, the weight's groups, channels and summed dims
/// in that order, the output's batch, groups, channels and positions,
/// weight and output contiguous.
std::optional<WindowContraction> matchWindowContraction(linalg::GenericOp op) {
  if (!op || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return std::nullopt;
  // The body: out + in0 * in1 (floats).
  Block &body = *op.getBlock();
  if (!llvm::hasNItems(body.getOperations(), 3))
    return std::nullopt;
  auto mul = dyn_cast<arith::MulFOp>(body.front());
  auto add = dyn_cast<arith::AddFOp>(*std::next(body.begin()));
  Value out = body.getArgument(2);
  if (!mul || !add || body.getTerminator()->getOperand(0) != add.getResult() ||
      !((add.getLhs() == out && add.getRhs() == mul.getResult()) ||
        (add.getRhs() == out && add.getLhs() == mul.getResult())) ||
      !((mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1)) ||
        (mul.getLhs() == body.getArgument(1) &&
         mul.getRhs() == body.getArgument(0))))
    return std::nullopt;
  WindowContraction w;
  w.input = op.getDpsInputOperand(0);
  w.weight = op.getDpsInputOperand(1);
  if (!hasWindows(op.getMatchingIndexingMap(w.input)))
    std::swap(w.input, w.weight);
  AffineMap xMap = op.getMatchingIndexingMap(w.input),
            wMap = op.getMatchingIndexingMap(w.weight),
            yMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!hasWindows(xMap) || !isIndexedByLoops(xMap) ||
      !wMap.isProjectedPermutation() || !yMap.isProjectedPermutation())
    return std::nullopt;
  auto isContiguous = [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && type.hasStaticShape() && type.getLayout().isIdentity();
  };
  if (!isContiguous(w.weight->get()) ||
      !isContiguous(op.getDpsInitOperand(0)->get()))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto usedBy = [](AffineMap map, unsigned d) {
    return llvm::any_of(map.getResults(), [&](AffineExpr e) {
      return decomposeIndex(e)->coefficient(d) != 0;
    });
  };
  // Each loop's role (batch loops are found among the positions below).
  enum Role { None, Batch, Group, M, K, Q };
  SmallVector<Role> role(op.getNumLoops(), None);
  for (unsigned d = 0; d < op.getNumLoops(); ++d) {
    bool inX = usedBy(xMap, d), inW = usedBy(wMap, d), inY = usedBy(yMap, d);
    if (ranges[d] == 1)
      continue;
    if (inX && inW && inY)
      role[d] = Group;
    else if (inX && inW && !inY)
      role[d] = K;
    else if (inW && inY && !inX)
      role[d] = M;
    else if (inX && inY && !inW)
      role[d] = Q;
    else
      return std::nullopt;
  }
  // The output: [batch..., m..., q...], extent-1 dims anywhere.
  auto yDim = [&](int64_t i) {
    return cast<AffineDimExpr>(yMap.getResult(i)).getPosition();
  };
  int64_t rank = yMap.getNumResults(), firstM = -1, lastM = -1;
  for (int64_t i = 0; i < rank; ++i)
    if (role[yDim(i)] == M) {
      if (firstM < 0)
        firstM = i;
      lastM = i;
    }
  if (firstM < 0)
    return std::nullopt;
  ReassociationIndices lead, groups, chans, tail;
  for (int64_t i = 0; i < rank; ++i) {
    unsigned d = yDim(i);
    if (i < firstM) {
      // Batch dims, then groups.
      if (role[d] == Group || !groups.empty()) {
        if (role[d] == Q)
          return std::nullopt;
        groups.push_back(i);
        if (role[d] == Group)
          w.group.push_back(d);
        continue;
      }
      lead.push_back(i);
      if (role[d] == Q) {
        role[d] = Batch;
        w.batch.push_back(d);
      }
    } else if (i <= lastM) {
      if (role[d] != M && role[d] != None)
        return std::nullopt;
      chans.push_back(i);
      if (role[d] == M)
        w.m.push_back(d);
    } else {
      if (role[d] != Q && role[d] != None)
        return std::nullopt;
      tail.push_back(i);
      if (role[d] == Q)
        w.q.push_back(d);
    }
  }
  if (w.q.empty() ||
      llvm::any_of(groups, [&](int64_t i) { return role[yDim(i)] == Batch; }))
    return std::nullopt;
  // Extent-1 dims without loops beside them join the next group.
  if (w.group.empty()) {
    lead.append(groups.begin(), groups.end());
    groups.clear();
  }
  if (w.batch.empty()) {
    (w.group.empty() ? chans : groups)
        .insert((w.group.empty() ? chans : groups).begin(), lead.begin(),
                lead.end());
    lead.clear();
  }
  for (ReassociationIndices *part : {&lead, &groups, &chans, &tail})
    if (!part->empty())
      w.outputGroups.push_back(*part);
  // The weight: [g..., m..., k...], its loops in the output's order.
  ReassociationIndices wg, wm, wk;
  SmallVector<unsigned> weightG, weightM;
  for (auto [i, e] : llvm::enumerate(wMap.getResults())) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (role[d] == Group) {
      if (!wm.empty() || !wk.empty())
        return std::nullopt;
      wg.push_back(i);
      weightG.push_back(d);
    } else if (role[d] == M) {
      if (!wk.empty())
        return std::nullopt;
      wm.push_back(i);
      weightM.push_back(d);
    } else if (role[d] == K) {
      w.k.push_back(d);
      wk.push_back(i);
    } else {
      (!wk.empty()                      ? wk
       : !wm.empty() || w.group.empty() ? wm
                                        : wg)
          .push_back(i);
    }
  }
  if (w.k.empty() || wm.empty() || weightM != w.m || weightG != w.group)
    return std::nullopt;
  if (!wg.empty())
    w.weightGroups.push_back(wg);
  w.weightGroups.push_back(wm);
  w.weightGroups.push_back(wk);
  return w;
}

/// Copies `input`'s windows to `scratch` (`scratch[i...] = input[map(i...)]`,
/// its loops `batch` batch loops, then `k` summed loops, then positions) in
/// DMAs through UB, double-buffered, each moving every position of a run of
/// one summed loop (the input channels: one no input index shares with a
/// position) that fits half of UB; the runs, images and other summed loops
/// split over the cores. Returns false (emitting nothing) when no summed
/// loop can be the channels, an input index combines two of the copied
/// loops, there are more than 3 positions, one channel's positions do not
/// fit, or the copies would exceed the unrolled program's limit.
bool copyWindows(OpBuilder &b, Location loc, const NpuConfig &config,
                 Value input, AffineMap map, Value scratch, size_t batch,
                 size_t k) {
  auto type = cast<MemRefType>(scratch.getType());
  unsigned loops = type.getRank();
  SmallVector<unsigned> positions;
  for (unsigned d = batch + k; d < loops; ++d)
    positions.push_back(d);
  // The channels: a summed loop whose input indices hold no position.
  std::optional<unsigned> chunk;
  for (unsigned d = batch; d < batch + k && !chunk; ++d)
    if (llvm::none_of(map.getResults(), [&](AffineExpr e) {
          LinearIndex index = *decomposeIndex(e);
          return index.coefficient(d) &&
                 llvm::any_of(positions, [&](unsigned p) {
                   return index.coefficient(p) != 0;
                 });
        }))
      chunk = d;
  if (!chunk || positions.size() + 1 > 4)
    return false;
  unsigned chunkLoop = *chunk;
  // Each view dimension is one copied loop's (tileView keeps one per
  // index).
  for (AffineExpr e : map.getResults()) {
    LinearIndex index = *decomposeIndex(e);
    int64_t copied = index.coefficient(chunkLoop) != 0;
    for (unsigned p : positions)
      copied += index.coefficient(p) != 0;
    if (copied > 1)
      return false;
  }
  int64_t positionBytes = elementBytes(type.getElementType());
  for (unsigned d : positions)
    positionBytes *= type.getDimSize(d);
  int64_t slotBytes =
      config.ubBytes / 2 / config.alignBytes * config.alignBytes;
  if (positionBytes <= 0 || positionBytes > slotBytes)
    return false;
  int64_t channels = type.getDimSize(chunkLoop);
  int64_t run = std::min(channels, slotBytes / positionBytes);
  // The work items: every value of the loops before the positions but the
  // channels, and each run of channels.
  SmallVector<SmallVector<int64_t>> items;
  SmallVector<int64_t> at(batch + k, 0);
  // (About 10 instructions per item: two DMAs, four flags, the views.)
  int64_t count = 1;
  for (unsigned d = 0; d < batch + k; ++d)
    count *= d == chunkLoop ? ceilDiv(channels, run) : type.getDimSize(d);
  if (count * 10 > kMaxVectorInstructions)
    return false;
  std::function<void(unsigned)> addItems = [&](unsigned d) {
    if (d == batch + k) {
      items.push_back(at);
      return;
    }
    int64_t step = d == chunkLoop ? run : 1;
    for (int64_t i = 0; i < type.getDimSize(d); i += step) {
      at[d] = i;
      addItems(d + 1);
    }
  };
  addItems(0);
  Emitter e(b, loc, config);
  FailureOr<int64_t> ub = e.reserve(MemorySpace::UB, 2 * slotBytes);
  if (failed(ub))
    return false;
  SmallVector<unsigned> dims{chunkLoop};
  llvm::append_range(dims, positions);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(loops, b.getContext());
  SmallVector<int64_t> starts = splitEvenly(items.size(), config.cores);
  for (int core = 0; core < config.cores; ++core) {
    if (starts[core] == starts[core + 1])
      continue;
    e.onCore(core, [&] {
      e.setFlag(Pipe::MTE3, Pipe::MTE2, 2);
      for (int64_t i = starts[core]; i < starts[core + 1]; ++i) {
        const SmallVector<int64_t> &item = items[i];
        SmallVector<int64_t> sizes{std::min(run, channels - item[chunkLoop])};
        SmallVector<OpFoldResult> offsets;
        for (unsigned d = 0; d < loops; ++d)
          offsets.push_back(b.getIndexAttr(d < batch + k ? item[d] : 0));
        for (unsigned d : positions)
          sizes.push_back(type.getDimSize(d));
        Value source = e.tileView(input, map, offsets, dims, sizes);
        Value target = e.tileView(scratch, identity, offsets, dims, sizes);
        Value slot =
            e.slotView(MemorySpace::UB, *ub, sizes, type.getElementType(),
                       slotBytes, b.getIndexAttr((i - starts[core]) % 2));
        e.waitFlag(Pipe::MTE3, Pipe::MTE2);
        DmaOp::create(b, loc, source, slot);
        e.setFlag(Pipe::MTE2, Pipe::MTE3);
        e.waitFlag(Pipe::MTE2, Pipe::MTE3);
        DmaOp::create(b, loc, slot, target);
        e.setFlag(Pipe::MTE3, Pipe::MTE2);
      }
      e.waitFlag(Pipe::MTE3, Pipe::MTE2, 2);
    });
  }
  return true;
}

/// Lowers `op` (a match `w` of matchWindowContraction) as two steps: the
/// input's windows copied to a GM scratch buffer `s[batch..., g...,
/// k..., q...]` (im2col: copyWindows's DMAs through UB, else the vector
/// path's tiles), then `out[batch, g, m, q] (+)= w[g, m, k] * s[batch, g,
/// k, q]` on the cube (`init`: the output holds zeros).
LogicalResult lowerWindowContraction(OpBuilder &b, const NpuConfig &config,
                                     linalg::GenericOp op,
                                     const WindowContraction &w, bool init,
                                     Type cubeType) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> loops(w.batch);
  llvm::append_range(loops, w.group);
  llvm::append_range(loops, w.k);
  llvm::append_range(loops, w.q);
  SmallVector<int64_t> shape;
  for (unsigned d : loops)
    shape.push_back(ranges[d]);
  // The copy's tiles are its output's two innermost dims: with one
  // position loop, a unit dim before it (a window `ow * s + kw` would
  // combine a tile's rows and columns).
  bool unitRows = w.q.size() == 1;
  if (unitRows)
    shape.insert(shape.end() - 1, 1);
  Type element = getElementTypeOrSelf(w.input->get().getType());
  // s[batch..., k..., q...] = x[...]: a copy over the loops of s, the
  // input's indices rewritten in them.
  Value scratch = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, element), b.getI64IntegerAttr(64));
  unsigned copyLoops = shape.size();
  SmallVector<AffineExpr> replacements(op.getNumLoops(),
                                       getAffineConstantExpr(0, ctx));
  for (auto [i, d] : llvm::enumerate(loops))
    replacements[d] =
        getAffineDimExpr(unitRows && i + 1 == loops.size() ? i + 1 : i, ctx);
  AffineMap xMap = op.getMatchingIndexingMap(w.input).replaceDimsAndSymbols(
      replacements, {}, copyLoops, 0);
  if (!copyWindows(b, loc, config, w.input->get(), xMap, scratch,
                   w.batch.size() + w.group.size(), w.k.size())) {
    // A copy on the vector path's tiles instead.
    SmallVector<AffineMap> copyMaps{
        xMap, AffineMap::getMultiDimIdentityMap(copyLoops, ctx)};
    SmallVector<utils::IteratorType> parallel(copyLoops,
                                              utils::IteratorType::parallel);
    auto copy = linalg::GenericOp::create(
        b, loc, TypeRange{}, ValueRange{w.input->get()}, ValueRange{scratch},
        copyMaps, parallel,
        [&](OpBuilder &nested, Location at, ValueRange args) {
          linalg::YieldOp::create(nested, at, args[0]);
        });
    Emitter copyEmitter(b, loc, config);
    LogicalResult copied =
        VectorLowering(copyEmitter, copy, /*outputIsIdentity=*/false).run();
    copy.erase();
    if (failed(copied))
      return failure();
  }
  CoreBarrierOp::create(b, loc);
  // out[batch, g, m, q] (+)= w[g, m, k] * s[batch, g, k, q].
  bool batched = !w.batch.empty(), grouped = !w.group.empty();
  SmallVector<ReassociationIndices> scratchGroups;
  int64_t next = 0;
  for (size_t size :
       {w.batch.size(), w.group.size(), w.k.size(), w.q.size() + unitRows}) {
    if (!size)
      continue;
    ReassociationIndices group;
    for (size_t i = 0; i < size; ++i)
      group.push_back(next++);
    scratchGroups.push_back(group);
  }
  Value a =
      memref::CollapseShapeOp::create(b, loc, w.weight->get(), w.weightGroups);
  Value windows =
      memref::CollapseShapeOp::create(b, loc, scratch, scratchGroups);
  Value c = memref::CollapseShapeOp::create(
      b, loc, op.getDpsInitOperand(0)->get(), w.outputGroups);
  // Loops (batch, g, m, q, k), without those the conv has none of.
  unsigned nb = batched ? 1 : 0, g = nb, m = nb + grouped, q = m + 1, k = m + 2;
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };
  SmallVector<AffineExpr> aExprs, sExprs, cExprs;
  if (batched) {
    sExprs.push_back(dim(0));
    cExprs.push_back(dim(0));
  }
  if (grouped) {
    aExprs.push_back(dim(g));
    sExprs.push_back(dim(g));
    cExprs.push_back(dim(g));
  }
  aExprs.append({dim(m), dim(k)});
  sExprs.append({dim(k), dim(q)});
  cExprs.append({dim(m), dim(q)});
  unsigned count = k + 1;
  SmallVector<AffineMap> maps{AffineMap::get(count, 0, aExprs, ctx),
                              AffineMap::get(count, 0, sExprs, ctx),
                              AffineMap::get(count, 0, cExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(count,
                                             utils::IteratorType::parallel);
  iterators[k] = utils::IteratorType::reduction;
  auto matmul = linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{a, windows}, ValueRange{c}, maps,
      iterators, [&](OpBuilder &nested, Location at, ValueRange args) {
        Value product = arith::MulFOp::create(nested, at, args[0], args[1]);
        Value sum = arith::AddFOp::create(nested, at, args[2], product);
        linalg::YieldOp::create(nested, at, sum);
      });
  Emitter cubeEmitter(b, loc, config);
  LogicalResult multiplied =
      ContractionLowering(cubeEmitter, matmul, init, cubeType).run();
  matmul.erase();
  return multiplied;
}

//===----------------------------------------------------------------------===//
// Runs of row-local stages in one pass
//===----------------------------------------------------------------------===//

/// Runs a run of row-local stages as one step: softmax and the norms reach
/// the lowering as fills, elementwise ops and reductions of the last
/// dimension over the same rows (and row vectors), each a step of its own
/// through GM. Here each tile of whole rows is loaded into UB once, every
/// stage runs on the UB tiles in turn (a row vector's tile broadcast over
/// the columns, a column vector loaded once per core), and only the
/// buffers the run leaves for later are stored.
///
/// A buffer of the run is a *matrix* (`[rows..., C]`), a *row vector*
/// (`[rows...]`) or a *column vector* (`[C]`, read only); every stage
/// indexes each by its loops in order (the rows flattened). The run
/// declines (and its stages run one by one) when a buffer is a view, i1,
/// loaded and stored both, when the rows of a tile do not fit UB, or when
/// the unrolled program would grow too long.
class RowFusion {
public:
  /// Returns the stages of the run that starts at `stages[begin]`: fills,
  /// elementwise ops and reductions of the last loop over the rows of the
  /// first such reduction, at least two and with one reduction; empty if
  /// there is none.
  static SmallVector<linalg::LinalgOp> findRun(ArrayRef<Operation *> stages,
                                               unsigned begin) {
    // The rows and columns: the first reduction's.
    SmallVector<int64_t> rowShape;
    int64_t cols = 0;
    for (unsigned i = begin; i < stages.size(); ++i) {
      auto generic = dyn_cast<linalg::GenericOp>(stages[i]);
      if (!generic && !isa<linalg::FillOp>(stages[i]))
        break;
      if (!generic || generic.getNumReductionLoops() != 1)
        continue;
      SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
      if (generic.getIteratorTypesArray().back() !=
              utils::IteratorType::reduction ||
          ranges.size() < 2 || ShapedType::isDynamicShape(ranges))
        break;
      cols = ranges.back();
      rowShape.assign(ranges.begin(), ranges.end() - 1);
      break;
    }
    SmallVector<linalg::LinalgOp> run;
    if (!cols)
      return run;
    bool reduces = false;
    for (unsigned i = begin; i < stages.size(); ++i) {
      auto op = dyn_cast<linalg::LinalgOp>(stages[i]);
      std::optional<bool> kind = classify(op, rowShape, cols);
      if (!kind)
        break;
      reduces |= *kind;
      run.push_back(op);
    }
    if (run.size() < 2 || !reduces)
      run.clear();
    return run;
  }

  RowFusion(Emitter &e, ArrayRef<linalg::LinalgOp> stages)
      : e(e), stages(stages) {
    SmallVector<int64_t> ranges;
    for (linalg::LinalgOp stage : stages)
      if (stage.getNumReductionLoops() == 1) {
        ranges = stage.getStaticLoopRanges();
        break;
      }
    cols = ranges.back();
    rowShape.assign(ranges.begin(), ranges.end() - 1);
    rows = 1;
    for (int64_t r : rowShape)
      rows *= r;
  }

  /// Lowers the run; fails without emitting anything (and without a
  /// diagnostic) when it declines.
  LogicalResult run() {
    if (failed(analyze()) || failed(place()))
      return failure();
    int64_t tiles = ceilDiv(rows, tileRows);
    int64_t perTile = 16 + 2 * int64_t(buffers.size());
    for (auto &lowering : lowerings)
      perTile += lowering ? lowering->getTemps() + 4 : 1;
    if (tiles * perTile > kMaxVectorInstructions)
      return failure();
    SmallVector<int64_t> split = splitEvenly(tiles, e.config.cores);
    for (int core = 0; core < e.config.cores; ++core) {
      if (split[core] == split[core + 1])
        continue;
      e.onCore(core, [&] {
        e.setFlag(Pipe::V, Pipe::MTE2, 2);
        e.setFlag(Pipe::MTE3, Pipe::V, 2);
        for (int64_t t = split[core]; t < split[core + 1]; ++t)
          emitTile(t * tileRows, std::min(tileRows, rows - t * tileRows),
                   (t - split[core]) % 2, t == split[core]);
        e.waitFlag(Pipe::V, Pipe::MTE2, 2);
        e.waitFlag(Pipe::MTE3, Pipe::V, 2);
      });
    }
    return success();
  }

private:
  /// What a buffer of the run is and where its tiles lie in UB.
  enum class Kind { Matrix, Row, Column };
  struct Buffer {
    Kind kind;
    Type type;
    /// Loaded before the run's first stage reads it; stored after the
    /// run's last stage wrote it.
    bool load = false, store = false;
    /// UB offset of its two slots (a column vector: one), each slotBytes.
    int64_t offset = 0, slotBytes = 0;
  };

  /// What `op` is as a stage of a run over rows `rowShape` and `cols`
  /// columns: true for a reduction of the columns, false for a fill or an
  /// elementwise op (of the whole matrix, or of the row vectors), none if
  /// it is none of these.
  static std::optional<bool>
  classify(linalg::LinalgOp op, ArrayRef<int64_t> rowShape, int64_t cols) {
    if (!op || !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
      return std::nullopt;
    SmallVector<int64_t> matrixShape(rowShape);
    matrixShape.push_back(cols);
    auto shapeOf = [](Value v) -> std::optional<SmallVector<int64_t>> {
      auto type = dyn_cast<MemRefType>(v.getType());
      if (!type || !type.getLayout().isIdentity() || !type.hasStaticShape() ||
          (!isa<BlockArgument>(v) && !v.getDefiningOp<memref::AllocOp>()) ||
          !isVectorType(type.getElementType()))
        return std::nullopt;
      return llvm::to_vector(type.getShape());
    };
    Value out = op.getDpsInitOperand(0)->get();
    std::optional<SmallVector<int64_t>> outShape = shapeOf(out);
    if (!outShape ||
        (*outShape != ArrayRef(matrixShape) && *outShape != rowShape))
      return std::nullopt;
    if (isa<linalg::FillOp>(op))
      return getConstant(cast<linalg::FillOp>(op).value())
                 ? std::optional<bool>(false)
                 : std::nullopt;
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic)
      return std::nullopt;
    SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
    unsigned n = ranges.size();
    bool matrix = ranges == ArrayRef(matrixShape);
    if (!matrix && ranges != rowShape)
      return std::nullopt;
    bool reduces = generic.getNumReductionLoops() != 0;
    if (reduces && (!matrix || generic.getNumReductionLoops() != 1 ||
                    generic.getIteratorTypesArray().back() !=
                        utils::IteratorType::reduction))
      return std::nullopt;
    // Each buffer indexed by the loops in order: a matrix by all, a row
    // vector by the rows, a column vector by the columns.
    MLIRContext *ctx = op.getContext();
    AffineMap all = AffineMap::getMultiDimIdentityMap(n, ctx);
    AffineMap rowsOnly = all.getMajorSubMap(rowShape.size());
    AffineMap colsOnly = AffineMap::get(n, 0, getAffineDimExpr(n - 1, ctx));
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType())) {
        if (!getConstant(operand.get()))
          return std::nullopt;
        continue;
      }
      std::optional<SmallVector<int64_t>> shape = shapeOf(operand.get());
      if (!shape)
        return std::nullopt;
      AffineMap map = generic.getMatchingIndexingMap(&operand);
      bool ok = (matrix && *shape == ArrayRef(matrixShape) && map == all) ||
                (*shape == rowShape && map == (matrix ? rowsOnly : all)) ||
                (matrix && *shape == ArrayRef<int64_t>{cols} &&
                 map == colsOnly && !op.isDpsInit(&operand));
      if (!ok)
        return std::nullopt;
    }
    // (A reduction writes its row vector; an elementwise op all it loops
    // over.)
    if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
        (reduces ? rowsOnly : all))
      return std::nullopt;
    return reduces;
  }

  /// The kind of buffer `operand` of `stage` is, by how the stage indexes
  /// it (not by its shape: with as many rows as columns a column vector has
  /// a row vector's shape).
  Kind kindOf(linalg::LinalgOp stage, OpOperand &operand) const {
    unsigned rank = rowShape.size();
    if (isa<linalg::FillOp>(stage))
      return cast<MemRefType>(operand.get().getType()).getRank() == rank + 1
                 ? Kind::Matrix
                 : Kind::Row;
    AffineMap map = stage.getMatchingIndexingMap(&operand);
    if (stage.getNumLoops() == rank)
      return Kind::Row;
    if (map.getNumResults() == rank + 1)
      return Kind::Matrix;
    if (map.getNumResults() == 1 &&
        map.getResult(0) == getAffineDimExpr(rank, map.getContext()))
      return Kind::Column;
    return Kind::Row;
  }

  /// Records `operand` of `stage` among the run's buffers; fails when it
  /// was used as another kind before.
  LogicalResult addBuffer(linalg::LinalgOp stage, OpOperand &operand,
                          Buffer *&buffer) {
    Kind kind = kindOf(stage, operand);
    auto [it, added] = buffers.try_emplace(
        operand.get(),
        Buffer{kind, getElementTypeOrSelf(operand.get().getType())});
    buffer = &it->second;
    if (!added && it->second.kind != kind)
      return failure();
    return success();
  }

  /// Analyzes every stage's body and which buffers are loaded and stored.
  LogicalResult analyze() {
    // Diagnostics of a declined run are the stages' own to report.
    ScopedDiagnosticHandler quiet(stages.front()->getContext(),
                                  [](Diagnostic &) { return success(); });
    llvm::SmallPtrSet<Operation *, 8> inRun;
    for (linalg::LinalgOp stage : stages)
      inRun.insert(stage);
    for (linalg::LinalgOp stage : stages) {
      lowerings.emplace_back();
      if (auto generic = dyn_cast<linalg::GenericOp>(stage.getOperation())) {
        lowerings.back().emplace(e, generic, /*outputIsIdentity=*/false);
        if (failed(lowerings.back()->analyzeStage()))
          return failure();
      }
      // Reads (a reduction reads its output, an elementwise op when its
      // body uses it), then the write.
      for (OpOperand &operand : stage->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()))
          continue;
        bool read =
            !isa<linalg::FillOp>(stage) &&
            (!stage.isDpsInit(&operand) || stage.getNumReductionLoops() != 0 ||
             stage.payloadUsesValueFromOperand(&operand));
        if (!read)
          continue;
        if (getElementTypeOrSelf(operand.get().getType()).isInteger(1))
          return failure();
        bool seen = buffers.contains(operand.get());
        Buffer *buffer;
        if (failed(addBuffer(stage, operand, buffer)))
          return failure();
        // Read before any write in the run: loaded.
        if (!seen)
          buffer->load = true;
      }
      Value out = stage.getDpsInitOperand(0)->get();
      Buffer *written;
      if (failed(addBuffer(stage, *stage.getDpsInitOperand(0), written)) ||
          written->kind == Kind::Column)
        return failure();
      // Stored when it outlives the run: an argument, or a buffer read
      // after it.
      bool later =
          isa<BlockArgument>(out) ||
          llvm::any_of(out.getUsers(), [&](Operation *user) {
            return !inRun.contains(user) && !isa<memref::DeallocOp>(user);
          });
      written->store = later;
      // (A buffer loaded and stored both would be overwritten by the next
      // tile's load while its store still reads it.)
      if (written->load && written->store)
        return failure();
    }
    return success();
  }

  /// Picks the rows of a tile and places every buffer and the temporaries
  /// in UB.
  LogicalResult place() {
    int64_t rowElems = roundUp(cols, 8);
    int64_t temps = 2;
    for (auto &lowering : lowerings)
      if (lowering)
        temps = std::max(temps, lowering->getTemps());
    int64_t align = e.config.alignBytes;
    // UB bytes for tiles of `tr` rows.
    auto need = [&](int64_t tr) {
      int64_t bytes = 0;
      for (auto &[value, buffer] : buffers) {
        int64_t elems = buffer.kind == Kind::Matrix ? tr * rowElems
                        : buffer.kind == Kind::Row  ? tr
                                                    : rowElems;
        int64_t slot = roundUp(elems * elementBytes(buffer.type), align);
        bytes += (buffer.kind == Kind::Column ? 1 : 2) * slot + align;
      }
      return bytes + temps * roundUp(tr * rowElems * 4, align) + align;
    };
    // Enough tiles for each core to overlap its loads, compute and stores
    // (four each), unless tiles would get smaller than 8 KiB.
    int64_t want = std::max(ceilDiv(rows, 4 * e.config.cores),
                            ceilDiv(8192, rowElems * 4));
    tileRows = std::min(rows, want);
    while (tileRows > 0 && need(tileRows) > e.available(MemorySpace::UB))
      --tileRows;
    if (tileRows == 0)
      return failure();
    for (auto &[value, buffer] : buffers) {
      int64_t elems = buffer.kind == Kind::Matrix ? tileRows * rowElems
                      : buffer.kind == Kind::Row  ? tileRows
                                                  : rowElems;
      buffer.slotBytes = roundUp(elems * elementBytes(buffer.type), align);
      buffer.offset =
          *e.reserve(MemorySpace::UB,
                     (buffer.kind == Kind::Column ? 1 : 2) * buffer.slotBytes);
    }
    tempBytes = roundUp(tileRows * rowElems * 4, align);
    tempOffset = *e.reserve(MemorySpace::UB, temps * tempBytes);
    return success();
  }

  /// `value`'s tile of `rows` rows in slot `slot`, of shape `shape` (its
  /// own, or a view of it broadcast over rows or columns).
  Value ubTile(Value value, int64_t slot, ArrayRef<int64_t> shape) {
    const Buffer &buffer = buffers.find(value)->second;
    return e.bufferAt(MemorySpace::UB,
                      buffer.offset + (buffer.kind == Kind::Column ? 0 : slot) *
                                          buffer.slotBytes,
                      shape, buffer.type);
  }

  /// The GM view of `value`'s rows [row, row + count) (a column vector:
  /// whole), as the UB tile's shape.
  Value gmRows(Value value, int64_t row, int64_t count) {
    auto type = cast<MemRefType>(value.getType());
    const Buffer &buffer = buffers.find(value)->second;
    if (buffer.kind == Kind::Column)
      return value;
    SmallVector<ReassociationIndices> groups(1);
    for (int64_t i = 0; i < int64_t(rowShape.size()); ++i)
      groups[0].push_back(i);
    if (buffer.kind == Kind::Matrix)
      groups.push_back({type.getRank() - 1});
    Value flat = value;
    if (type.getRank() > int64_t(groups.size()))
      flat = memref::CollapseShapeOp::create(e.b, e.loc, value, groups);
    if (buffer.kind == Kind::Matrix)
      return e.subview(flat, {e.b.getIndexAttr(row), e.b.getIndexAttr(0)},
                       {count, cols});
    return e.subview(flat, {e.b.getIndexAttr(row)}, {count});
  }

  /// The UB shape of `value`'s tile of `count` rows.
  SmallVector<int64_t> tileShape(Value value, int64_t count) {
    switch (buffers.find(value)->second.kind) {
    case Kind::Matrix:
      return {count, cols};
    case Kind::Row:
      return {count};
    case Kind::Column:
      return {cols};
    }
    return {};
  }

  /// Emits the tile of rows [row, row + count), slot `slot`; the core's
  /// first tile also loads the column vectors.
  void emitTile(int64_t row, int64_t count, int64_t slot, bool first) {
    OpBuilder &b = e.b;
    e.waitFlag(Pipe::V, Pipe::MTE2);
    for (auto &[value, buffer] : buffers)
      if (buffer.load && (buffer.kind != Kind::Column || first))
        DmaOp::create(b, e.loc, gmRows(value, row, count),
                      ubTile(value, slot, tileShape(value, count)));
    e.setFlag(Pipe::MTE2, Pipe::V);
    e.waitFlag(Pipe::MTE2, Pipe::V);
    e.waitFlag(Pipe::MTE3, Pipe::V);
    for (auto [stage, lowering] : llvm::zip(stages, lowerings)) {
      Value out = stage.getDpsInitOperand(0)->get();
      if (auto fill = dyn_cast<linalg::FillOp>(stage.getOperation())) {
        VDupOp::create(b, e.loc, b.getF64FloatAttr(*getConstant(fill.value())),
                       ubTile(out, slot, tileShape(out, count)));
        continue;
      }
      // A stage over the matrix: tiles of count x cols (row vectors as a
      // column, column vectors as a row); over the row vectors: 1 x count.
      bool matrix = stage.getNumLoops() == rowShape.size() + 1;
      SmallVector<int64_t> full = matrix ? SmallVector<int64_t>{count, cols}
                                         : SmallVector<int64_t>{1, count};
      auto shapeOf = [&](Value value) -> SmallVector<int64_t> {
        switch (buffers.find(value)->second.kind) {
        case Kind::Matrix:
          return full;
        case Kind::Row:
          return matrix ? SmallVector<int64_t>{count, 1}
                        : SmallVector<int64_t>{1, count};
        case Kind::Column:
          return {1, cols};
        }
        return {};
      };
      DenseMap<OpOperand *, Value> tiles;
      for (OpOperand &operand : stage->getOpOperands())
        if (isa<MemRefType>(operand.get().getType()))
          tiles[&operand] = ubTile(operand.get(), slot, shapeOf(operand.get()));
      // (A reduction writes its row vector, one value per row.)
      Value outTile = stage.getNumReductionLoops()
                          ? ubTile(out, slot, {count})
                          : tiles[stage.getDpsInitOperand(0)];
      lowering->computeRows(tiles, full, outTile, tempOffset, tempBytes);
    }
    e.setFlag(Pipe::V, Pipe::MTE2);
    e.setFlag(Pipe::V, Pipe::MTE3);
    e.waitFlag(Pipe::V, Pipe::MTE3);
    for (auto &[value, buffer] : buffers)
      if (buffer.store)
        DmaOp::create(b, e.loc, ubTile(value, slot, tileShape(value, count)),
                      gmRows(value, row, count));
    e.setFlag(Pipe::MTE3, Pipe::V);
  }

  Emitter &e;
  SmallVector<linalg::LinalgOp> stages;
  /// Each generic stage's lowering (a fill has none).
  std::vector<std::optional<VectorLowering>> lowerings;
  llvm::MapVector<Value, Buffer> buffers;
  SmallVector<int64_t> rowShape;
  int64_t rows = 1, cols = 1, tileRows = 1, tempOffset = 0, tempBytes = 0;
};

struct NPULowerKernelsPass
    : public mlir::ms::impl::NPULowerKernelsPassBase<NPULowerKernelsPass> {
  using NPULowerKernelsPassBase::NPULowerKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    cubeType = precision == "f16"    ? Type(b.getF16Type())
               : precision == "bf16" ? Type(b.getBF16Type())
               : precision == "f32"  ? Type(b.getF32Type())
                                     : Type();
    if (!cubeType) {
      module.emitError("expected precision f16, bf16 or f32, found '")
          << precision << "'";
      return signalPassFailure();
    }
    if (!module->hasAttr(kConfigAttrName))
      module->setAttr(kConfigAttrName,
                      getConfigAttr(&getContext(), NpuConfig()));
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && failed(lowerKernel(func)))
        return signalPassFailure();
  }

  LogicalResult lowerKernel(func::FuncOp func) {
    NpuConfig config = getConfig(func);
    // Named ops other than fills become generics (fills stay recognizable
    // as initializations).
    IRRewriter rewriter(func.getContext());
    SmallVector<linalg::LinalgOp> named;
    func.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp, linalg::FillOp>(op))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op)))
        return op->emitError("the npu target cannot lower '")
               << op->getName() << "'";
    }
    SmallVector<Operation *> stages;
    for (Operation &op : func.getBody().front()) {
      if (isa<linalg::LinalgOp>(op)) {
        stages.push_back(&op);
        continue;
      }
      if (isMemoryEffectFree(&op) ||
          isa<memref::AllocOp, memref::DeallocOp, func::ReturnOp>(op))
        continue;
      return op.emitError("the npu target cannot lower '")
             << op.getName() << "' (only linalg ops run on the npu)";
    }
    // Widened narrow weights: the contractions read the narrow ones, and
    // the widenings are no steps.
    DenseMap<Value, Value> narrowOf;
    SmallVector<Operation *> steps;
    for (Operation *stage : stages) {
      auto generic = dyn_cast<linalg::GenericOp>(stage);
      if (Value narrow = generic ? getNarrowSource(generic, stages) : Value())
        narrowOf[generic.getDpsInitOperand(0)->get()] = narrow;
      else
        steps.push_back(stage);
    }
    if (failed(lowerSteps(steps, config, narrowOf)))
      return failure();
    for (Operation *stage : stages)
      stage->erase();
    // Scratch buffers no step uses any more (a widened weight, a result
    // fused into its epilogue) are not allocated.
    SmallVector<memref::AllocOp> allocs(func.getOps<memref::AllocOp>());
    for (memref::AllocOp alloc : allocs) {
      if (!llvm::all_of(alloc->getUsers(), llvm::IsaPred<memref::DeallocOp>))
        continue;
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        user->erase();
      alloc.erase();
    }
    return success();
  }

  /// Lowers `stages` (the kernel's linalg ops in order, widenings of narrow
  /// weights left out: `narrowOf`) to steps.
  LogicalResult lowerSteps(ArrayRef<Operation *> stages,
                           const NpuConfig &config,
                           const DenseMap<Value, Value> &narrowOf) {
    OpBuilder b(&getContext());
    bool first = true;
    KnownContents known;
    for (unsigned i = 0; i < stages.size(); ++i) {
      // A run of row-local stages (softmax, norms) in one step when it
      // fits.
      SmallVector<linalg::LinalgOp> run = RowFusion::findRun(stages, i);
      if (!run.empty()) {
        // (At the last stage: every buffer of the run is defined there.)
        b.setInsertionPoint(run.back());
        Operation *barrier = nullptr;
        if (!first)
          barrier = CoreBarrierOp::create(b, stages[i]->getLoc());
        Emitter emitter(b, stages[i]->getLoc(), config);
        if (succeeded(RowFusion(emitter, run).run())) {
          for (linalg::LinalgOp stage : run)
            known.update(stage);
          first = false;
          i += run.size() - 1;
          continue;
        }
        if (barrier)
          barrier->erase();
      }
      auto linalgOp = cast<linalg::LinalgOp>(stages[i]);
      auto fill = dyn_cast<linalg::FillOp>(stages[i]);
      std::optional<double> identity = getInitIdentity(linalgOp);
      bool init =
          identity &&
          known.lookup(linalgOp.getDpsInitOperand(0)->get()) == identity;
      known.update(linalgOp);
      // A fill of the identity just before the op that accumulates into it
      // is that op's initialization: it need not run (unless that op starts
      // a run of rows, which would not see it).
      if (fill && i + 1 < stages.size() &&
          RowFusion::findRun(stages, i + 1).empty()) {
        auto next = cast<linalg::LinalgOp>(stages[i + 1]);
        Value filled = fill.getDpsInitOperand(0)->get();
        std::optional<double> starts = getInitIdentity(next);
        if (next.getDpsInitOperand(0)->get() == filled && starts &&
            known.lookup(filled) == starts)
          continue;
      }
      b.setInsertionPoint(stages[i]);
      if (!first)
        CoreBarrierOp::create(b, stages[i]->getLoc());
      first = false;
      Emitter emitter(b, stages[i]->getLoc(), config);
      LogicalResult lowered = failure();
      if (fill) {
        lowered = lowerFill(emitter, fill);
      } else if (linalg::isaContractionOpInterface(linalgOp)) {
        // An elementwise op on the result runs on its tiles in UB (fused)
        // when it can, else as a step of its own.
        auto next = i + 1 < stages.size()
                        ? dyn_cast<linalg::GenericOp>(stages[i + 1])
                        : linalg::GenericOp();
        std::optional<VectorLowering> epilogue;
        if (init && next && isEpilogue(linalgOp, next)) {
          epilogue.emplace(emitter, next, /*outputIsIdentity=*/false);
          Value result = linalgOp.getDpsInitOperand(0)->get();
          if (failed(epilogue->analyzeEpilogue(result)))
            return failure();
        }
        ContractionLowering cube(emitter, linalgOp, init, cubeType, &narrowOf);
        lowered = cube.prepare(epilogue ? epilogue->cyclesPerElement() : 0.0);
        if (succeeded(lowered) && epilogue && cube.fuse(*epilogue)) {
          known.update(next);
          ++i;
          // At the epilogue, where the buffers it names are defined (only
          // allocations and deallocations lie between the two; the
          // serializer ignores deallocations).
          b.setInsertionPoint(next);
        }
        if (succeeded(lowered))
          cube.emit();
      } else if (auto conv = matchWindowContraction(
                     dyn_cast<linalg::GenericOp>(stages[i]))) {
        lowered = lowerWindowContraction(b, config,
                                         cast<linalg::GenericOp>(stages[i]),
                                         *conv, init, cubeType);
      } else if (auto generic = dyn_cast<linalg::GenericOp>(stages[i])) {
        lowered = VectorLowering(emitter, generic, init).run();
      } else {
        lowered = stages[i]->emitError("the npu target cannot lower '")
                  << stages[i]->getName() << "'";
      }
      if (failed(lowered))
        return failure();
    }
    return success();
  }

  /// A fill that initializes nothing: a generic yielding the constant.
  LogicalResult lowerFill(Emitter &emitter, linalg::FillOp fill) {
    OpBuilder &b = emitter.b;
    Value target = fill.getDpsInitOperand(0)->get();
    auto type = cast<MemRefType>(target.getType());
    SmallVector<AffineMap> maps{
        AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext())};
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    Value value = fill.value();
    auto generic = linalg::GenericOp::create(
        b, fill.getLoc(), TypeRange{}, ValueRange{}, ValueRange{target}, maps,
        iterators, [&](OpBuilder &nested, Location loc, ValueRange) {
          linalg::YieldOp::create(nested, loc, value);
        });
    // The body yields a value from outside: clone its constant in.
    if (auto constant = value.getDefiningOp<arith::ConstantOp>()) {
      OpBuilder inner(generic.getBlock(), generic.getBlock()->begin());
      Operation *copy = inner.clone(*constant);
      generic.getBlock()->getTerminator()->setOperand(0, copy->getResult(0));
    } else {
      generic.erase();
      return fill.emitError("the npu target fills only with constants");
    }
    LogicalResult lowered = VectorLowering(emitter, generic, false).run();
    generic.erase();
    return lowered;
  }

  /// The type the cube multiplies, from the precision option.
  Type cubeType;
};
} // namespace
