//===- PoolingKernels.cpp - vectorized windowed reductions (pooling) ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Max and sum pooling as generic loop nests read their window innermost,
// three or so elements at a stride, which does not vectorize: ResNet's
// 3x3 stride-2 max pool took 0.3 ms for 200K outputs. Here each output row
// is one vector: per window position the input row it reads is loaded
// whole (every stride-th element kept by a shuffle) and combined with the
// row's accumulator by the pooling op on vectors.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "WindowIndexing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUPOOLINGKERNELSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Output rows longer than this are left to the generic lowering.
static constexpr int64_t kMaxRow = 256;
/// Input rows longer than this are left to the generic lowering (each is
/// read as one vector).
static constexpr int64_t kMaxInputRow = 512;
/// Window loops of the last dim with more iterations than this are left
/// to the generic lowering (they are unrolled).
static constexpr int64_t kMaxUnrolled = 16;

/// Rewrites `op` into the row kernel if it is a pooling: one input read at
/// window sums whose last dim is `ow * s + kw * d` for the output's last
/// loop `ow`, possibly a second input only the loops' shape comes from (the
/// window), the output at the parallel loops in order, and a body
/// `yield(f(out, in))` of one elementwise floating-point op.
///
/// An input padded by a constant (tensor.pad) is read unpadded: a row
/// outside the source is the padding value, and so is each element of a
/// row outside it, picked by the shuffle that keeps every s-th element
/// (the window loops of the last dim are unrolled, so each shuffle's
/// picks are constants). ResNet's 3x3 stride-2 max pool spent most of its
/// 0.3 ms writing its padded input, its -inf borders as scatters.
static LogicalResult rewritePooling(RewriterBase &rewriter,
                                    linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumDpsInputs() < 1 ||
      op.getNumDpsInputs() > 2 || !op.hasPureTensorSemantics())
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return failure();
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return failure();
  Operation &combine = body.front();
  BlockArgument in = body.getArgument(0);
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (combine.getNumOperands() != 2 || combine.getNumResults() != 1 ||
      yield.getOperand(0) != combine.getResult(0) ||
      !OpTrait::hasElementwiseMappableTraits(&combine) ||
      !isa<FloatType>(in.getType()) ||
      !llvm::is_contained(combine.getOperands(), in) ||
      !llvm::is_contained(combine.getOperands(), out))
    return failure();
  // A second input is only the window's shape: its value is not used.
  if (op.getNumDpsInputs() == 2 && !body.getArgument(1).use_empty())
    return failure();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap inMap = maps[0], outMap = maps.back();
  unsigned parallel = outMap.getNumResults();
  if (parallel == 0 || op.getNumParallelLoops() != parallel ||
      op.getNumReductionLoops() + parallel != ranges.size())
    return failure();
  for (unsigned i = 0; i < parallel; ++i)
    if (auto d = dyn_cast<AffineDimExpr>(outMap.getResult(i));
        !d || d.getPosition() != i)
      return failure();
  for (unsigned i = parallel; i < ranges.size(); ++i)
    if (op.getIteratorTypesArray()[i] != utils::IteratorType::reduction)
      return failure();
  // The row: the output's last loop, read only in the input's last dim,
  // with a positive stride; the window loops of that dim are unrolled.
  unsigned rowLoop = parallel - 1;
  int64_t width = ranges[rowLoop];
  AffineExpr last = inMap.getResults().back();
  int64_t stride = coefficientOf(last, rowLoop);
  SmallVector<unsigned> terms;
  if (width > kMaxRow || stride < 1 || !windowTerms(last, terms))
    return failure();
  SmallVector<bool> unrolled(ranges.size(), false);
  for (unsigned loop : terms) {
    if (loop == rowLoop)
      continue;
    if (loop < parallel || ranges[loop] > kMaxUnrolled)
      return failure();
    unrolled[loop] = true;
  }
  for (AffineExpr expr : inMap.getResults().drop_back()) {
    SmallVector<unsigned> loops;
    if (!windowTerms(expr, loops) || expr.isFunctionOfDim(rowLoop))
      return failure();
    for (unsigned loop : loops)
      if (unrolled[loop])
        return failure();
  }
  // The input, or the source of a constant pad of it.
  Value input = op.getDpsInputOperand(0)->get();
  auto inputType = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> low(inputType.getRank(), 0),
      high(inputType.getRank(), 0);
  Value padding;
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    Value value = pad.getConstantPaddingValue();
    if (value && pad.getStaticLow().size() == low.size() &&
        !ShapedType::isDynamicShape(pad.getSourceType().getShape()) &&
        !llvm::is_contained(pad.getStaticLow(), ShapedType::kDynamic) &&
        !llvm::is_contained(pad.getStaticHigh(), ShapedType::kDynamic) &&
        (!value.getParentRegion() ||
         value.getParentRegion()->isAncestor(op->getParentRegion()))) {
      low = llvm::to_vector(pad.getStaticLow());
      high = llvm::to_vector(pad.getStaticHigh());
      padding = value;
      input = pad.getSource();
      inputType = pad.getSourceType();
    }
  }
  if (inputType.getShape().back() > kMaxInputRow ||
      ShapedType::isDynamicShape(inputType.getShape()))
    return failure();
  int64_t inputWidth = inputType.getShape().back();

  Location loc = op.getLoc();
  // An output filled with a constant (the pooling's identity): rows start
  // from it, and the fill is not needed.
  Value init = op.getDpsInitOperand(0)->get();
  Value fillValue;
  if (auto fill = init.getDefiningOp<linalg::FillOp>();
      fill && fill.getInputs()[0].getType() ==
                  cast<RankedTensorType>(init.getType()).getElementType()) {
    fillValue = fill.getInputs()[0];
    init = fill.getOutputs()[0];
  }
  auto type = cast<RankedTensorType>(init.getType());
  Type elem = type.getElementType();
  auto rowType = VectorType::get({width}, elem);
  auto inputRowType = VectorType::get({inputWidth}, elem);

  rewriter.setInsertionPoint(op);
  // One iteration per output row (the parallel loops but the last).
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (unsigned i = 0; i < rowLoop; ++i) {
    lbs.push_back(rewriter.getIndexAttr(0));
    ubs.push_back(rewriter.getIndexAttr(ranges[i]));
    steps.push_back(rewriter.getIndexAttr(1));
  }
  auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                      ValueRange{init}, std::nullopt);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    OpBuilder &b = rewriter;
    b.setInsertionPointToStart(forall.getBody());
    Value dest = forall.getRegionOutArgs()[0];
    SmallVector<Value> ivs(forall.getInductionVars());
    Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
    Value zero =
        arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(elem)));
    // Padded elements read the padding value: a row of them.
    Value padRow;
    if (padding)
      padRow = vector::BroadcastOp::create(b, loc, inputRowType, padding);
    // The row's slice of the output, and its initial values.
    SmallVector<OpFoldResult> offsets, sizes, strides;
    rowSlice(b, ivs, width, offsets, sizes, strides);
    SmallVector<int64_t> sliceShape(parallel, 1);
    sliceShape.back() = width;
    auto sliceType = RankedTensorType::get(sliceShape, elem);
    Value slice = tensor::ExtractSliceOp::create(b, loc, sliceType, dest,
                                                 offsets, sizes, strides);
    SmallVector<Value> zeros(parallel, c0);
    Value acc =
        fillValue
            ? vector::BroadcastOp::create(b, loc, rowType, fillValue)
                  .getResult()
            : vector::TransferReadOp::create(b, loc, rowType, slice, zeros,
                                             zero, ArrayRef<bool>{true})
                  .getResult();
    // The input row at the loop values `loops`: each leading dim's index
    // less its padding, clamped into the source, the row the padding value
    // where it is outside.
    auto readRaw = [&](ArrayRef<Value> loops) -> Value {
      SmallVector<Value> idx;
      Value inside;
      for (auto [i, expr] : llvm::enumerate(inMap.getResults().drop_back())) {
        Value index = emitIndex(b, loc, expr, loops);
        if (low[i] == 0 && high[i] == 0) {
          idx.push_back(index);
          continue;
        }
        index = arith::SubIOp::create(
            b, loc, index, arith::ConstantIndexOp::create(b, loc, low[i]));
        Value size =
            arith::ConstantIndexOp::create(b, loc, inputType.getDimSize(i));
        Value valid = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, index, c0),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                                  size));
        inside = inside ? arith::AndIOp::create(b, loc, inside, valid) : valid;
        Value maxIndex =
            arith::ConstantIndexOp::create(b, loc, inputType.getDimSize(i) - 1);
        idx.push_back(arith::MaxSIOp::create(
            b, loc, c0, arith::MinSIOp::create(b, loc, index, maxIndex)));
      }
      idx.push_back(c0);
      Value row = vector::TransferReadOp::create(
          b, loc, inputRowType, input, idx, zero, ArrayRef<bool>{true});
      if (inside)
        row = arith::SelectOp::create(b, loc, inside, row, padRow);
      return row;
    };
    // The row's elements at ow * s + (kw * d) - padding for the unrolled
    // loops' values `fixed`: the first element's column is the last dim's
    // expression (loops times coefficients, no constant: windowTerms) at
    // ow = 0.
    auto pick = [&](Value row, ArrayRef<int64_t> fixed) -> Value {
      int64_t start = -low.back();
      for (unsigned loop : terms)
        if (loop != rowLoop)
          start += coefficientOf(last, loop) * fixed[loop];
      SmallVector<int64_t> picks;
      for (int64_t i = 0; i < width; ++i) {
        int64_t column = start + i * stride;
        picks.push_back(column >= 0 && column < inputWidth ? column
                                                           : inputWidth);
      }
      if (width == inputWidth &&
          llvm::equal(picks, llvm::seq<int64_t>(0, width)))
        return row;
      return vector::ShuffleOp::create(b, loc, row, padRow ? padRow : row,
                                       picks);
    };
    auto combineRows = [&](Value acc, Value row) {
      IRMapping mapping;
      mapping.map(in, row);
      mapping.map(out, acc);
      Operation *clone = b.clone(combine, mapping);
      clone->getResult(0).setType(row.getType());
      return clone->getResult(0);
    };
    // The window loops as a nest of scf.for carrying the row (the unrolled
    // ones as constants; with `raw`, skipped, and the input rows combined
    // whole).
    SmallVector<int64_t> fixed(ranges.size(), 0);
    std::function<Value(unsigned, SmallVector<Value> &, Value, bool)> window =
        [&](unsigned loop, SmallVector<Value> &loops, Value acc,
            bool raw) -> Value {
      if (loop == ranges.size())
        return combineRows(acc,
                           raw ? readRaw(loops) : pick(readRaw(loops), fixed));
      if (unrolled[loop]) {
        if (raw)
          return window(loop + 1, loops, acc, raw);
        for (int64_t i = 0; i < ranges[loop]; ++i) {
          fixed[loop] = i;
          loops[loop] = arith::ConstantIndexOp::create(b, loc, i);
          acc = window(loop + 1, loops, acc, raw);
        }
        return acc;
      }
      auto forOp = scf::ForOp::create(
          b, loc, c0, arith::ConstantIndexOp::create(b, loc, ranges[loop]),
          arith::ConstantIndexOp::create(b, loc, 1), ValueRange{acc});
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(forOp.getBody());
      loops[loop] = forOp.getInductionVar();
      Value next = window(loop + 1, loops, forOp.getRegionIterArgs()[0], raw);
      scf::YieldOp::create(b, loc, next);
      return forOp.getResult(0);
    };
    // Loop values: the row's iterations, the output row's start (null: 0),
    // the window loops as the nest sets them.
    SmallVector<Value> loops(ranges.size());
    for (unsigned i = 0; i < rowLoop; ++i)
      loops[i] = ivs[i];
    // A max or min pool from a fill combines the input rows whole first,
    // then picks each unrolled window position's elements once (3x3
    // stride 2: 3 shuffles per output row, not 9; combining a value twice
    // leaves max and min unchanged).
    bool rowsFirst = fillValue &&
                     llvm::any_of(unrolled, [](bool u) { return u; }) &&
                     isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
                         arith::MinNumFOp>(combine);
    if (rowsFirst) {
      Value rows =
          window(parallel, loops,
                 vector::BroadcastOp::create(b, loc, inputRowType, fillValue),
                 /*raw=*/true);
      std::function<Value(unsigned, Value)> picks = [&](unsigned loop,
                                                        Value acc) -> Value {
        if (loop == ranges.size())
          return combineRows(acc, pick(rows, fixed));
        if (!unrolled[loop])
          return picks(loop + 1, acc);
        for (int64_t i = 0; i < ranges[loop]; ++i) {
          fixed[loop] = i;
          acc = picks(loop + 1, acc);
        }
        return acc;
      };
      acc = picks(parallel, acc);
    } else {
      acc = window(parallel, loops, acc, /*raw=*/false);
    }
    slice = vector::TransferWriteOp::create(b, loc, acc, slice, zeros,
                                            ArrayRef<bool>{true})
                .getResult();
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, slice, dest, offsets, sizes,
                                          strides);
  }
  Value original = op.getDpsInputOperand(0)->get();
  Value filled = op.getDpsInitOperand(0)->get();
  rewriter.replaceOp(op, forall.getResult(0));
  // The pad and the fill read through are dead now.
  for (Value value : {original, filled})
    if (Operation *producer = value.getDefiningOp();
        isa_and_nonnull<tensor::PadOp, linalg::FillOp>(producer) &&
        producer->use_empty())
      rewriter.eraseOp(producer);
  return success();
}

namespace {
struct CPUPoolingKernelsPass final
    : ms::impl::CPUPoolingKernelsPassBase<CPUPoolingKernelsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics)
      (void)rewritePooling(rewriter, op);
  }
};
} // namespace
