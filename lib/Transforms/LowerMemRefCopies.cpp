//===- LowerMemRefCopies.cpp - memref.copy as linalg.copy -----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ms {
#define GEN_PASS_DEF_LOWERMEMREFCOPIESPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;

namespace {
/// memref.copy -> linalg.copy.
struct CopyToLinalg final : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }
};

struct LowerMemRefCopiesPass final
    : ms::impl::LowerMemRefCopiesPassBase<LowerMemRefCopiesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
