//===- ContractionKernels.cpp - register-tiled contraction kernels --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites each f32 contraction (a linalg.generic computing
// `C[...] += A[..., k] * B[..., k]` over one reduction loop k) whose result
// rows are contiguous into a register-tiled kernel: an scf.forall over the
// other loops, the column blocks and the row blocks, each iteration keeping
// a rows x lanes block of C in vector registers across the whole k loop
// (one vector load of B and one broadcast of A per row and k, fused
// multiply-adds) and writing it once. The columns block is outside the rows
// block, so a panel of B stays in cache while the rows of A stream by. A
// long reduction runs in blocks of k inside each iteration of one forall
// over panels of B (each iteration a slab of C), so that threads never
// wait for each other between blocks: ResNet's 7x7 convolutions (k = 4608
// in 9 blocks) took 0.72 ms with a forall per block, 0.55 ms so. A panel
// of B whose rows lie a multiple of 4 KiB apart is copied contiguous per
// block of k first (those rows share cache sets).
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "PairContraction.h"
#include "WindowIndexing.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir::ms {
#define GEN_PASS_DEF_CPUCONTRACTIONKERNELSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// How a contraction maps onto the register-tiled kernel.
struct ContractionPlan {
  /// The loops: the reduction, the row loop (in A and C, not in B), the
  /// first column loop, and the other parallel loops (one iteration each).
  unsigned k, m, n;
  SmallVector<unsigned> outer;
  /// The column loops: C's trailing loops, B's trailing loops in the same
  /// order, not in A; the kernel sees them as one loop (their dims merged).
  SmallVector<unsigned> columnLoops;
  /// The number of columns (the column loops' extents multiplied).
  int64_t columnCount = 0;
  /// The operand numbers of A (has m and k) and B (has n and k).
  unsigned a, b;
  /// Rows and columns of one register block.
  int64_t rows, columns;
  /// Rows left after the last full block of rows (a block of their own),
  /// or 0.
  int64_t rowTail = 0;
  /// Whether the row blocks are the outer forall dim: with few column
  /// blocks (a conv's small output), A is the larger operand, and each of
  /// its row blocks is then read once, not once per column block.
  bool rowsOuter = false;
  /// The reduction's block size when it is split into blocks, else 0.
  int64_t kBlock = 0;
  /// The k loop's unroll factor: A's index with k = c * kUnroll + j for a
  /// constant j has no quotient or remainder of c (a conv's input read in
  /// place, k the digits (channel, window row, window column)), so each
  /// unrolled step reads A at a constant offset. 1 when there is none.
  int64_t kUnroll = 1;
  /// The elementwise op applied to the result in registers, if any.
  linalg::GenericOp epilogue;
  /// B = [k, columns] as stored in panels `[columns / c, k, c]`
  /// (ms-cpu-pack-weights), which the kernel reads instead, or null.
  Value panels;
  /// A contraction in pair form (PairContraction.h): A and B bf16, k over
  /// the pairs, loop `t` over a pair's two elements (each operand's last
  /// index); the kernel runs its k loop by pairs (bf16 dot products).
  bool pairs = false;
  unsigned t = 0;
  /// In pair form, B stored in panels `[columns / w, K / 2, w, 2]`, read as
  /// `(n floordiv w, k, n mod w, t)`: w; else 0 (B's map a projected
  /// permutation).
  int64_t pairPanelWidth = 0;
};
} // namespace

/// Returns the loop that result `i` of `map` is, or -1 if it is not a loop.
static int64_t loopAt(AffineMap map, unsigned i) {
  auto d = dyn_cast<AffineDimExpr>(map.getResult(i));
  return d ? static_cast<int64_t>(d.getPosition()) : -1;
}

/// Whether `map` reads loop `loop`.
static bool reads(AffineMap map, unsigned loop) {
  return map.isFunctionOfDim(loop);
}

/// Returns the panels `[N / c, K, c]` that `b`, a `[K, N]` matrix, was
/// unpacked from (ms-cpu-pack-weights: their transpose `[K, N / c, c]`,
/// reshaped), or null.
static Value findPanels(Value b) {
  auto type = cast<RankedTensorType>(b.getType());
  if (type.getRank() != 2)
    return nullptr;
  // Reshapes keep the elements' row-major order.
  Value split = b;
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      split.getDefiningOp()))
    split = split.getDefiningOp()->getOperand(0);
  auto splitType = cast<RankedTensorType>(split.getType());
  if (splitType.getRank() != 3 || !splitType.hasStaticShape() ||
      splitType.getDimSize(0) != type.getDimSize(0) ||
      splitType.getDimSize(1) * splitType.getDimSize(2) != type.getDimSize(1))
    return nullptr;
  // The transpose, as linalg.transpose or as a generic copy.
  if (auto transpose = split.getDefiningOp<linalg::TransposeOp>())
    return transpose.getPermutation() == ArrayRef<int64_t>{1, 0, 2}
               ? transpose.getInput()
               : nullptr;
  auto generic = split.getDefiningOp<linalg::GenericOp>();
  if (!generic)
    return nullptr;
  std::optional<SmallVector<int64_t>> permutation =
      linalg::isaTransposeOpInterface(generic);
  if (!permutation || *permutation != ArrayRef<int64_t>{1, 0, 2})
    return nullptr;
  return generic.getDpsInputOperand(0)->get();
}

/// Whether `generic` only extends its one input to f32 (arith.extf).
static bool isExtension(linalg::GenericOp generic) {
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || !generic.hasPureTensorSemantics() ||
      generic.getNumReductionLoops() != 0)
    return false;
  Block &body = generic.getRegion().front();
  auto extend = dyn_cast<arith::ExtFOp>(body.front());
  return extend && extend.getIn() == body.getArgument(0) &&
         body.getTerminator()->getOperand(0) == extend.getResult();
}

/// Returns the bf16 pairs `[N / c, K / 2, 2c]` that `v`, `[N / c, K / 2,
/// c, 2]`, was split from, or null.
static Value splitPairs(Value v) {
  auto expand = v.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getReassociationIndices() !=
                     SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}})
    return nullptr;
  auto pairsType = cast<RankedTensorType>(expand.getSrc().getType());
  if (!pairsType.getElementType().isBF16() || !pairsType.hasStaticShape() ||
      expand.getResultType().getDimSize(3) != 2)
    return nullptr;
  return expand.getSrc();
}

/// Returns the bf16 pairs of panel rows `[N / c, K / 2, 2c]` that `b`, a
/// `[K, N]` f32 matrix, was unpacked from (ms-cpu-pack-weights with
/// precision=bf16: split to `[N / c, K / 2, c, 2]`, transposed to `[N / c,
/// K / 2, 2, c]`, collapsed to panels `[N / c, K, c]`, extended to f32,
/// unpacked as panels), or null. Two forms: the ops one by one (no
/// fusion, O0), or the split, transposed to `[K / 2, 2, N / c, c]` and
/// extended in one generic, collapsed (fused).
static Value findPairPanels(Value b) {
  if (Value panels = findPanels(b)) {
    auto generic = panels.getDefiningOp<linalg::GenericOp>();
    if (!isExtension(generic) ||
        !llvm::all_of(generic.getIndexingMapsArray(),
                      [](AffineMap map) { return map.isIdentity(); }))
      return nullptr;
    auto collapse = generic.getDpsInputOperand(0)
                        ->get()
                        .getDefiningOp<tensor::CollapseShapeOp>();
    if (!collapse || collapse.getReassociationIndices() !=
                         SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}})
      return nullptr;
    auto transpose = collapse.getSrc().getDefiningOp<linalg::TransposeOp>();
    if (!transpose ||
        transpose.getPermutation() != ArrayRef<int64_t>{0, 1, 3, 2})
      return nullptr;
    return splitPairs(transpose.getInput());
  }
  auto collapse = b.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getReassociationIndices() !=
                       SmallVector<ReassociationIndices>{{0, 1}, {2, 3}})
    return nullptr;
  auto generic = collapse.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!isExtension(generic))
    return nullptr;
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (maps[0] != AffineMap::get(4, 0, {d2, d0, d3, d1}, ctx) ||
      !maps[1].isIdentity())
    return nullptr;
  return splitPairs(generic.getDpsInputOperand(0)->get());
}

/// Returns `map` with loop `k` replaced by `k * unroll + j` (simplified as
/// the expressions are built; simplifyAffineMap would turn `(d mod 7) * 2`
/// into `d * 2 - (d floordiv 7) * 14`, which emitIndex cannot compute).
static AffineMap unrollK(AffineMap map, unsigned k, int64_t unroll, int64_t j) {
  MLIRContext *ctx = map.getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned i = 0; i < map.getNumDims(); ++i)
    dims.push_back(getAffineDimExpr(i, ctx));
  dims[k] = dims[k] * unroll + j;
  return map.replaceDimsAndSymbols(dims, {}, map.getNumDims(), 0);
}

/// Returns the divisors of the quotients and remainders of loop `k` in
/// `map`'s results (0 for one that is not a constant).
static SmallVector<int64_t> divisorsOfK(AffineMap map, unsigned k) {
  SmallVector<int64_t> divisors;
  for (AffineExpr result : map.getResults())
    result.walk([&](AffineExpr expr) {
      auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
      if (!bin || !bin.getLHS().isFunctionOfDim(k) ||
          (bin.getKind() != AffineExprKind::FloorDiv &&
           bin.getKind() != AffineExprKind::Mod))
        return;
      auto c = dyn_cast<AffineConstantExpr>(bin.getRHS());
      divisors.push_back(c ? c.getValue() : 0);
    });
  return divisors;
}

/// Returns the k loop's unroll factor for A's map (ContractionPlan::kUnroll):
/// the least common multiple of the divisors of k's quotients and
/// remainders in `aMap`, if it divides the reduction's `length`, is at most
/// 64, and leaves no quotient or remainder of k once unrolled; else 1.
static int64_t kUnrollFor(AffineMap aMap, unsigned k, int64_t length) {
  int64_t unroll = 1;
  for (int64_t divisor : divisorsOfK(aMap, k))
    unroll = std::lcm(unroll, divisor);
  if (unroll <= 1 || unroll > 64 || length % unroll != 0)
    return 1;
  for (int64_t j = 0; j < unroll; ++j) {
    AffineMap step = unrollK(aMap, k, unroll, j);
    if (!divisorsOfK(step, k).empty() ||
        !llvm::all_of(step.getResults(), isUnsignedIndex))
      return 1;
  }
  return unroll;
}

/// Returns the width w of B's pair panels if `bMap` (t dropped) reads them
/// as `(n floordiv w, k, n mod w)` for one loop n, else 0.
static int64_t pairPanelWidthOf(AffineMap bMap, unsigned k, unsigned &n) {
  if (bMap.getNumResults() != 3 || loopAt(bMap, 1) != static_cast<int64_t>(k))
    return 0;
  auto quotient = dyn_cast<AffineBinaryOpExpr>(bMap.getResult(0));
  auto remainder = dyn_cast<AffineBinaryOpExpr>(bMap.getResult(2));
  if (!quotient || !remainder ||
      quotient.getKind() != AffineExprKind::FloorDiv ||
      remainder.getKind() != AffineExprKind::Mod ||
      quotient.getLHS() != remainder.getLHS() ||
      quotient.getRHS() != remainder.getRHS() ||
      !isa<AffineDimExpr>(quotient.getLHS()) ||
      !isa<AffineConstantExpr>(quotient.getRHS()))
    return 0;
  n = cast<AffineDimExpr>(quotient.getLHS()).getPosition();
  return cast<AffineConstantExpr>(quotient.getRHS()).getValue();
}

/// Plans `op`, or returns std::nullopt if it is not a contraction this
/// kernel covers: an f32 multiply-accumulate, or a contraction in pair form
/// (PairContraction.h; its loop t left out of the plan's loops).
static std::optional<ContractionPlan> planContraction(linalg::GenericOp op,
                                                      int64_t lanes,
                                                      int64_t maxRows,
                                                      int64_t maxK) {
  ContractionPlan plan;
  plan.pairs = isPairContraction(op);
  if (!plan.pairs) {
    if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
        !op.hasPureTensorSemantics() || !isMultiplyAccumulate(op))
      return std::nullopt;
    for (Type type : op->getOperandTypes())
      if (!cast<ShapedType>(type).getElementType().isF32())
        return std::nullopt;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // (In pair form the inputs' maps without t, their last result.)
  unsigned loops = ranges.size();
  if (plan.pairs) {
    plan.t = --loops;
    for (unsigned i = 0; i < 2; ++i)
      maps[i] = maps[i].dropResult(maps[i].getNumResults() - 1);
  }
  // (A may read a conv's input in place, through any index expression:
  // checked below, once A and B are known.)
  if (!maps[2].isProjectedPermutation(/*allowZeroInResults=*/false))
    return std::nullopt;
  int reductions = 0;
  for (unsigned i = 0; i < loops; ++i)
    if (iterators[i] == utils::IteratorType::reduction) {
      plan.k = i;
      ++reductions;
    }
  AffineMap out = maps[2];
  unsigned outRank = out.getNumResults();
  if (reductions != 1 || outRank != loops - 1 || outRank < 2)
    return std::nullopt;
  // Columns: C's innermost loop, innermost in B too, and the loops before
  // it in both (a conv's output rows and columns), not in A. (B in pair
  // panels: the one loop its panels split.)
  int64_t last = loopAt(out, outRank - 1);
  plan.b = 2;
  unsigned panelLoop = 0;
  for (unsigned i = 0; i < 2 && plan.pairs; ++i)
    if (int64_t w = pairPanelWidthOf(maps[i], plan.k, panelLoop))
      if (static_cast<int64_t>(panelLoop) == last) {
        plan.b = i;
        plan.pairPanelWidth = w;
      }
  for (unsigned i = 0; i < 2 && !plan.pairPanelWidth; ++i) {
    AffineMap map = maps[i];
    if (map.getNumResults() > 0 &&
        loopAt(map, map.getNumResults() - 1) == last)
      plan.b = i;
  }
  if (plan.b == 2 || last < 0)
    return std::nullopt;
  plan.a = 1 - plan.b;
  AffineMap aMap = maps[plan.a], bMap = maps[plan.b];
  if ((!plan.pairPanelWidth &&
       !bMap.isProjectedPermutation(/*allowZeroInResults=*/false)) ||
      !llvm::all_of(aMap.getResults(), isUnsignedIndex))
    return std::nullopt;
  if (!reads(aMap, plan.k) || !reads(bMap, plan.k))
    return std::nullopt;
  unsigned bRank = bMap.getNumResults();
  unsigned run = 0;
  if (plan.pairPanelWidth) {
    run = reads(aMap, last) ? 0 : 1;
  } else {
    while (run + 1 < outRank && run < bRank) {
      int64_t loop = loopAt(out, outRank - 1 - run);
      if (loop < 0 || loop != loopAt(bMap, bRank - 1 - run) ||
          reads(aMap, loop))
        break;
      ++run;
    }
  }
  if (run == 0)
    return std::nullopt;
  plan.columnCount = 1;
  for (unsigned i = outRank - run; i < outRank; ++i) {
    plan.columnLoops.push_back(loopAt(out, i));
    plan.columnCount *= ranges[loopAt(out, i)];
  }
  plan.n = plan.columnLoops.front();
  // Rows: the loop of C closest to the columns that A reads and B does not.
  int64_t m = -1;
  for (int64_t i = outRank - run - 1; i >= 0 && m < 0; --i) {
    unsigned loop = loopAt(out, i);
    if (reads(aMap, loop) && !reads(bMap, loop))
      m = loop;
  }
  if (m < 0)
    return std::nullopt;
  plan.m = m;
  for (unsigned i = 0; i < loops; ++i)
    if (i != plan.k && i != plan.m && !llvm::is_contained(plan.columnLoops, i))
      plan.outer.push_back(i);
  // Blocks of two vectors of columns, one vector when that divides the
  // count and two do not or when there are at most one vector's worth (the
  // last block is partial when neither divides); the tallest block of
  // rows that divides the extent.
  if (plan.columnCount % (2 * lanes) == 0 ||
      (plan.columnCount % lanes != 0 && plan.columnCount > lanes))
    plan.columns = 2 * lanes;
  else
    plan.columns = lanes;
  // (Pair panels hold whole blocks of columns.)
  if (plan.pairPanelWidth && plan.pairPanelWidth % plan.columns != 0)
    return std::nullopt;
  // Blocks of rows: the tallest that divides the rows; when that is short
  // (at most 4 rows: too few accumulators to hide the FMA latency, as for
  // 197 rows or 1024 in blocks of up to 6), full blocks and a last, shorter
  // one.
  plan.rows = 1;
  for (int64_t r = maxRows; r >= 1; --r)
    if (ranges[plan.m] % r == 0) {
      plan.rows = r;
      break;
    }
  if (plan.rows <= 4 && plan.rows < maxRows && ranges[plan.m] > maxRows) {
    plan.rows = maxRows;
    plan.rowTail = ranges[plan.m] % maxRows;
  }
  plan.rowsOuter = llvm::divideCeil(plan.columnCount, plan.columns) <= 4;
  plan.kUnroll = kUnrollFor(aMap, plan.k, ranges[plan.k]);
  // B stored in panels of whole column blocks: read there.
  if (!plan.pairs && run == 1 && bRank == 2 && loopAt(bMap, 0) == plan.k)
    if (Value panels = findPanels(op.getDpsInputOperand(plan.b)->get()))
      if (cast<RankedTensorType>(panels.getType()).getDimSize(2) %
              plan.columns ==
          0)
        plan.panels = panels;
  // A reduction longer than maxK runs in blocks: the largest divisor of
  // its length from 3/4 maxK to maxK (none: one block; shorter blocks cost
  // more in passes over C than they save: K = 576 in two blocks of 288 ran
  // 25% slower than in one), a multiple of the unrolled step (from maxK / 2
  // then: ResNet's 7x7 convs, K = 4608 in blocks of 288). (In pair form k
  // counts pairs: blocks of maxK / 2 pairs.)
  if (plan.pairs)
    maxK /= 2;
  int64_t minK = plan.kUnroll > 1 ? maxK / 2 : maxK * 3 / 4;
  if (!plan.rowsOuter && maxK > 0 && ranges[plan.k] > maxK)
    for (int64_t kb = maxK; kb >= std::max<int64_t>(1, minK); --kb)
      if (ranges[plan.k] % kb == 0 && kb % plan.kUnroll == 0) {
        plan.kBlock = kb;
        break;
      }
  return plan;
}

/// Returns the bf16 pairs `[N / c, K / 2, 2c]` (ms-cpu-pack-weights,
/// precision=bf16) that `plan`'s B, an f32 `[K, N]` matrix, was unpacked
/// from, when A is f32 with k innermost (each row's pairs of k adjacent
/// once rounded): such a contraction runs in pair form; else null.
static Value findWeightPairs(linalg::GenericOp op,
                             const ContractionPlan &plan) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap aMap = maps[plan.a], bMap = maps[plan.b];
  if (plan.pairs || plan.columnLoops.size() != 1 || bMap.getNumResults() != 2 ||
      loopAt(bMap, 0) != plan.k || plan.kUnroll != 1 ||
      op.getStaticLoopRanges()[plan.k] % 2 != 0 ||
      !aMap.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      loopAt(aMap, aMap.getNumResults() - 1) != static_cast<int64_t>(plan.k))
    return nullptr;
  return findPairPanels(op.getDpsInputOperand(plan.b)->get());
}

/// Rewrites `op` (planned as `plan`) whose B was unpacked from bf16 pairs
/// of panel rows `pairs` (findWeightPairs) into pair form: A rounded to
/// bf16 once, both read by pairs of k. Returns the new contraction.
static linalg::GenericOp rewriteWeightPairs(RewriterBase &rewriter,
                                            linalg::GenericOp op,
                                            const ContractionPlan &plan,
                                            Value pairs) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  rewriter.setInsertionPoint(op);
  Value a = op.getDpsInputOperand(plan.a)->get();
  int64_t aRank = cast<RankedTensorType>(a.getType()).getRank();
  a = splitIntoPairs(rewriter, loc, roundToBF16(rewriter, loc, a), aRank - 1);
  auto pairsType = cast<RankedTensorType>(pairs.getType());
  int64_t width = pairsType.getDimSize(2) / 2;
  Value b = splitIntoPairs(rewriter, loc, pairs, 2);
  // Loops: op's (k now over pairs), then t.
  unsigned loops = op.getNumLoops();
  AffineExpr t = getAffineDimExpr(loops, ctx),
             n = getAffineDimExpr(plan.n, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<AffineExpr> aExprs(maps[plan.a].getResults());
  aExprs.push_back(t);
  AffineMap aMap = AffineMap::get(loops + 1, 0, aExprs, ctx);
  AffineMap bMap = AffineMap::get(
      loops + 1, 0,
      {n.floorDiv(width), getAffineDimExpr(plan.k, ctx), n % width, t}, ctx);
  AffineMap cMap = AffineMap::get(loops + 1, 0, maps[2].getResults(), ctx);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::reduction);
  SmallVector<AffineMap> pairMaps =
      plan.a == 0 ? SmallVector<AffineMap>{aMap, bMap, cMap}
                  : SmallVector<AffineMap>{bMap, aMap, cMap};
  Value first = plan.a == 0 ? a : b, second = plan.a == 0 ? b : a;
  linalg::GenericOp pairOp = createPairContraction(
      rewriter, loc, first, second, op.getDpsInitOperand(0)->get(), pairMaps,
      iterators);
  rewriter.replaceOp(op, pairOp->getResults());
  return pairOp;
}

//===----------------------------------------------------------------------===//
// Convolutions as contractions
//===----------------------------------------------------------------------===//

/// The most columns of a row built as one vector (buildRows): wider rows are
/// built in chunks, so that no vector grows with the tensor.
static constexpr int64_t kMaxRowChunk = 256;

/// Builds the columns `[column, column + width)` of the row at `ivs` (a
/// vector of `step` times `width` elements, see buildRows).
using RowChunkFn =
    function_ref<Value(OpBuilder &, ArrayRef<Value>, Value, int64_t)>;

/// Returns a tensor of `shape` and element type `elem` whose row at `ivs`
/// (its indices but the last) is built by `chunk`, `step` elements for each
/// of its columns (the row's `shape.back() / step`), at most kMaxRowChunk
/// columns at a time: one scf.forall over the rows, each iteration writing
/// its row (an scf.for over the chunks of a wide row, then the rest).
static Value buildRows(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                       Type elem, RowChunkFn chunk, int64_t step = 1) {
  int64_t extent = shape.back();
  int64_t columns = extent / step;
  Value init = tensor::EmptyOp::create(b, loc, shape, elem);
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (int64_t size : shape.drop_back()) {
    lbs.push_back(b.getIndexAttr(0));
    ubs.push_back(b.getIndexAttr(size));
    steps.push_back(b.getIndexAttr(1));
  }
  auto forall = scf::ForallOp::create(b, loc, lbs, ubs, steps, ValueRange{init},
                                      std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> ivs = forall.getInductionVars();
  Value dest = forall.getRegionOutArgs()[0];
  SmallVector<OpFoldResult> offsets, sizes, strides;
  rowSlice(b, ivs, extent, offsets, sizes, strides);
  // The row's slice keeps its unit dims: rank-reduced to one dim, a row of
  // one element could keep a unit dim other than the contiguous one.
  SmallVector<int64_t> rowShape(shape.size(), 1);
  rowShape.back() = extent;
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(rowShape, elem), dest, offsets, sizes,
      strides);
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  // Writes the columns from `column` on, `width` of them, into `tile`.
  auto writeChunk = [&](OpBuilder &b, Value tile, Value column,
                        int64_t width) -> Value {
    Value value = chunk(b, ivs, column, width);
    SmallVector<Value> idx(shape.size() - 1, c0);
    idx.push_back(step == 1 ? column
                            : arith::MulIOp::create(
                                  b, loc, column,
                                  arith::ConstantIndexOp::create(b, loc, step))
                                  .getResult());
    return vector::TransferWriteOp::create(b, loc, value, tile, idx,
                                           ArrayRef<bool>{true})
        .getResult();
  };
  int64_t width = std::min(columns, kMaxRowChunk);
  int64_t full = columns / width * width;
  if (full == width) {
    tile = writeChunk(b, tile, c0, width);
  } else {
    auto loop = scf::ForOp::create(
        b, loc, c0, arith::ConstantIndexOp::create(b, loc, full),
        arith::ConstantIndexOp::create(b, loc, width), ValueRange{tile},
        [&](OpBuilder &b, Location loc, Value column, ValueRange args) {
          scf::YieldOp::create(b, loc, writeChunk(b, args[0], column, width));
        });
    tile = loop.getResult(0);
  }
  if (full < columns)
    tile = writeChunk(b, tile, arith::ConstantIndexOp::create(b, loc, full),
                      columns - full);
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, tile, dest, offsets, sizes,
                                        strides);
  return forall.getResult(0);
}

/// The im2col copy `col[colLoops...] = input[inMap(loops)]`, one row of
/// output positions (the innermost window loop, read with stride `stride`
/// from the input's innermost dim) at a time (buildRows): a contiguous
/// read (every `stride`-th element kept by a shuffle) and a write.
static Value buildIm2Col(OpBuilder &b, Location loc, Value input,
                         AffineMap inMap, ArrayRef<unsigned> colLoops,
                         ArrayRef<int64_t> ranges, int64_t stride) {
  SmallVector<int64_t> shape;
  for (unsigned loop : colLoops)
    shape.push_back(ranges[loop]);
  return buildRows(
      b, loc, shape, b.getF32Type(),
      [&](OpBuilder &b, ArrayRef<Value> ivs, Value column, int64_t width) {
        SmallVector<Value> loopValues(ranges.size());
        for (auto [i, iv] : llvm::enumerate(ivs))
          loopValues[colLoops[i]] = iv;
        loopValues[colLoops.back()] = column;
        SmallVector<Value> idx;
        for (AffineExpr expr : inMap.getResults())
          idx.push_back(emitIndex(b, loc, expr, loopValues));
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        // The row of positions, which the convolution reads in bounds.
        return readStridedRow(b, loc, input, idx, width, stride, zero);
      });
}

/// Reads the f32 columns `[column, column + width)` of the row at `ivs`
/// of a pair's row `t` (see buildPairRows).
using PairRowFn =
    function_ref<Value(OpBuilder &, ArrayRef<Value>, int64_t, Value, int64_t)>;

/// Returns a bf16 tensor of `shape` (the last dim its rows' pairs: `[...,
/// width, 2]`) whose row at `ivs` (its indices but the last) holds the f32
/// rows `readRow(ivs, 0, ...)` and `readRow(ivs, 1, ...)` interleaved and
/// rounded to bf16 (buildRows, in chunks of columns).
static Value buildPairRows(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                           PairRowFn readRow) {
  Type bf16 = b.getBF16Type();
  // (Built with the rows' pairs flat: `[..., 2 width]`.)
  SmallVector<int64_t> flat(shape.drop_back(1));
  flat.back() *= 2;
  Value rows = buildRows(
      b, loc, flat, bf16,
      [&](OpBuilder &b, ArrayRef<Value> ivs, Value column, int64_t width) {
        Value even = readRow(b, ivs, 0, column, width);
        Value odd = readRow(b, ivs, 1, column, width);
        return arith::TruncFOp::create(
            b, loc, VectorType::get({2 * width}, bf16),
            vector::InterleaveOp::create(b, loc, even, odd));
      },
      /*step=*/2);
  // The last dim split into the row and t.
  return splitIntoPairs(b, loc, rows, flat.size() - 1);
}

/// The im2col copy in bf16 pairs: `col[p_in..., c, o..., t] =
/// input[inMap(loops)]` for the reductions' merged index k = 2c + t (their
/// digits, the last fastest; zeros for k past an odd reduction's end) and
/// the output positions o, the last of which the input's innermost dim
/// reads with stride `stride`; `colLoops` as buildIm2Col's (the input's
/// other loops, the `reductions` reductions, the windows). Each row of
/// positions holds a pair's two rows interleaved.
static Value buildPairIm2Col(OpBuilder &b, Location loc, Value input,
                             AffineMap inMap, ArrayRef<unsigned> colLoops,
                             unsigned outer, unsigned reductions,
                             ArrayRef<int64_t> ranges, int64_t stride) {
  int64_t merged = 1;
  for (unsigned i = outer; i < outer + reductions; ++i)
    merged *= ranges[colLoops[i]];
  // The other loops, the pairs, the windows, t.
  SmallVector<int64_t> shape;
  for (unsigned i = 0; i < outer; ++i)
    shape.push_back(ranges[colLoops[i]]);
  shape.push_back((merged + 1) / 2);
  for (unsigned i = outer + reductions; i < colLoops.size(); ++i)
    shape.push_back(ranges[colLoops[i]]);
  shape.push_back(2);
  return buildPairRows(
      b, loc, shape,
      [&](OpBuilder &b, ArrayRef<Value> ivs, int64_t t, Value column,
          int64_t width) {
        SmallVector<Value> loopValues(ranges.size());
        for (unsigned i = 0; i < outer; ++i)
          loopValues[colLoops[i]] = ivs[i];
        for (unsigned i = outer + reductions; i + 1 < colLoops.size(); ++i)
          loopValues[colLoops[i]] = ivs[i - reductions + 1];
        loopValues[colLoops.back()] = column;
        // k = 2 pair + t, split into the reductions' digits. (The last
        // pair's second k of an odd reduction is past its end: the row is
        // read at its last k and replaced by zeros.)
        Value k = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, ivs[outer],
                                  arith::ConstantIndexOp::create(b, loc, 2)),
            arith::ConstantIndexOp::create(b, loc, t));
        Value inside;
        if (t == 1 && merged % 2 != 0) {
          Value end = arith::ConstantIndexOp::create(b, loc, merged);
          inside =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, k, end);
          k = arith::MinUIOp::create(
              b, loc, k, arith::ConstantIndexOp::create(b, loc, merged - 1));
        }
        for (unsigned i = outer + reductions; i-- > outer;) {
          Value extent =
              arith::ConstantIndexOp::create(b, loc, ranges[colLoops[i]]);
          loopValues[colLoops[i]] =
              i == outer ? k : Value(arith::RemUIOp::create(b, loc, k, extent));
          k = arith::DivUIOp::create(b, loc, k, extent);
        }
        SmallVector<Value> idx;
        for (AffineExpr expr : inMap.getResults())
          idx.push_back(emitIndex(b, loc, expr, loopValues));
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        Value row = readStridedRow(b, loc, input, idx, width, stride, zero);
        if (inside)
          row = arith::SelectOp::create(
              b, loc, inside, row,
              vector::BroadcastOp::create(b, loc, row.getType(), zero));
        return row;
      });
}

/// `input` (f32) with dim `dim` (not its last) in bf16 pairs:
/// `pairs[..., c, ..., t] = input[..., 2c + t, ...]`, t a new last dim;
/// each row holds the rows of a pair's two elements interleaved.
static Value buildChannelPairs(OpBuilder &b, Location loc, Value input,
                               unsigned dim) {
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= 2;
  shape.push_back(2);
  return buildPairRows(
      b, loc, shape,
      [&](OpBuilder &b, ArrayRef<Value> ivs, int64_t t, Value column,
          int64_t width) {
        SmallVector<Value> idx(ivs);
        idx.push_back(column);
        idx[dim] = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, ivs[dim],
                                  arith::ConstantIndexOp::create(b, loc, 2)),
            arith::ConstantIndexOp::create(b, loc, t));
        Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
        return vector::TransferReadOp::create(
                   b, loc, VectorType::get({width}, b.getF32Type()), input, idx,
                   zero, ArrayRef<bool>{true})
            .getResult();
      });
}

/// Whether `op` computes on f16 data: an op it depends on in its function
/// (an im2col copy's reads too) has an f16 operand.
static bool readsF16(Operation *op) {
  Operation *func = op->getParentOfType<func::FuncOp>();
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  options.omitUsesFromAbove = false;
  options.filter = [&](Operation *other) {
    return func && func->isProperAncestor(other);
  };
  SetVector<Operation *> slice;
  (void)getBackwardSlice(op, &slice, options);
  slice.insert(op);
  return llvm::any_of(slice, [](Operation *other) {
    return llvm::any_of(other->getOperandTypes(), [](Type type) {
      return getElementTypeOrSelf(type).isF16();
    });
  });
}

/// Rewrites `op`, an f32 contraction planned as `plan`, into pair form with
/// both operands rounded to bf16 (--precision bf16): an operand whose
/// innermost index is k split into pairs in place (rounded by one
/// elementwise generic), one that reads k at another index laid out in
/// pairs of its k rows (buildChannelPairs). Returns the new contraction, or
/// null (nothing changed) when k is odd, an operand is read through index
/// expressions, B's innermost index is k (its pairs would not lie along
/// the columns), or it computes on f16 data (readsF16: an f16 model keeps
/// f16's 11 bits of mantissa, not bf16's 8).
static linalg::GenericOp rewriteToPairs(RewriterBase &rewriter,
                                        linalg::GenericOp op,
                                        const ContractionPlan &plan) {
  MLIRContext *ctx = op.getContext();
  if (op.getStaticLoopRanges()[plan.k] % 2 != 0)
    return nullptr;
  if (readsF16(op))
    return nullptr;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineExpr k = getAffineDimExpr(plan.k, ctx);
  auto kPosition = [&](AffineMap map) -> std::optional<unsigned> {
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
    return map.getResultPosition(k);
  };
  std::optional<unsigned> aAt = kPosition(maps[plan.a]),
                          bAt = kPosition(maps[plan.b]);
  if (!aAt || !bAt || *bAt + 1 == maps[plan.b].getNumResults())
    return nullptr;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  unsigned loops = op.getNumLoops();
  SmallVector<Value> pairs(2);
  SmallVector<AffineMap> pairMaps;
  for (unsigned i = 0; i < 2; ++i) {
    Value operand = op.getDpsInputOperand(i)->get();
    unsigned at = i == plan.a ? *aAt : *bAt;
    pairs[i] = at + 1 == maps[i].getNumResults()
                   ? splitIntoPairs(rewriter, loc,
                                    roundToBF16(rewriter, loc, operand), at)
                   : buildChannelPairs(rewriter, loc, operand, at);
    // (The operand's index of k now the pair's; t last.)
    SmallVector<AffineExpr> exprs(maps[i].getResults());
    exprs.push_back(getAffineDimExpr(loops, ctx));
    pairMaps.push_back(AffineMap::get(loops + 1, 0, exprs, ctx));
  }
  pairMaps.push_back(AffineMap::get(loops + 1, 0, maps[2].getResults(), ctx));
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  iterators.push_back(utils::IteratorType::reduction);
  linalg::GenericOp pairOp = createPairContraction(
      rewriter, loc, pairs[0], pairs[1], op.getDpsInitOperand(0)->get(),
      pairMaps, iterators);
  rewriter.replaceOp(op, pairOp->getResults());
  return pairOp;
}

/// Returns the output loops (below `parallel`) that `inMap` reads through
/// window sums (`oh + kh`), in its order, and appends every loop it reads
/// to `inputLoops`; empty if it reads anything but loops and window sums,
/// or a loop twice.
static SmallVector<unsigned>
inputWindows(AffineMap inMap, unsigned parallel,
             SmallVectorImpl<unsigned> &inputLoops) {
  SmallVector<unsigned> windows;
  for (AffineExpr expr : inMap.getResults()) {
    SmallVector<unsigned> terms;
    if (!windowTerms(expr, terms))
      return {};
    for (unsigned loop : terms) {
      if (llvm::is_contained(inputLoops, loop))
        return {};
      inputLoops.push_back(loop);
      if (terms.size() > 1 && loop < parallel)
        windows.push_back(loop);
    }
  }
  return windows;
}

/// Tiles `op`, a convolution whose im2col copy would not stay in cache
/// (over 1 MiB: ResNet's stem and its 56x56 convs write and read 7 MB; none
/// with its weight's channels innermost), by rows of output positions, with its
/// elementwise user and the fill of its output: each tile's copy is at most 640
/// KiB, a multiple of `columns` positions (whole column blocks) where possible,
/// and is read back from L2 by the kernel. At least 8 tiles, for the threads.
static void tileLargeConv(RewriterBase &rewriter, linalg::GenericOp op,
                          int64_t columns) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !isMultiplyAccumulate(op))
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned parallel = maps[2].getNumResults();
  if (op.getNumParallelLoops() != parallel || parallel >= ranges.size())
    return;
  for (unsigned i = 0; i < parallel; ++i)
    if (loopAt(maps[2], i) != i)
      return;
  SmallVector<unsigned> inputLoops;
  SmallVector<unsigned> windows = inputWindows(maps[0], parallel, inputLoops);
  if (windows.size() < 2)
    return;
  // (A weight in bf16 rows makes a copy in bf16; one in bf16 pair panels
  // none, convToIm2Col.)
  BlockArgument pairs;
  if (auto kernel = op->getParentOfType<func::FuncOp>())
    pairs = findMarkedArgument(kernel, op.getDpsInputOperand(1)->get(),
                               kConvPairsAttrName, isRelayout);
  const int64_t bytes = pairs ? 2 : 4;
  int64_t reduction = 1;
  for (unsigned i = parallel; i < ranges.size(); ++i)
    reduction *= ranges[i];
  unsigned rowLoop = windows[windows.size() - 2];
  int64_t width = ranges[windows.back()], height = ranges[rowLoop];
  // A weight with its output channels innermost (ms-cpu-pack-weights), or
  // stored in bf16 pair panels, reads the input in place (convToIm2Col):
  // no im2col copy.
  if (loopAt(maps[1], 0) >= static_cast<int64_t>(parallel) ||
      (pairs && cast<RankedTensorType>(pairs.getType()).getRank() == 3) ||
      reduction * height * width * bytes <= (int64_t(1) << 20))
    return;
  // Whole column blocks per tile if some row count gives them, else a
  // partial last block in each tile: ResNet's 28x28 conv (784 positions,
  // no multiple of 8 rows within 640 KiB) ran 11% faster in tiles of 4
  // rows (112 positions, 3.5 blocks) than with its 3.6 MB copy whole, and
  // faster again in 14 tiles of 2 rows (0.70 -> 0.59-0.65 ms): at least 8
  // tiles, so that 7 against 7 share two threads, not 4 against 3.
  int64_t rows = 0;
  for (bool wholeBlocks : {true, false})
    for (int64_t r = height / 8; r >= 1 && !rows; --r)
      if (height % r == 0 && (!wholeBlocks || r * width % columns == 0) &&
          reduction * r * width * bytes <= 640 * 1024)
        rows = r;
  if (!rows)
    return;
  // Tiled with its elementwise user (the epilogue), which reads it at the
  // same positions.
  TilingInterface anchor = cast<TilingInterface>(op.getOperation());
  unsigned anchorLoop = rowLoop;
  if (op->hasOneUse()) {
    OpOperand &use = *op->use_begin();
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!user || user.getNumReductionLoops() != 0 ||
        !user.hasPureTensorSemantics() || user.isDpsInit(&use))
      return;
    auto dim = dyn_cast<AffineDimExpr>(
        user.getMatchingIndexingMap(&use).getResult(rowLoop));
    if (!dim)
      return;
    anchor = cast<TilingInterface>(user.getOperation());
    anchorLoop = dim.getPosition();
  }
  SmallVector<int64_t> sizes(anchor.getLoopIteratorTypes().size(), 0);
  sizes[anchorLoop] = rows;
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  // The conv and its output's fill go into the tiles; the padded input
  // stays whole.
  options.setFusionControlFn(
      [&](tensor::ExtractSliceOp, OpResult producer,
          bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (producer.getOwner() == op.getOperation() ||
            isa<linalg::FillOp>(producer.getOwner()))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(anchor);
  FailureOr<scf::SCFTileAndFuseResult> tiled =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, anchor, options);
  if (failed(tiled))
    return;
  Value result = anchor->getResult(0);
  rewriter.replaceAllUsesWith(result, tiled->replacements.lookup(result));
  Value init = op.getDpsInitOperand(0)->get();
  if (anchor.getOperation() != op.getOperation())
    rewriter.eraseOp(anchor);
  // The slices of the untiled conv that fusion replaced are dead.
  for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
    if (isa<tensor::ExtractSliceOp>(user) && user->use_empty())
      rewriter.eraseOp(user);
  if (op->use_empty())
    rewriter.eraseOp(op);
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    if (fill->use_empty())
      rewriter.eraseOp(fill);
}

/// Rewrites a convolution (`out[p..., o...] += in[.., o * s + w * d, ..] *
/// weight[.., r...]`: a multiply-accumulate whose input reads window sums
/// of output loops `o` and reduction loops) into an im2col copy
/// (`col[p_in..., r..., o...]`, the input's other loops, the reductions,
/// the output positions) and a contraction of the weight over the merged
/// reductions with it (`out[p..., o...] += weight[.., K] * col[p_in..., K,
/// o...]`), which the register-tiled kernel covers with the output
/// positions as its columns. With the weight's output channels innermost
/// (ms-cpu-pack-weights) the channels are the columns and the positions the
/// rows, and the contraction reads the input in place instead (`in[...,
/// o * s + r_i * d]` with each reduction `r_i` a digit of K), no copy.
/// Unit output loops that only the output reads
/// (a group of one) are dropped from the contraction, and an elementwise
/// user that reads them at index 0 reads the contraction directly.
/// Returns the contraction, or null if `op` is no such convolution.
static linalg::GenericOp convToIm2Col(RewriterBase &rewriter,
                                      linalg::GenericOp op, int64_t minRows) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !isMultiplyAccumulate(op))
    return nullptr;
  for (Type type : op->getOperandTypes())
    if (!cast<ShapedType>(type).getElementType().isF32())
      return nullptr;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return nullptr;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap inMap = maps[0], wMap = maps[1], outMap = maps[2];
  unsigned loops = ranges.size(), parallel = outMap.getNumResults();
  // The output: the parallel loops 0 .. p-1, in order; the reductions
  // after them.
  if (parallel == 0 || parallel >= loops ||
      op.getNumParallelLoops() != parallel ||
      !wMap.isProjectedPermutation() || inMap.isProjectedPermutation())
    return nullptr;
  for (unsigned i = 0; i < parallel; ++i)
    if (loopAt(outMap, i) != i)
      return nullptr;
  // The input: plain loops and window sums; the window's output loops must
  // be the trailing output loops, in order.
  SmallVector<unsigned> inputLoops;
  SmallVector<unsigned> windows = inputWindows(inMap, parallel, inputLoops);
  if (windows.empty() || !llvm::is_sorted(windows))
    return nullptr;
  for (auto [i, loop] : llvm::enumerate(windows))
    if (loop != parallel - windows.size() + i)
      return nullptr;
  // The weight: its reductions are its trailing dims in loop order, or
  // its leading ones (a weight packed with its output channels innermost:
  // ms-cpu-pack-weights), and every reduction is read by the input
  // too.
  unsigned reductions = loops - parallel, wRank = wMap.getNumResults();
  if (wRank <= reductions)
    return nullptr;
  auto reductionsFrom = [&](unsigned first) {
    for (unsigned i = 0; i < reductions; ++i)
      if (loopAt(wMap, first + i) != static_cast<int64_t>(parallel + i) ||
          !llvm::is_contained(inputLoops, parallel + i))
        return false;
    return true;
  };
  bool channelsInnermost = false;
  if (!reductionsFrom(wRank - reductions)) {
    if (!reductionsFrom(0))
      return nullptr;
    channelsInnermost = true;
  }
  // The weight's output loops (its other dims).
  SmallVector<unsigned> wOutLoops;
  for (unsigned i = 0; i < wRank; ++i)
    if (loopAt(wMap, i) < static_cast<int64_t>(parallel))
      wOutLoops.push_back(loopAt(wMap, i));
  // The rows: an output loop of the weight's, not the input's (groups are
  // both's), tall enough to fill a block of registers.
  bool tall = false;
  for (unsigned loop : wOutLoops) {
    if (llvm::is_contained(windows, loop))
      return nullptr;
    tall |= !llvm::is_contained(inputLoops, loop) && ranges[loop] >= minRows;
  }
  // A weight stored in bf16 for pair contractions (ms-cpu-pack-weights
  // precision=bf16, kConvPairsAttrName) is read in place of the unpacked
  // one, by pairs: as pair panels of input channels (with the input in
  // pairs of channels, read in place) or as rows (with an im2col copy in
  // pairs of the merged reduction); the contraction runs in pair form.
  BlockArgument pairArg;
  unsigned channelDim = 0;
  // (The weight's output channels: its one output loop of more than one
  // iteration, or its last; a group loop of one iteration aside.)
  unsigned mLoop = wOutLoops.back();
  int64_t m = 1;
  for (unsigned loop : wOutLoops) {
    m *= ranges[loop];
    if (ranges[loop] > 1)
      mLoop = loop;
  }
  if (auto kernel = op->getParentOfType<func::FuncOp>())
    pairArg = findMarkedArgument(kernel, op.getDpsInputOperand(1)->get(),
                                 kConvPairsAttrName, isRelayout);
  if (pairArg) {
    int64_t channels = ranges[parallel], window = 1;
    for (unsigned loop = parallel + 1; loop < loops; ++loop)
      window *= ranges[loop];
    if (m != ranges[mLoop])
      m = 0;
    auto type = cast<RankedTensorType>(pairArg.getType());
    SmallVector<int64_t> panels = {
        m / kMatmulWeightPanel, channels / 2 * window, 2 * kMatmulWeightPanel};
    // (Pair panels: the input channel a plain index of the input.)
    bool inPlace = false;
    for (auto [i, expr] : llvm::enumerate(inMap.getResults()))
      if (expr == getAffineDimExpr(parallel, op.getContext())) {
        channelDim = i;
        inPlace = true;
      }
    inPlace &= channelDim + 1 < inMap.getNumResults() &&
               m % kMatmulWeightPanel == 0 && channels % 2 == 0 &&
               type.getShape() == ArrayRef<int64_t>(panels);
    int64_t merged = channels * window;
    bool rows = type.getShape() == ArrayRef<int64_t>{m, merged + merged % 2};
    if (!m || (!inPlace && !rows))
      pairArg = nullptr;
    else
      channelsInnermost = inPlace;
  }
  // (A short weight in bf16 rows takes the kernel too, in blocks of its
  // rows: left f32, it would round only the weight.)
  if (!tall && !pairArg)
    return nullptr;

  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  // im2col: loops (the input's other output loops, the reductions, the
  // windows), the input read through its map renumbered.
  SmallVector<unsigned> colLoops;
  for (unsigned loop = 0; loop < parallel; ++loop)
    if (llvm::is_contained(inputLoops, loop) &&
        !llvm::is_contained(windows, loop))
      colLoops.push_back(loop);
  unsigned outer = colLoops.size();
  for (unsigned loop = parallel; loop < loops; ++loop)
    colLoops.push_back(loop);
  colLoops.append(windows.begin(), windows.end());
  // The innermost window loop is read from the input's innermost dim only.
  unsigned innermost = windows.back();
  AffineExpr lastExpr = inMap.getResults().back();
  int64_t stride = coefficientOf(lastExpr, innermost);
  if (stride < 1)
    return nullptr;
  for (AffineExpr expr : inMap.getResults().drop_back())
    if (expr.isFunctionOfDim(innermost))
      return nullptr;
  // The input read with the innermost window loop at 0 (the row's start).
  SmallVector<AffineExpr> rowStart;
  for (unsigned loop = 0; loop < loops; ++loop)
    rowStart.push_back(loop == innermost ? getAffineConstantExpr(0, ctx)
                                         : getAffineDimExpr(loop, ctx));
  AffineMap rowMap = inMap.replaceDimsAndSymbols(rowStart, {}, loops, 0);
  // A weight with its output channels innermost reads the input in place:
  // the kernel broadcasts one input element per row (output position) and
  // k, so no copy is needed (ResNet's 14x14 convs: the 1.8 MB im2col copy
  // took 8% of their time).
  Value input = op.getDpsInputOperand(0)->get();
  Value colValue;
  if (!channelsInnermost && pairArg)
    colValue = buildPairIm2Col(rewriter, loc, input, rowMap, colLoops, outer,
                               reductions, ranges, stride);
  else if (!channelsInnermost)
    colValue =
        buildIm2Col(rewriter, loc, input, rowMap, colLoops, ranges, stride);
  // The reductions merged: col[p_in..., K, o...] and weight[..., K].
  auto mergeGroup = [](int64_t rank, int64_t from, int64_t count) {
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < rank;) {
      groups.emplace_back();
      int64_t size = i == from ? count : 1;
      for (int64_t j = 0; j < size; ++j)
        groups.back().push_back(i++);
    }
    return groups;
  };
  Value col, weight;
  if (pairArg) {
    col = channelsInnermost
              ? buildChannelPairs(rewriter, loc, input, channelDim)
              : colValue;
    weight = splitIntoPairs(rewriter, loc, pairArg, channelsInnermost ? 2 : 1);
  } else {
    col = channelsInnermost
              ? input
              : tensor::CollapseShapeOp::create(
                    rewriter, loc, colValue,
                    mergeGroup(colLoops.size(), outer, reductions));
    weight = tensor::CollapseShapeOp::create(
        rewriter, loc, op.getDpsInputOperand(1)->get(),
        mergeGroup(wRank, channelsInnermost ? 0 : wRank - reductions,
                   reductions));
  }
  // The contraction's loops: the output loops that stay, then k.
  SmallVector<unsigned> kept;
  for (unsigned loop = 0; loop < parallel; ++loop)
    if (ranges[loop] != 1 || llvm::is_contained(inputLoops, loop) ||
        wMap.isFunctionOfDim(loop))
      kept.push_back(loop);
  // With the input read in place, the output positions (the window
  // loops) are one loop of the contraction, so that the kernel's blocks of
  // rows run across rows of positions: 7x7 positions in blocks of 6 rows
  // are 8 blocks and one row, not 7 blocks and 7 single rows (latency
  // bound: too few accumulators).
  bool flat = channelsInnermost && windows.size() > 1;
  auto merged = [&](unsigned loop) {
    return flat && llvm::is_contained(ArrayRef(windows).drop_front(), loop);
  };
  // The contraction's parallel loops: the kept loops but the merged ones.
  SmallVector<unsigned> dims;
  for (unsigned loop : kept)
    if (!merged(loop))
      dims.push_back(loop);
  auto dimOf = [&](unsigned loop) {
    return getAffineDimExpr(llvm::find(dims, loop) - dims.begin(), ctx);
  };
  unsigned k = dims.size();
  // (In pair form, loop t after k: k + 2 loops.)
  unsigned contractionLoops = k + (pairArg ? 2 : 1);
  AffineExpr tExpr = getAffineDimExpr(k + 1, ctx);
  SmallVector<AffineExpr> newLoop(loops, getAffineConstantExpr(0, ctx));
  for (unsigned loop : dims)
    newLoop[loop] = dimOf(loop);
  if (flat) {
    // Each window loop a digit of the flat position.
    AffineExpr position = dimOf(windows.front());
    int64_t digit = 1;
    for (unsigned loop : llvm::reverse(windows)) {
      AffineExpr value = position.floorDiv(digit);
      if (loop != windows.front())
        value = value % ranges[loop];
      newLoop[loop] = value;
      digit *= ranges[loop];
    }
  }
  AffineExpr kExpr = getAffineDimExpr(k, ctx);
  SmallVector<AffineExpr> colExprs, wExprs, outExprs;
  if (channelsInnermost) {
    // The input's map on the contraction's loops: each reduction is a
    // digit of k (the weight's dims merged in order).
    SmallVector<AffineExpr> replacements(newLoop);
    int64_t digit = 1;
    for (unsigned loop = loops; loop-- > parallel;) {
      AffineExpr value = kExpr.floorDiv(digit);
      if (loop != parallel)
        value = value % ranges[loop];
      replacements[loop] = value;
      digit *= ranges[loop];
    }
    llvm::append_range(
        colExprs,
        inMap.replaceDimsAndSymbols(replacements, {}, contractionLoops, 0)
            .getResults());
  } else {
    for (unsigned i = 0; i < outer; ++i)
      colExprs.push_back(newLoop[colLoops[i]]);
    colExprs.push_back(kExpr);
    for (unsigned loop : windows)
      colExprs.push_back(newLoop[loop]);
  }
  if (pairArg) {
    // Pair panels `[M / w, K / 2, w, 2]` or rows `[M, K / 2, 2]`.
    colExprs.push_back(tExpr);
    AffineExpr channel = newLoop[mLoop];
    if (channelsInnermost)
      wExprs = {channel.floorDiv(kMatmulWeightPanel), kExpr,
                channel % kMatmulWeightPanel, tExpr};
    else
      wExprs = {channel, kExpr, tExpr};
  } else {
    if (channelsInnermost)
      wExprs.push_back(kExpr);
    for (unsigned loop : wOutLoops)
      wExprs.push_back(newLoop[loop]);
    if (!channelsInnermost)
      wExprs.push_back(kExpr);
  }
  // C's dims: the kept loops in order, or with a packed weight those the
  // weight does not read (the output positions), then those it does (its
  // output channels): the kernel's columns are the channels then.
  SmallVector<unsigned> cLoops;
  for (unsigned loop : kept)
    if (!channelsInnermost || !llvm::is_contained(wOutLoops, loop))
      cLoops.push_back(loop);
  for (unsigned loop : kept)
    if (!llvm::is_contained(cLoops, loop))
      cLoops.push_back(loop);
  for (unsigned loop : cLoops)
    if (!merged(loop))
      outExprs.push_back(dimOf(loop));
  bool permuted = cLoops != ArrayRef<unsigned>(kept);
  // C without the dropped unit dims.
  Value init = op.getDpsInitOperand(0)->get();
  auto initType = cast<RankedTensorType>(init.getType());
  SmallVector<ReassociationIndices> dropUnits;
  for (unsigned loop = 0; loop < parallel; ++loop) {
    if (dropUnits.empty() || llvm::is_contained(kept, loop))
      dropUnits.emplace_back();
    dropUnits.back().push_back(loop);
  }
  // Leading dropped dims join the first kept one.
  if (!kept.empty() && kept.front() != 0) {
    ReassociationIndices merged = dropUnits[0];
    llvm::append_range(merged, dropUnits[1]);
    dropUnits.erase(dropUnits.begin());
    dropUnits[0] = merged;
  }
  if (kept.empty())
    return nullptr;
  // (A fill stays a fill, which the kernel starts its registers from.)
  Value cInit = init;
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (kept.size() != parallel && !(permuted && fill))
    cInit = tensor::CollapseShapeOp::create(
        rewriter, loc, fill ? fill.getOutputs()[0] : init, dropUnits);
  // Permuted dims: the positions of C's dims in the kept loops.
  SmallVector<int64_t> toC, fromC(cLoops.size());
  for (auto [i, loop] : llvm::enumerate(cLoops)) {
    toC.push_back(llvm::find(kept, loop) - kept.begin());
    fromC[toC.back()] = i;
  }
  if (permuted) {
    SmallVector<int64_t> shape;
    for (int64_t i : toC)
      shape.push_back(ranges[kept[i]]);
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                          initType.getElementType());
    cInit = fill ? empty
                 : linalg::TransposeOp::create(rewriter, loc, cInit, empty, toC)
                       .getResult()[0];
  }
  // C's dims with the windows merged (flat positions): C is collapsed,
  // the contraction's result expanded back.
  SmallVector<ReassociationIndices> flatGroups;
  for (auto [i, loop] : llvm::enumerate(cLoops)) {
    if (!merged(loop))
      flatGroups.emplace_back();
    flatGroups.back().push_back(i);
  }
  auto cUnflat = cast<RankedTensorType>(cInit.getType());
  if (flat)
    cInit = tensor::CollapseShapeOp::create(
        rewriter, loc, fill && cInit == init ? fill.getOutputs()[0] : cInit,
        flatGroups);
  if (fill && cInit != init)
    cInit = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], cInit)
                .getResult(0);
  SmallVector<utils::IteratorType> iterators(k, utils::IteratorType::parallel);
  iterators.append(contractionLoops - k, utils::IteratorType::reduction);
  SmallVector<AffineMap> contractionMaps = {
      AffineMap::get(contractionLoops, 0, wExprs, ctx),
      AffineMap::get(contractionLoops, 0, colExprs, ctx),
      AffineMap::get(contractionLoops, 0, outExprs, ctx)};
  linalg::GenericOp contraction;
  if (pairArg)
    contraction = createPairContraction(rewriter, loc, weight, col, cInit,
                                        contractionMaps, iterators);
  else
    contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{cInit.getType()}, ValueRange{weight, col},
        ValueRange{cInit}, contractionMaps, iterators,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value product = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, args[2], product)));
        });
  Value result = contraction.getResult(0);
  if (flat)
    result = tensor::ExpandShapeOp::create(rewriter, loc, cUnflat, result,
                                           flatGroups);
  if (kept.size() != parallel || permuted) {
    // Elementwise users reading the dropped dims at index 0 read the
    // contraction (its dims permuted as C's); the others read it
    // transposed and expanded back.
    Value expanded;
    for (OpOperand &use : llvm::make_early_inc_range(op->getResult(0).getUses())) {
      auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
      AffineMap map = user ? user.getMatchingIndexingMap(&use) : AffineMap();
      bool direct = user && !user.isDpsInit(&use);
      for (unsigned loop = 0; direct && loop < parallel; ++loop) {
        if (llvm::is_contained(kept, loop))
          continue;
        auto zero = dyn_cast<AffineConstantExpr>(map.getResult(loop));
        direct = zero && zero.getValue() == 0;
      }
      if (!direct) {
        if (!expanded) {
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPointAfter(result.getDefiningOp());
          expanded = result;
          if (permuted) {
            auto cType = cast<RankedTensorType>(result.getType());
            SmallVector<int64_t> shape;
            for (int64_t i : fromC)
              shape.push_back(cType.getDimSize(i));
            Value empty = tensor::EmptyOp::create(rewriter, loc, shape,
                                                  cType.getElementType());
            expanded = linalg::TransposeOp::create(rewriter, loc, expanded,
                                                   empty, fromC)
                           .getResult()[0];
          }
          if (kept.size() != parallel)
            expanded = tensor::ExpandShapeOp::create(rewriter, loc, initType,
                                                     expanded, dropUnits);
        }
        use.set(expanded);
        continue;
      }
      SmallVector<AffineExpr> exprs;
      for (unsigned loop : cLoops)
        exprs.push_back(map.getResult(loop));
      SmallVector<AffineMap> userMaps = user.getIndexingMapsArray();
      userMaps[use.getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, exprs, ctx);
      rewriter.modifyOpInPlace(user, [&] {
        use.set(result);
        user.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(userMaps));
      });
    }
    rewriter.eraseOp(op);
  } else {
    rewriter.replaceOp(op, result);
  }
  return contraction;
}

/// Returns the elementwise linalg.generic that is the only user of `op`'s
/// result, if the kernel can apply it to its registers: it iterates over
/// C's dims in C's order (identity maps for C and its own result), its
/// other operands are read along the columns (the column loops innermost)
/// or not at all (one value per block row), and its body is elementwise
/// scalar ops.
static linalg::GenericOp findEpilogue(linalg::GenericOp op,
                                      const ContractionPlan &plan) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  OpOperand &use = *result.getUses().begin();
  auto epilogue = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumReductionLoops() != 0 ||
      !epilogue.hasPureTensorSemantics() ||
      epilogue.isDpsInit(&use) ||
      epilogue.payloadUsesValueFromOperand(epilogue.getDpsInitOperand(0)))
    return nullptr;
  unsigned rank = epilogue.getNumLoops();
  if (!epilogue.getMatchingIndexingMap(&use).isIdentity() ||
      !epilogue.getIndexingMapsArray().back().isIdentity() ||
      rank != cast<ShapedType>(result.getType()).getRank())
    return nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    // Index 0 of a unit dim is allowed (a per-row scale of shape [M, 1]).
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return nullptr;
    // The columns are the epilogue's last loops: an operand reads all of
    // them as its last dims, in order, or none.
    unsigned run = plan.columnLoops.size(), results = map.getNumResults();
    if (map.isFunctionOfDim(rank - 1)) {
      if (results < run)
        return nullptr;
      for (unsigned i = 0; i < run; ++i)
        if (loopAt(map, results - run + i) != rank - run + i)
          return nullptr;
    } else {
      for (unsigned i = 0; i < run; ++i)
        if (map.isFunctionOfDim(rank - run + i))
          return nullptr;
    }
    if (!isa<FloatType, IntegerType>(getElementTypeOrSelf(input->get())))
      return nullptr;
  }
  if (!getElementTypeOrSelf(epilogue->getResult(0)).isF32())
    return nullptr;
  for (Operation &bodyOp : epilogue.getRegion().front().without_terminator())
    if (!bodyOp.hasTrait<OpTrait::Elementwise>() ||
        bodyOp.getNumRegions() != 0 ||
        !llvm::all_of(bodyOp.getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); }))
      return nullptr;
  (void)plan;
  return epilogue;
}

/// `map` with its last `run` results (the column loops) merged into the
/// first of them.
static AffineMap mergeColumns(AffineMap map, unsigned run) {
  if (run <= 1)
    return map;
  return AffineMap::get(map.getNumDims(), 0,
                        map.getResults().drop_back(run - 1),
                        map.getContext());
}

/// The reassociation merging the last `run` of `rank` dims.
static SmallVector<ReassociationIndices> mergeReassociation(int64_t rank,
                                                            unsigned run) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank - run; ++i)
    groups.push_back({i});
  groups.emplace_back();
  for (int64_t i = rank - run; i < rank; ++i)
    groups.back().push_back(i);
  return groups;
}

/// `value` with its last `run` dims merged into one.
static Value mergeColumns(OpBuilder &b, Location loc, Value value,
                          unsigned run) {
  if (run <= 1)
    return value;
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         mergeReassociation(rank, run));
}

/// Returns `acc` (vector<n x f32>) plus, lane by lane, the dot product of
/// the bf16 pair in `word` (an i32: the pair as it lies in memory) with the
/// lane's pair in `pairs` (vector<2n x bf16>): with `native` (n a multiple of
/// 16), AVX512-BF16's dot product per 16 lanes (x86vector.avx512.dot:
/// vdpbf16ps); else two f32 fused multiply-adds of the pairs' halves (a bf16 is
/// the upper half of an f32; the products of two are exact in f32).
static Value emitPairDot(OpBuilder &b, Location l, Value acc, Value word,
                         Value pairs, bool native) {
  auto accType = cast<VectorType>(acc.getType());
  int64_t n = accType.getDimSize(0);
  Type i32 = b.getI32Type();
  if (native && n % 16 == 0) {
    const int64_t chunk = 16;
    Value a = vector::BitCastOp::create(
        b, l, VectorType::get({2 * chunk}, b.getBF16Type()),
        vector::BroadcastOp::create(b, l, VectorType::get({chunk}, i32), word));
    for (int64_t i = 0; i < n; i += chunk) {
      if (n == chunk)
        return x86vector::DotBF16Op::create(b, l, acc, a, pairs);
      Value part =
          vector::ExtractStridedSliceOp::create(b, l, acc, {i}, {chunk}, {1});
      Value pairPart = vector::ExtractStridedSliceOp::create(
          b, l, pairs, {2 * i}, {2 * chunk}, {1});
      part = x86vector::DotBF16Op::create(b, l, part, a, pairPart);
      acc = vector::InsertStridedSliceOp::create(b, l, part, acc, {i}, {1});
    }
    return acc;
  }
  auto wordsType = VectorType::get({n}, i32);
  Value words = vector::BitCastOp::create(b, l, wordsType, pairs);
  Value shift = arith::ConstantOp::create(b, l, b.getI32IntegerAttr(16));
  Value mask = arith::ConstantOp::create(
      b, l, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFF0000u)));
  auto splat = [&](Value v) {
    return vector::BroadcastOp::create(b, l, wordsType, v);
  };
  Value bLow = arith::BitcastOp::create(
      b, l, accType, arith::ShLIOp::create(b, l, words, splat(shift)));
  Value bHigh = arith::BitcastOp::create(
      b, l, accType, arith::AndIOp::create(b, l, words, splat(mask)));
  Value aLow = arith::BitcastOp::create(
      b, l, b.getF32Type(), arith::ShLIOp::create(b, l, word, shift));
  Value aHigh = arith::BitcastOp::create(
      b, l, b.getF32Type(), arith::AndIOp::create(b, l, word, mask));
  acc = vector::FMAOp::create(
      b, l, vector::BroadcastOp::create(b, l, accType, aLow), bLow, acc);
  return vector::FMAOp::create(
      b, l, vector::BroadcastOp::create(b, l, accType, aHigh), bHigh, acc);
}

/// Replaces `op` by the register-tiled kernel of `plan`.
static void buildKernel(RewriterBase &rewriter, linalg::GenericOp op,
                        const ContractionPlan &plan, bool bf16Dot) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned run = plan.columnLoops.size();
  // The last block of columns is partial when the blocks do not divide
  // the columns (its reads and writes are masked).
  bool tail = plan.columnCount % plan.columns != 0;
  SmallVector<bool> inBounds = {!tail};
  Type f32 = rewriter.getF32Type();
  auto vecType = VectorType::get({plan.columns}, f32);
  linalg::GenericOp epilogue = plan.epilogue;
  // C filled with a constant (zero, mostly): the registers start from it
  // and the fill is not needed.
  Value init = op.getDpsInitOperand(0)->get();
  auto fill = init.getDefiningOp<linalg::FillOp>();
  // The kernel writes the epilogue's result, else C.
  Value destInit = epilogue ? epilogue.getDpsInitOperand(0)->get()
                   : fill   ? fill.getOutputs()[0]
                            : init;
  auto destType = cast<RankedTensorType>(destInit.getType());
  AffineMap outMap = maps[2];
  if (epilogue)
    rewriter.setInsertionPoint(epilogue);
  // The column dims of B, C and the epilogue's operands merged into one.
  // (In pair form, the operands' maps without t; B's columns merged with
  // t, or its panels' columns with t: a pair of rows of B, interleaved.)
  Value aTensor = op.getDpsInputOperand(plan.a)->get();
  Value bTensor = op.getDpsInputOperand(plan.b)->get();
  if (plan.pairs) {
    for (unsigned i = 0; i < 2; ++i)
      maps[i] = maps[i].dropResult(maps[i].getNumResults() - 1);
    bTensor =
        mergeColumns(rewriter, loc, bTensor, plan.pairPanelWidth ? 2 : run + 1);
  } else {
    bTensor = mergeColumns(rewriter, loc, bTensor, run);
  }
  init = mergeColumns(rewriter, loc, init, run);
  destInit = mergeColumns(rewriter, loc, destInit, run);
  AffineMap aMap = maps[plan.a];
  AffineMap bMap =
      plan.pairPanelWidth ? maps[plan.b] : mergeColumns(maps[plan.b], run);
  AffineMap cMap = mergeColumns(outMap, run);
  DenseMap<OpOperand *, std::pair<Value, AffineMap>> epilogueInputs;
  if (epilogue) {
    unsigned rank = epilogue.getNumLoops();
    for (OpOperand *input : epilogue.getDpsInputOperands()) {
      AffineMap map = epilogue.getMatchingIndexingMap(input);
      if (input->get() == op->getResult(0))
        continue;
      if (map.isFunctionOfDim(rank - 1))
        epilogueInputs[input] = {
            mergeColumns(rewriter, loc, input->get(), run),
            mergeColumns(map, run)};
      else
        epilogueInputs[input] = {input->get(), map};
    }
  }

  // The kernel on one block of C: `plan.rows` x `plan.columns` at `n0`,
  // `m0` and the outer loops' values `outerIvs` (in plan.outer's order),
  // for k in [kStart, kStart + kLength). The block is read from and
  // written to `target`, which holds C from `origin` (per dim of C, the
  // index of target's first element; null for 0). The first block of k
  // starts from C's initial value, the last applies the epilogue; partial
  // sums in between live in the destination (the epilogue's result has C's
  // shape and type). With a row tail, the last block of rows is shorter:
  // the kernel runs on fewer rows there (an scf.if), on the same column
  // block. Returns the block's tile and where it goes in `target`.
  struct Tile {
    Value value;
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  auto emitTile = [&](OpBuilder &b, Value target, ArrayRef<Value> origin,
                      ArrayRef<Value> outerIvs, Value n0, Value m0,
                      Value kStart, int64_t kLength, bool first, bool last,
                      Value packedB = Value()) -> Tile {
    Location l = loc;
    // The index of loop `loop` for row `row` of the block at `k`.
    auto loopValue = [&](unsigned loop, int64_t row, Value k) -> Value {
      // (t, a pair's element, is read at 0: the pair's first.)
      if (plan.pairs && loop == plan.t)
        return Value();
      if (loop == plan.k)
        return k;
      if (loop == plan.n)
        return n0;
      if (loop == plan.m)
        return row == 0 ? m0
                        : Value(arith::AddIOp::create(
                              b, l, m0,
                              arith::ConstantIndexOp::create(b, l, row)));
      return outerIvs[llvm::find(plan.outer, loop) - plan.outer.begin()];
    };
    auto indices = [&](AffineMap map, int64_t row, Value k) {
      SmallVector<Value> values;
      SmallVector<Value> loops;
      for (unsigned i = 0; i < map.getNumResults(); ++i) {
        int64_t loop = loopAt(map, i);
        if (loop >= 0) {
          values.push_back(loopValue(loop, row, k));
          continue;
        }
        // (A conv's input read in place: its index expression.)
        if (loops.empty())
          for (unsigned j = 0; j < map.getNumDims(); ++j)
            loops.push_back(loopValue(j, row, k));
        values.push_back(emitIndex(b, l, map.getResult(i), loops));
      }
      return values;
    };
    Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
    Value c0 = arith::ConstantIndexOp::create(b, l, 0);
    // The block's slice of C (rank-reduced to rows x columns); the last
    // block of a column tail is narrower, of a row tail shorter.
    OpFoldResult width = b.getIndexAttr(plan.columns);
    if (tail)
      width = arith::MinSIOp::create(
                  b, l, arith::ConstantIndexOp::create(b, l, plan.columns),
                  arith::SubIOp::create(
                      b, l,
                      arith::ConstantIndexOp::create(b, l, plan.columnCount),
                      n0))
                  .getResult();
    OpFoldResult height = b.getIndexAttr(plan.rows);
    if (plan.rowTail)
      height =
          arith::MinSIOp::create(
              b, l, arith::ConstantIndexOp::create(b, l, plan.rows),
              arith::SubIOp::create(
                  b, l, arith::ConstantIndexOp::create(b, l, ranges[plan.m]),
                  m0))
              .getResult();
    Tile result;
    for (unsigned i = 0; i < cMap.getNumResults(); ++i) {
      unsigned loop = loopAt(cMap, i);
      Value offset = loopValue(loop, 0, Value());
      if (origin[i])
        offset = arith::SubIOp::create(b, l, offset, origin[i]);
      result.offsets.push_back(offset);
      result.sizes.push_back(loop == plan.m   ? height
                             : loop == plan.n ? width
                                              : b.getIndexAttr(1));
      result.strides.push_back(b.getIndexAttr(1));
    }
    auto tileType =
        RankedTensorType::get({plan.rowTail ? ShapedType::kDynamic : plan.rows,
                               tail ? ShapedType::kDynamic : plan.columns},
                              f32);
    Value tile = tensor::ExtractSliceOp::create(
        b, l, tileType, target, result.offsets, result.sizes, result.strides);
    // The kernel on the first `rows` rows of `tile`.
    auto emitRows = [&](int64_t rows, Value tile) -> Value {
      // The block of C starts from its initial value (the first block of k),
      // else from the partial sums of the blocks before.
      SmallVector<Value> accs;
      Value filled;
      if (first && fill)
        filled =
            vector::BroadcastOp::create(b, l, vecType, fill.getInputs()[0]);
      // (Partial sums are read from the block's tile.)
      for (int64_t r = 0; r < rows; ++r) {
        Value acc = filled;
        if (!acc && first && epilogue)
          acc = vector::TransferReadOp::create(
              b, l, vecType, init, indices(cMap, r, Value()), zero, inBounds);
        else if (!acc)
          acc = vector::TransferReadOp::create(
              b, l, vecType, tile,
              ValueRange{arith::ConstantIndexOp::create(b, l, r), c0}, zero,
              inBounds);
        accs.push_back(acc);
      }
      Value kEnd = arith::AddIOp::create(
          b, l, kStart, arith::ConstantIndexOp::create(b, l, kLength));
      // Column n0 of B in its panels: panel n0 / c, column n0 % c.
      Value panel, panelColumn;
      if (plan.panels || plan.pairPanelWidth) {
        Value width = arith::ConstantIndexOp::create(
            b, l,
            plan.pairPanelWidth
                ? plan.pairPanelWidth
                : cast<RankedTensorType>(plan.panels.getType()).getDimSize(2));
        panel = arith::DivUIOp::create(b, l, n0, width);
        panelColumn = arith::RemUIOp::create(b, l, n0, width);
      }
      // The k loop in steps of kUnroll, A read through its map unrolled.
      Value c1 = arith::ConstantIndexOp::create(b, l, 1);
      Value unroll = arith::ConstantIndexOp::create(b, l, plan.kUnroll);
      Value cStart = kStart, cEnd = kEnd;
      if (plan.kUnroll != 1) {
        cStart = arith::DivUIOp::create(b, l, kStart, unroll);
        cEnd = arith::DivUIOp::create(b, l, kEnd, unroll);
      }
      auto kLoop = scf::ForOp::create(
          b, l, cStart, cEnd, c1, accs,
          [&](OpBuilder &kb, Location kl, Value c, ValueRange carried) {
            SmallVector<Value> next(carried);
            Value kBase = c;
            if (plan.kUnroll != 1)
              kBase = arith::MulIOp::create(kb, kl, c, unroll);
            for (int64_t j = 0; j < plan.kUnroll; ++j) {
              Value k = kBase;
              if (j != 0)
                k = arith::AddIOp::create(
                    kb, kl, kBase, arith::ConstantIndexOp::create(kb, kl, j));
              // (A's unrolled map reads the step index c; with no unroll,
              // c is k.)
              AffineMap aStep = plan.kUnroll == 1
                                    ? aMap
                                    : unrollK(aMap, plan.k, plan.kUnroll, j);
              if (plan.pairs) {
                // Pair k of B's rows for the block's columns (interleaved),
                // and per row of A the pair of its k as one i32 word.
                Type bf16 = kb.getBF16Type();
                Value bf16Zero =
                    arith::ConstantOp::create(kb, kl, kb.getZeroAttr(bf16));
                Value two = arith::ConstantIndexOp::create(kb, kl, 2);
                SmallVector<Value> at;
                if (plan.pairPanelWidth) {
                  at = {panel, k,
                        arith::MulIOp::create(kb, kl, panelColumn, two)};
                } else {
                  at = indices(bMap, 0, k);
                  at.back() = arith::MulIOp::create(kb, kl, at.back(), two);
                }
                Value pairs = vector::TransferReadOp::create(
                    kb, kl, VectorType::get({2 * plan.columns}, bf16), bTensor,
                    at, bf16Zero, inBounds);
                for (int64_t r = 0; r < rows; ++r) {
                  SmallVector<Value> idx = indices(aStep, r, c);
                  idx.push_back(c0);
                  Value pair = vector::TransferReadOp::create(
                      kb, kl, VectorType::get({2}, bf16), aTensor, idx,
                      bf16Zero, ArrayRef<bool>{true});
                  Value word = vector::ExtractOp::create(
                      kb, kl,
                      vector::BitCastOp::create(
                          kb, kl, VectorType::get({1}, kb.getI32Type()), pair),
                      ArrayRef<int64_t>{0});
                  next[r] = emitPairDot(kb, kl, next[r], word, pairs, bf16Dot);
                }
                continue;
              }
              // (From the panel's packed block of B: its row k - kStart.)
              Value bVec;
              if (packedB)
                bVec = vector::TransferReadOp::create(
                    kb, kl, vecType, packedB,
                    ValueRange{arith::SubIOp::create(kb, kl, k, kStart), c0},
                    zero, inBounds);
              else if (plan.panels)
                bVec = vector::TransferReadOp::create(
                    kb, kl, vecType, plan.panels,
                    ValueRange{panel, k, panelColumn}, zero, inBounds);
              else
                bVec = vector::TransferReadOp::create(kb, kl, vecType, bTensor,
                                                      indices(bMap, 0, k), zero,
                                                      inBounds);
              for (int64_t r = 0; r < rows; ++r) {
                Value a = tensor::ExtractOp::create(kb, kl, aTensor,
                                                    indices(aStep, r, c));
                Value aVec = vector::BroadcastOp::create(kb, kl, vecType, a);
                next[r] = vector::FMAOp::create(kb, kl, aVec, bVec, next[r]);
              }
            }
            scf::YieldOp::create(kb, kl, next);
          });
      // The epilogue on row `r`'s registers: its body cloned on vectors, its
      // other operands read along the columns or broadcast.
      IRMapping captured; // values from above the body, broadcast once
      auto applyEpilogue = [&](int64_t r, Value acc) -> Value {
        IRMapping mapping;
        Block &body = epilogue.getRegion().front();
        for (OpOperand *input : epilogue.getDpsInputOperands()) {
          BlockArgument arg = body.getArgument(input->getOperandNumber());
          if (input->get() == op->getResult(0)) {
            mapping.map(arg, acc);
            continue;
          }
          auto [value, map] = epilogueInputs.lookup(input);
          SmallVector<Value> idx;
          for (unsigned j = 0; j < map.getNumResults(); ++j) {
            int64_t loop = loopAt(map, j);
            idx.push_back(
                loop < 0 ? c0 : loopValue(loopAt(outMap, loop), r, Value()));
          }
          Type elem = getElementTypeOrSelf(value);
          auto type = VectorType::get({plan.columns}, elem);
          if (value != input->get() ||
              map.isFunctionOfDim(epilogue.getNumLoops() - 1)) {
            Value pad = arith::ConstantOp::create(
                b, l, cast<TypedAttr>(b.getZeroAttr(elem)));
            value = vector::TransferReadOp::create(b, l, type, value, idx, pad,
                                                   inBounds);
          } else {
            value = vector::BroadcastOp::create(
                b, l, type, tensor::ExtractOp::create(b, l, value, idx));
          }
          mapping.map(arg, value);
        }
        for (Operation &bodyOp : body.without_terminator()) {
          for (Value operand : bodyOp.getOperands()) {
            if (mapping.contains(operand))
              continue;
            if (!captured.contains(operand))
              captured.map(
                  operand,
                  vector::BroadcastOp::create(
                      b, l, VectorType::get({plan.columns}, operand.getType()),
                      operand));
            mapping.map(operand, captured.lookup(operand));
          }
          Operation *clone = b.clone(bodyOp, mapping);
          for (OpResult result : clone->getResults())
            result.setType(VectorType::get({plan.columns}, result.getType()));
        }
        return mapping.lookup(body.getTerminator()->getOperand(0));
      };
      for (int64_t r = 0; r < rows; ++r) {
        Value row = arith::ConstantIndexOp::create(b, l, r);
        Value value = kLoop.getResult(r);
        if (last && epilogue)
          value = applyEpilogue(r, value);
        tile = vector::TransferWriteOp::create(b, l, value, tile,
                                               ValueRange{row, c0}, inBounds)
                   .getResult();
      }
      return tile;
    };
    if (!plan.rowTail) {
      tile = emitRows(plan.rows, tile);
    } else {
      Value full = arith::CmpIOp::create(
          b, l, arith::CmpIPredicate::sle,
          arith::AddIOp::create(
              b, l, m0, arith::ConstantIndexOp::create(b, l, plan.rows)),
          arith::ConstantIndexOp::create(b, l, ranges[plan.m]));
      auto ifOp = scf::IfOp::create(b, l, TypeRange{tileType}, full,
                                    /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b, l, emitRows(plan.rows, tile));
        b.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b, l, emitRows(plan.rowTail, tile));
      }
      tile = ifOp.getResult(0);
    }
    result.value = tile;
    return result;
  };
  auto index = [&](OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  unsigned cRank = cMap.getNumResults();
  int64_t kSize = ranges[plan.k];
  Value result;
  if (plan.kBlock == 0 || plan.kBlock >= kSize) {
    // One forall over the blocks of C: the outer loops, then column blocks,
    // then row blocks (or row blocks, then column blocks).
    SmallVector<OpFoldResult> lbs, ubs, steps;
    for (unsigned loop : plan.outer) {
      lbs.push_back(rewriter.getIndexAttr(0));
      ubs.push_back(rewriter.getIndexAttr(ranges[loop]));
      steps.push_back(rewriter.getIndexAttr(1));
    }
    lbs.append({rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)});
    ubs.append({rewriter.getIndexAttr(plan.columnCount),
                rewriter.getIndexAttr(ranges[plan.m])});
    steps.append({rewriter.getIndexAttr(plan.columns),
                  rewriter.getIndexAttr(plan.rows)});
    unsigned columnDim = plan.outer.size(), rowDim = columnDim + 1;
    if (plan.rowsOuter) {
      std::swap(ubs[columnDim], ubs[rowDim]);
      std::swap(steps[columnDim], steps[rowDim]);
      std::swap(columnDim, rowDim);
    }
    auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                        ValueRange{destInit}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    SmallVector<Value> ivs = forall.getInductionVars();
    Value dest = forall.getRegionOutArgs()[0];
    Tile tile = emitTile(rewriter, dest, SmallVector<Value>(cRank),
                         ArrayRef<Value>(ivs).take_front(plan.outer.size()),
                         ivs[columnDim], ivs[rowDim], index(rewriter, 0), kSize,
                         /*first=*/true, /*last=*/true);
    rewriter.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, tile.value, dest,
                                          tile.offsets, tile.sizes,
                                          tile.strides);
    result = forall.getResult(0);
  } else {
    // The reduction in blocks: one forall over panels (blocks of the major
    // dim, the columns or, with rowsOuter, the rows; the outer loops the
    // panel's operand reads; chunks of the other dim's blocks when there
    // are few panels), each running every block of k over its slab of C in
    // turn. A block of k of the panel stays in cache across the blocks of
    // the other dim and the outer loops the panel does not read (a conv's
    // output rows), and no thread waits for the others between blocks of k
    // (one fork and join, not one per block).
    bool columnsMajor = !plan.rowsOuter;
    AffineMap panelMap = columnsMajor ? bMap : aMap;
    unsigned major = columnsMajor ? plan.n : plan.m;
    unsigned minor = columnsMajor ? plan.m : plan.n;
    int64_t majorSize = columnsMajor ? plan.columnCount : ranges[plan.m];
    int64_t majorStep = columnsMajor ? plan.columns : plan.rows;
    int64_t minorSize = columnsMajor ? ranges[plan.m] : plan.columnCount;
    int64_t minorStep = columnsMajor ? plan.rows : plan.columns;
    SmallVector<unsigned> forallOuter, innerOuter;
    int64_t panels = llvm::divideCeil(majorSize, majorStep);
    for (unsigned loop : plan.outer) {
      if (panelMap.isFunctionOfDim(loop)) {
        forallOuter.push_back(loop);
        panels *= ranges[loop];
      } else {
        innerOuter.push_back(loop);
      }
    }
    // At least 8 forall iterations (for the threads' balance; more, smaller
    // chunks measured slower on ResNet's 14x14 conv, 0.52 -> 0.53-0.55 ms
    // for 16-64, as each re-reads the panel): the first
    // of the loops inside (the outer loops the panel does not read, then
    // the minor dim's blocks) with more than one iteration is split in
    // chunks, so that each iteration's part of the other operand is one
    // contiguous range (not every other block of each of its rows).
    SmallVector<unsigned> innerLoops(innerOuter);
    innerLoops.push_back(minor);
    auto innerSize = [&](unsigned loop) {
      return loop == minor ? minorSize : ranges[loop];
    };
    auto innerStep = [&](unsigned loop) -> int64_t {
      return loop == minor ? minorStep : 1;
    };
    unsigned chunked = minor;
    for (unsigned loop : innerLoops)
      if (llvm::divideCeil(innerSize(loop), innerStep(loop)) > 1) {
        chunked = loop;
        break;
      }
    int64_t chunkedBlocks =
        llvm::divideCeil(innerSize(chunked), innerStep(chunked));
    int64_t chunks =
        std::clamp<int64_t>(llvm::divideCeil(8, panels), 1, chunkedBlocks);
    int64_t chunkLength =
        llvm::divideCeil(chunkedBlocks, chunks) * innerStep(chunked);
    SmallVector<OpFoldResult> lbs, ubs, steps;
    for (unsigned loop : forallOuter) {
      lbs.push_back(rewriter.getIndexAttr(0));
      ubs.push_back(rewriter.getIndexAttr(ranges[loop]));
      steps.push_back(rewriter.getIndexAttr(1));
    }
    lbs.append({rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)});
    ubs.append({rewriter.getIndexAttr(majorSize),
                rewriter.getIndexAttr(innerSize(chunked))});
    steps.append(
        {rewriter.getIndexAttr(majorStep), rewriter.getIndexAttr(chunkLength)});
    auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                        ValueRange{destInit}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    OpBuilder &b = rewriter;
    b.setInsertionPointToStart(forall.getBody());
    SmallVector<Value> ivs = forall.getInductionVars();
    Value dest = forall.getRegionOutArgs()[0];
    Value major0 = ivs[forallOuter.size()];
    Value chunk0 = ivs[forallOuter.size() + 1];
    // The slab: the panel's block of the major dim, the chunk, the forall's
    // outer loops at their values, the others whole.
    auto clampedSize = [&](Value start, int64_t step,
                           int64_t size) -> OpFoldResult {
      if (size % step == 0)
        return b.getIndexAttr(step);
      return arith::MinSIOp::create(
                 b, loc, index(b, step),
                 arith::SubIOp::create(b, loc, index(b, size), start))
          .getResult();
    };
    SmallVector<OpFoldResult> offsets, sizes, strides;
    SmallVector<Value> origin(cRank);
    SmallVector<int64_t> slabShape;
    for (unsigned i = 0; i < cRank; ++i) {
      unsigned loop = loopAt(cMap, i);
      OpFoldResult offset = b.getIndexAttr(0), size;
      if (loop == major) {
        origin[i] = major0;
        size = clampedSize(major0, majorStep, majorSize);
      } else if (loop == chunked) {
        origin[i] = chunk0;
        size = clampedSize(chunk0, chunkLength, innerSize(loop));
      } else if (llvm::is_contained(forallOuter, loop)) {
        origin[i] = ivs[llvm::find(forallOuter, loop) - forallOuter.begin()];
        size = b.getIndexAttr(1);
      } else {
        size = b.getIndexAttr(innerSize(loop));
      }
      if (origin[i])
        offset = origin[i];
      offsets.push_back(offset);
      sizes.push_back(size);
      strides.push_back(b.getIndexAttr(1));
      std::optional<int64_t> constant = getConstantIntValue(size);
      slabShape.push_back(constant ? *constant : ShapedType::kDynamic);
    }
    Value slab = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get(slabShape, f32), dest, offsets, sizes,
        strides);
    // Every block of the slab for k in [kStart, kStart + kLength): a loop
    // nest over the inner loops (the chunked one over its chunk).
    // B read in place with rows a multiple of 4 KiB apart maps every row
    // of a panel to the same few cache sets (8 of them stay in L1): the
    // panel's block of k is then copied to a contiguous tensor first and
    // the blocks of rows read that (a 128x768 by 768x3072 matmul: 376 ->
    // 488 GFLOP/s; 3104 columns, not a multiple, ran at 517 in place). Only
    // B = [k, columns] with whole column blocks (a B sliced from a wider
    // tensor has another stride after bufferization: then this guesses).
    // (Not for one block of rows per slab: the copy would be read once.)
    bool packB = columnsMajor && !tail && plan.outer.empty() && !plan.panels &&
                 !plan.pairs && bMap.getNumResults() == 2 &&
                 loopAt(bMap, 0) == plan.k && loopAt(bMap, 1) == plan.n &&
                 chunkLength > plan.rows && (plan.columnCount * 4) % 4096 == 0;
    auto packPanel = [&](Value kStart, int64_t kLength) -> Value {
      auto blockType = RankedTensorType::get({kLength, plan.columns}, f32);
      Value packed = tensor::EmptyOp::create(b, loc, blockType.getShape(), f32);
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
      auto copy = scf::ForOp::create(
          b, loc, index(b, 0), index(b, kLength), index(b, 1),
          ValueRange{packed},
          [&](OpBuilder &lb, Location ll, Value i, ValueRange carried) {
            Value k = arith::AddIOp::create(lb, ll, kStart, i);
            Value row = vector::TransferReadOp::create(lb, ll, vecType, bTensor,
                                                       ValueRange{k, major0},
                                                       zero, inBounds);
            Value written = vector::TransferWriteOp::create(
                                lb, ll, row, carried[0],
                                ValueRange{i, index(lb, 0)}, inBounds)
                                .getResult();
            scf::YieldOp::create(lb, ll, written);
          });
      return copy.getResult(0);
    };
    auto emitSlab = [&](Value slabIn, Value kStart, int64_t kLength, bool first,
                        bool last) -> Value {
      Value packed = packB ? packPanel(kStart, kLength) : Value();
      SmallVector<Value> loopIvs(ranges.size());
      for (auto [i, loop] : llvm::enumerate(forallOuter))
        loopIvs[loop] = ivs[i];
      std::function<Value(unsigned, Value)> nest = [&](unsigned depth,
                                                       Value slabArg) -> Value {
        if (depth == innerLoops.size()) {
          SmallVector<Value> outerIvs;
          for (unsigned loop : plan.outer)
            outerIvs.push_back(loopIvs[loop]);
          Value minorIv = loopIvs[minor];
          Tile tile = emitTile(b, slabArg, origin, outerIvs,
                               columnsMajor ? major0 : minorIv,
                               columnsMajor ? minorIv : major0, kStart, kLength,
                               first, last, packed);
          return tensor::InsertSliceOp::create(b, loc, tile.value, slabArg,
                                               tile.offsets, tile.sizes,
                                               tile.strides);
        }
        unsigned loop = innerLoops[depth];
        Value lower = index(b, 0), upper = index(b, innerSize(loop));
        if (loop == chunked) {
          lower = chunk0;
          upper = arith::AddIOp::create(b, loc, chunk0, index(b, chunkLength));
          if (innerSize(loop) % chunkLength != 0)
            upper = arith::MinSIOp::create(b, loc, upper,
                                           index(b, innerSize(loop)));
        }
        auto forOp =
            scf::ForOp::create(b, loc, lower, upper, index(b, innerStep(loop)),
                               ValueRange{slabArg});
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(forOp.getBody());
        loopIvs[loop] = forOp.getInductionVar();
        scf::YieldOp::create(b, loc,
                             nest(depth + 1, forOp.getRegionIterArgs()[0]));
        return forOp.getResult(0);
      };
      return nest(0, slabIn);
    };
    slab = emitSlab(slab, index(b, 0), plan.kBlock, true, false);
    if (kSize / plan.kBlock > 2) {
      auto blocks = scf::ForOp::create(b, loc, index(b, plan.kBlock),
                                       index(b, kSize - plan.kBlock),
                                       index(b, plan.kBlock), ValueRange{slab});
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(blocks.getBody());
      scf::YieldOp::create(b, loc,
                           emitSlab(blocks.getRegionIterArgs()[0],
                                    blocks.getInductionVar(), plan.kBlock,
                                    false, false));
      slab = blocks.getResult(0);
    }
    slab =
        emitSlab(slab, index(b, kSize - plan.kBlock), plan.kBlock, false, true);
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, slab, dest, offsets, sizes,
                                          strides);
    result = forall.getResult(0);
  }
  if (run > 1)
    result = tensor::ExpandShapeOp::create(
        rewriter, loc, destType, result,
        mergeReassociation(destType.getRank(), run));
  if (epilogue) {
    rewriter.replaceOp(epilogue, result);
    rewriter.eraseOp(op);
  } else {
    rewriter.replaceOp(op, result);
  }
  if (fill && fill->use_empty())
    rewriter.eraseOp(fill);
}

namespace {
struct CPUContractionKernelsPass final
    : ms::impl::CPUContractionKernelsPassBase<CPUContractionKernelsPass> {
  using CPUContractionKernelsPassBase::CPUContractionKernelsPassBase;

  void runOnOperation() override {
    // Kernels compiled for one CPU of several take that CPU's blocks.
    CPUKernelShape shape{lanes, rows, bf16Dot};
    if (auto executable = getOperation()->getParentOfType<exec::ExecutableOp>())
      if (std::optional<StringRef> variant = executable.getVariant()) {
        std::string error;
        FailureOr<CPUKernelShape> variantShape =
            getCPUKernelShape(*variant, error);
        if (failed(variantShape)) {
          executable.emitError(error);
          return signalPassFailure();
        }
        shape = *variantShape;
      }
    IRRewriter rewriter(&getContext());
    SmallVector<std::pair<linalg::GenericOp, ContractionPlan>> planned;
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        named.push_back(op);
    });
    // Named matmuls as generics (the form the plan reads).
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    // Convolutions with a large im2col copy in tiles of output rows.
    // (Tiling erases a conv's elementwise user: only contractions listed.)
    SmallVector<linalg::GenericOp> convs;
    getOperation().walk([&](linalg::GenericOp op) {
      if (op.getNumDpsInputs() == 2 && isMultiplyAccumulate(op))
        convs.push_back(op);
    });
    for (linalg::GenericOp op : convs)
      tileLargeConv(rewriter, op, 2 * shape.lanes);
    // Convolutions as an im2col copy (or the input read in place) and a
    // contraction.
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      rewriter.setInsertionPoint(op);
      (void)convToIm2Col(rewriter, op, shape.rows / 2);
    }
    generics.clear();
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      std::optional<ContractionPlan> plan =
          planContraction(op, shape.lanes, shape.rows, kBlock);
      if (!plan)
        continue;
      // Matmuls by weights stored in bf16 pairs run in pair form; with
      // bf16, the other contractions too.
      linalg::GenericOp pairOp;
      if (Value pairs = findWeightPairs(op, *plan))
        pairOp = rewriteWeightPairs(rewriter, op, *plan, pairs);
      else if (bf16 && !plan->pairs)
        pairOp = rewriteToPairs(rewriter, op, *plan);
      if (pairOp) {
        op = pairOp;
        plan = planContraction(op, shape.lanes, shape.rows, kBlock);
        if (!plan)
          continue;
      }
      plan->epilogue = findEpilogue(op, *plan);
      planned.emplace_back(op, *plan);
    }
    for (auto &[op, plan] : planned) {
      rewriter.setInsertionPoint(op);
      buildKernel(rewriter, op, plan, shape.bf16Dot);
    }
  }
};
} // namespace
