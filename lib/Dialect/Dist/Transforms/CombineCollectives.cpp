//===- CombineCollectives.cpp - all_reduce + all_slice as reduce_scatter --===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/Transforms/Passes.h"

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
  patterns.add<SliceOfAllReduce>(patterns.getContext());
}
