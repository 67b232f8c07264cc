//===- LowerMemRefCopies.cpp - memref.copy as linalg.copy -----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"
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

/// The fill that gives `buffer` its one value: `buffer` is a fresh
/// allocation, the fill (of buffer semantics) writes it whole, and its other
/// users are copies from it and deallocations; null when not.
static linalg::FillOp getOnlyFill(Value buffer) {
  if (!buffer.getDefiningOp<memref::AllocOp>())
    return nullptr;
  linalg::FillOp fill;
  for (Operation *user : buffer.getUsers()) {
    if (auto f = dyn_cast<linalg::FillOp>(user)) {
      if (fill || !f.hasPureBufferSemantics() || f.getDpsInits()[0] != buffer)
        return nullptr;
      fill = f;
      continue;
    }
    auto copy = dyn_cast<memref::CopyOp>(user);
    if ((copy && copy.getSource() == buffer) || isa<memref::DeallocOp>(user))
      continue;
    return nullptr;
  }
  return fill;
}

/// Fills the target of each copy from a buffer holding one value
/// (getOnlyFill) that its fill dominates with that value instead, and
/// erases the buffer once nothing copies from it.
static void fillInsteadOfCopying(Operation *root) {
  DominanceInfo dominance(root);
  SmallVector<memref::CopyOp> copies;
  root->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    Value source = copy.getSource();
    linalg::FillOp fill = getOnlyFill(source);
    if (!fill || !dominance.properlyDominates(fill.getOperation(), copy))
      continue;
    OpBuilder builder(copy);
    linalg::FillOp::create(builder, copy.getLoc(), fill.getDpsInputs()[0],
                           copy.getTarget());
    copy->erase();
    if (llvm::any_of(source.getUsers(), llvm::IsaPred<memref::CopyOp>))
      continue;
    for (Operation *user : llvm::make_early_inc_range(source.getUsers()))
      user->erase();
    source.getDefiningOp()->erase();
  }
}

struct LowerMemRefCopiesPass final
    : ms::impl::LowerMemRefCopiesPassBase<LowerMemRefCopiesPass> {
  void runOnOperation() override {
    fillInsteadOfCopying(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<CopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
