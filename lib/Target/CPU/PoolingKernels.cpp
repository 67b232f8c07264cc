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

/// Rewrites `op` into the row kernel if it is a pooling: one input read at
/// window sums whose last dim is `ow * s + kw * d` for the output's last
/// loop `ow`, possibly a second input only the loops' shape comes from (the
/// window), the output at the parallel loops in order, and a body
/// `yield(f(out, in))` of one elementwise floating-point op.
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
  // with a positive stride.
  unsigned rowLoop = parallel - 1;
  int64_t width = ranges[rowLoop];
  AffineExpr last = inMap.getResults().back();
  int64_t stride = coefficientOf(last, rowLoop);
  SmallVector<unsigned> terms;
  if (width > kMaxRow || stride < 1 || !windowTerms(last, terms))
    return failure();
  for (AffineExpr expr : inMap.getResults().drop_back()) {
    SmallVector<unsigned> loops;
    if (!windowTerms(expr, loops) || expr.isFunctionOfDim(rowLoop))
      return failure();
  }

  Location loc = op.getLoc();
  Value input = op.getDpsInputOperand(0)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto type = cast<RankedTensorType>(init.getType());
  Type elem = type.getElementType();
  auto rowType = VectorType::get({width}, elem);

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
    // The row's slice of the output, and its initial values.
    SmallVector<OpFoldResult> offsets, sizes, strides;
    rowSlice(b, ivs, width, offsets, sizes, strides);
    SmallVector<int64_t> sliceShape(parallel, 1);
    sliceShape.back() = width;
    auto sliceType = RankedTensorType::get(sliceShape, elem);
    Value slice = tensor::ExtractSliceOp::create(b, loc, sliceType, dest,
                                                 offsets, sizes, strides);
    SmallVector<Value> zeros(parallel, c0);
    Value acc = vector::TransferReadOp::create(b, loc, rowType, slice, zeros,
                                               zero, ArrayRef<bool>{true});
    // The window loops as a nest of scf.for carrying the row.
    std::function<Value(unsigned, SmallVector<Value> &, Value)> window =
        [&](unsigned loop, SmallVector<Value> &loops, Value acc) -> Value {
      if (loop == ranges.size()) {
        SmallVector<Value> idx;
        for (AffineExpr expr : inMap.getResults())
          idx.push_back(emitIndex(b, loc, expr, loops));
        IRMapping mapping;
        mapping.map(in,
                    readStridedRow(b, loc, input, idx, width, stride, zero));
        mapping.map(out, acc);
        Operation *clone = b.clone(combine, mapping);
        clone->getResult(0).setType(rowType);
        return clone->getResult(0);
      }
      auto forOp = scf::ForOp::create(
          b, loc, c0, arith::ConstantIndexOp::create(b, loc, ranges[loop]),
          arith::ConstantIndexOp::create(b, loc, 1), ValueRange{acc});
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(forOp.getBody());
      loops[loop] = forOp.getInductionVar();
      Value next = window(loop + 1, loops, forOp.getRegionIterArgs()[0]);
      scf::YieldOp::create(b, loc, next);
      return forOp.getResult(0);
    };
    // Loop values: the row's iterations, the output row's start (null: 0),
    // the window loops as the nest sets them.
    SmallVector<Value> loops(ranges.size());
    for (unsigned i = 0; i < rowLoop; ++i)
      loops[i] = ivs[i];
    acc = window(parallel, loops, acc);
    slice = vector::TransferWriteOp::create(b, loc, acc, slice, zeros,
                                            ArrayRef<bool>{true})
                .getResult();
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, loc, slice, dest, offsets, sizes,
                                          strides);
  }
  rewriter.replaceOp(op, forall.getResult(0));
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
