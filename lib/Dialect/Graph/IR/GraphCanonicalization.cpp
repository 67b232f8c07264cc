//===- GraphCanonicalization.cpp - msgraph canonicalization patterns ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites that need more than one op (folders handle the one-op cases):
// reshape and transpose chains, and negations absorbed into add and mul.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::ms::graph;

namespace {

/// reshape(reshape(x)) -> reshape(x): a reshape only reinterprets the
/// row-major element order, so the inner one is redundant.
struct FoldReshapeChain final : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ReshapeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};

/// reshape(x, shape) with a static result -> reshape(x): the shape operand
/// carries nothing the result type does not.
struct DropStaticReshapeShape final : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getShape() || !op.getType().hasStaticShape())
      return rewriter.notifyMatchFailure(op, "needs its shape operand");
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, op.getType(), op.getInput(),
                                           Value());
    return success();
  }
};

/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes final : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    ArrayRef<int64_t> outer = op.getPermutation();
    ArrayRef<int64_t> first = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : outer)
      composed.push_back(first[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             composed);
    return success();
  }
};

/// add(x, neg(y)) -> sub(x, y) and add(neg(x), y) -> sub(y, x).
struct AddOfNegToSub final : OpRewritePattern<AddOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddOp op,
                                PatternRewriter &rewriter) const override {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (auto neg = rhs.getDefiningOp<NegOp>()) {
      rewriter.replaceOpWithNewOp<SubOp>(op, op.getType(), lhs,
                                         neg.getInput());
      return success();
    }
    if (auto neg = lhs.getDefiningOp<NegOp>()) {
      rewriter.replaceOpWithNewOp<SubOp>(op, op.getType(), rhs,
                                         neg.getInput());
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no negated operand");
  }
};

/// mul(neg(x), neg(y)) -> mul(x, y).
struct MulOfNegs final : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp op,
                                PatternRewriter &rewriter) const override {
    auto lhs = op.getLhs().getDefiningOp<NegOp>();
    auto rhs = op.getRhs().getDefiningOp<NegOp>();
    if (!lhs || !rhs)
      return rewriter.notifyMatchFailure(op, "operands are not both negated");
    rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), lhs.getInput(),
                                       rhs.getInput());
    return success();
  }
};

} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldReshapeChain, DropStaticReshapeShape>(context);
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

void AddOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<AddOfNegToSub>(context);
}

void MulOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                        MLIRContext *context) {
  results.add<MulOfNegs>(context);
}
