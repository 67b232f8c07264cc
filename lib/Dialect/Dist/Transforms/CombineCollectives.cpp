//===- CombineCollectives.cpp - fewer, cheaper collectives ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Upstream partitioning sums a split contraction at once (no partial-sum
// layout). These patterns carry the partial sums further where that saves
// communication: a sum moves past reshapes and transposes (the same
// elements, rearranged), two sums added are one sum of the addition, a
// slice of a sum is a reduce_scatter, and a slice of a sum plus (minus,
// times) another value is the other value's slice with that sum's slice.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/Transforms/Passes.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ms::dist {
#define GEN_PASS_DEF_COMBINECOLLECTIVESPASS
#include "ms/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace mlir::ms::dist

using namespace mlir;
using namespace mlir::ms;

namespace {
/// all_slice(all_reduce(x)) over the same axes -> reduce_scatter(x).
struct SliceOfAllReduce final : OpRewritePattern<shard::AllSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(shard::AllSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto reduce = slice.getInput().getDefiningOp<shard::AllReduceOp>();
    if (!reduce || !reduce->hasOneUse() ||
        reduce.getGrid() != slice.getGrid() ||
        reduce.getGridAxes() != slice.getGridAxes() ||
        reduce.getInput().getType() != reduce.getType())
      return rewriter.notifyMatchFailure(slice, "not a slice of a sum");
    rewriter.replaceOpWithNewOp<shard::ReduceScatterOp>(
        slice, slice.getType(), slice.getGrid(), slice.getGridAxes(),
        reduce.getInput(), reduce.getReduction(), slice.getSliceAxis());
    rewriter.eraseOp(reduce);
    return success();
  }
};

/// An all_reduce with one use, summing over `grid`'s axes.
shard::AllReduceOp getSoleSum(Value value) {
  auto reduce = value.getDefiningOp<shard::AllReduceOp>();
  if (!reduce || !reduce->hasOneUse() ||
      reduce.getReduction() != shard::ReductionKind::Sum ||
      reduce.getInput().getType() != reduce.getType())
    return {};
  return reduce;
}

/// reshape or transpose of all_reduce(x) -> all_reduce of the reshape or
/// transpose of x: the same elements, summed later (where an addition or
/// a slice can take the sum in).
template <typename Op>
struct LayoutOfAllReduce final : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    shard::AllReduceOp reduce = getSoleSum(op->getOperand(0));
    if (!reduce || op->getNumOperands() != 1)
      return rewriter.notifyMatchFailure(op, "not a layout of a sum");
    Operation *moved = rewriter.clone(*op);
    moved->setOperand(0, reduce.getInput());
    rewriter.replaceOpWithNewOp<shard::AllReduceOp>(
        op, op.getType(), reduce.getGrid(), reduce.getGridAxes(),
        moved->getResult(0), reduce.getReduction());
    rewriter.eraseOp(reduce);
    return success();
  }
};

/// all_slice(all_reduce(x) op y) -> all_slice(all_reduce(x)) op y', for an
/// elementwise addition, subtraction or product with one use: y' is y's
/// slice, or y itself where it broadcasts along the sliced dim (a bias).
/// The slice of the sum then becomes a reduce_scatter (a row-parallel
/// product and its bias, resharded by sequence: Megatron's sequence
/// parallelism).
template <typename Op>
struct SliceOfSumAndOperand final : OpRewritePattern<shard::AllSliceOp> {
  using OpRewritePattern<shard::AllSliceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(shard::AllSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto op = slice.getInput().template getDefiningOp<Op>();
    if (!op || !op->hasOneUse() || op.getType() != slice.getInput().getType())
      return rewriter.notifyMatchFailure(slice, "not a slice of an op");
    auto sliced = cast<RankedTensorType>(slice.getType());
    int64_t axis = slice.getSliceAxis().getSExtValue();
    int64_t rank = sliced.getRank();
    for (int i = 0; i < 2; ++i) {
      shard::AllReduceOp reduce = getSoleSum(op->getOperand(i));
      if (!reduce || reduce.getGrid() != slice.getGrid() ||
          reduce.getGridAxes() != slice.getGridAxes() ||
          reduce.getType() != op.getType())
        continue;
      Value other = op->getOperand(1 - i);
      auto otherType = dyn_cast<RankedTensorType>(other.getType());
      // Two sums added are one sum (SumOfAllReduces), then one slice.
      if (!otherType || !otherType.hasStaticShape() || getSoleSum(other))
        continue;
      rewriter.setInsertionPoint(slice);
      // The other operand's dim aligned (from the right) with the sliced
      // one, if it has one of more than one element.
      int64_t otherAxis = axis - (rank - otherType.getRank());
      if (otherAxis >= 0 && otherType.getDimSize(otherAxis) != 1) {
        if (otherType.getDimSize(otherAxis) !=
            cast<RankedTensorType>(op.getType()).getDimSize(axis))
          continue;
        SmallVector<int64_t> shape(otherType.getShape());
        shape[otherAxis] = sliced.getDimSize(axis);
        other = shard::AllSliceOp::create(
            rewriter, slice.getLoc(),
            RankedTensorType::get(shape, otherType.getElementType()), other,
            slice.getGrid(), slice.getGridAxes(), otherAxis);
      }
      Value partial = shard::AllSliceOp::create(
          rewriter, slice.getLoc(), sliced, reduce.getResult(),
          slice.getGrid(), slice.getGridAxes(), axis);
      Value lhs = i == 0 ? partial : other, rhs = i == 0 ? other : partial;
      rewriter.replaceOpWithNewOp<Op>(slice, sliced, lhs, rhs);
      rewriter.eraseOp(op);
      return success();
    }
    return rewriter.notifyMatchFailure(slice, "no sum to slice");
  }
};

/// all_reduce(a) + all_reduce(b) over the same axes -> all_reduce(a + b),
/// and (y + all_reduce(a)) + all_reduce(b) -> y + all_reduce(a + b): one
/// collective instead of two (the two branches of a parallel attention and
/// feed-forward block, both row-parallel, added into the residual y).
struct SumOfAllReduces final : OpRewritePattern<graph::AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(graph::AddOp add,
                                PatternRewriter &rewriter) const override {
    Type type = add.getType();
    auto compatible = [&](shard::AllReduceOp a, shard::AllReduceOp b) {
      return a && b && a != b && a.getGrid() == b.getGrid() &&
             a.getGridAxes() == b.getGridAxes() && a.getType() == type &&
             b.getType() == type;
    };
    // The sums of the two operands, or of one operand and of an operand
    // of the other (an addition with one use), and that addition's other
    // operand.
    shard::AllReduceOp first, second;
    graph::AddOp inner;
    Value rest;
    shard::AllReduceOp lhs = getSoleSum(add.getLhs()),
                       rhs = getSoleSum(add.getRhs());
    if (compatible(lhs, rhs)) {
      first = lhs;
      second = rhs;
    } else {
      for (int i = 0; i < 2 && !first; ++i) {
        shard::AllReduceOp outer = i == 0 ? lhs : rhs;
        auto candidate = add->getOperand(1 - i).getDefiningOp<graph::AddOp>();
        if (!outer || !candidate || !candidate->hasOneUse() ||
            candidate.getType() != type)
          continue;
        for (int j = 0; j < 2 && !first; ++j) {
          shard::AllReduceOp sum = getSoleSum(candidate->getOperand(j));
          Value other = candidate->getOperand(1 - j);
          if (compatible(sum, outer) && other.getType() == type) {
            first = sum;
            second = outer;
            inner = candidate;
            rest = other;
          }
        }
      }
    }
    if (!first)
      return rewriter.notifyMatchFailure(add, "not an addition of two sums");
    // The addition takes the later sum's place in the program.
    rewriter.setInsertionPoint(add);
    Value partial = graph::AddOp::create(rewriter, add.getLoc(), type,
                                         first.getInput(), second.getInput());
    Value summed = shard::AllReduceOp::create(
        rewriter, add.getLoc(), type, first.getGrid(), first.getGridAxes(),
        partial, first.getReduction());
    if (rest)
      summed = graph::AddOp::create(rewriter, add.getLoc(), type, rest, summed);
    rewriter.replaceOp(add, summed);
    if (inner)
      rewriter.eraseOp(inner);
    rewriter.eraseOp(first);
    rewriter.eraseOp(second);
    return success();
  }
};

struct CombineCollectivesPass final
    : dist::impl::CombineCollectivesPassBase<CombineCollectivesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    dist::populateCombineCollectivesPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::ms::dist::populateCombineCollectivesPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SliceOfAllReduce, SumOfAllReduces,
               SliceOfSumAndOperand<graph::AddOp>,
               SliceOfSumAndOperand<graph::SubOp>,
               SliceOfSumAndOperand<graph::MulOp>,
               LayoutOfAllReduce<graph::ReshapeOp>,
               LayoutOfAllReduce<graph::TransposeOp>>(patterns.getContext());
}
