//===- LoopOrder.cpp - loop orders that vectorize and parallelize well ----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ms-interchange-reductions and ms-serialize-nested-parallel: together they
// give the CPU backend loop nests whose outermost parallel loop runs on
// OpenMP threads and whose innermost loop is a contiguous, vectorizable
// parallel dimension.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ms {
#define GEN_PASS_DEF_INTERCHANGEREDUCTIONSPASS
#define GEN_PASS_DEF_SERIALIZENESTEDPARALLELPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;

/// Returns the permutation that moves the reductions of a
/// (parallel..., reduction...) nest in front of its last parallel loop, or
/// nothing when the nest has another shape.
static std::optional<SmallVector<unsigned>>
reductionsInwardPermutation(ArrayRef<utils::IteratorType> iterators) {
  unsigned parallel = 0;
  while (parallel < iterators.size() &&
         iterators[parallel] == utils::IteratorType::parallel)
    ++parallel;
  unsigned reductions = iterators.size() - parallel;
  if (parallel < 2 || reductions == 0)
    return std::nullopt;
  for (unsigned i = parallel; i < iterators.size(); ++i)
    if (iterators[i] != utils::IteratorType::reduction)
      return std::nullopt;
  SmallVector<unsigned> perm;
  for (unsigned i = 0; i + 1 < parallel; ++i)
    perm.push_back(i);
  for (unsigned i = parallel; i < iterators.size(); ++i)
    perm.push_back(i);
  perm.push_back(parallel - 1);
  return perm;
}

namespace {
/// Named contractions -> generic, then reductions before the last parallel
/// loop.
struct InterchangeReductions final
    : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasAttr("ms.interchanged"))
      return rewriter.notifyMatchFailure(op, "already interchanged");
    auto perm = reductionsInwardPermutation(op.getIteratorTypesArray());
    if (!perm)
      return rewriter.notifyMatchFailure(op, "not (parallel..., reduction...)");
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (!generic) {
      FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
      if (failed(g))
        return failure();
      generic = *g;
    }
    FailureOr<linalg::GenericOp> result =
        linalg::interchangeGenericOp(rewriter, generic, *perm);
    if (failed(result))
      return failure();
    (*result)->setAttr("ms.interchanged", rewriter.getUnitAttr());
    return success();
  }
};

struct InterchangeReductionsPass final
    : ms::impl::InterchangeReductionsPassBase<InterchangeReductionsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<InterchangeReductions>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk([](linalg::GenericOp op) {
      op->removeAttr("ms.interchanged");
    });
  }
};

/// scf.parallel nested in another scf.parallel -> scf.for nest.
struct SerializeNestedParallel final : OpRewritePattern<scf::ParallelOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(scf::ParallelOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<scf::ParallelOp>() || op.getNumReductions() != 0)
      return rewriter.notifyMatchFailure(op, "outermost or reducing");
    Location loc = op.getLoc();
    scf::LoopNest nest =
        scf::buildLoopNest(rewriter, loc, op.getLowerBound(),
                           op.getUpperBound(), op.getStep());
    Block *body = nest.loops.back().getBody();
    Block &source = op.getRegion().front();
    rewriter.eraseOp(source.getTerminator());
    SmallVector<Value> ivs;
    for (scf::ForOp loop : nest.loops)
      ivs.push_back(loop.getInductionVar());
    rewriter.inlineBlockBefore(&source, body->getTerminator(), ivs);
    rewriter.eraseOp(op);
    return success();
  }
};

struct SerializeNestedParallelPass final
    : ms::impl::SerializeNestedParallelPassBase<SerializeNestedParallelPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SerializeNestedParallel>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
