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
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

FailureOr<linalg::GenericOp>
mlir::ms::interchangeLinalgLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                                 ArrayRef<unsigned> permutation) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
    if (failed(g))
      return failure();
    generic = *g;
  }
  return linalg::interchangeGenericOp(rewriter, generic, permutation);
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
    FailureOr<linalg::GenericOp> result =
        ms::interchangeLinalgLoops(rewriter, op, *perm);
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

/// The static trip count of a loop with bounds `lbs`, `ubs`, `steps`, or
/// nullopt when one is dynamic.
static std::optional<int64_t> staticTripCount(ValueRange lbs, ValueRange ubs,
                                              ValueRange steps) {
  int64_t count = 1;
  for (auto [lb, ub, step] : llvm::zip_equal(lbs, ubs, steps)) {
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> s = getConstantIntValue(step);
    if (!l || !u || !s || *s <= 0)
      return std::nullopt;
    count *= std::max<int64_t>(0, llvm::divideCeil(*u - *l, *s));
  }
  return count;
}

/// How many elements the innermost body of `op`'s loop nest computes (the
/// deepest product of trip counts, times the elements of the widest vector
/// an op of a body computes: a loop over vector rows does a row's worth of
/// work per iteration), or nullopt when a bound is dynamic.
static std::optional<int64_t> nestWork(Operation *op) {
  std::optional<int64_t> own = 1;
  if (auto parallel = dyn_cast<scf::ParallelOp>(op))
    own = staticTripCount(parallel.getLowerBound(), parallel.getUpperBound(),
                          parallel.getStep());
  else if (auto loop = dyn_cast<scf::ForOp>(op))
    own = staticTripCount(loop.getLowerBound(), loop.getUpperBound(),
                          loop.getStep());
  if (!own)
    return std::nullopt;
  int64_t inner = 1;
  for (Region &region : op->getRegions()) {
    for (Operation &child : region.getOps()) {
      if (!isa<scf::ParallelOp, scf::ForOp>(child) &&
          child.getNumRegions() == 0) {
        for (Type type : child.getResultTypes())
          if (auto vector = dyn_cast<VectorType>(type))
            inner = std::max(inner, vector.getNumElements());
        continue;
      }
      std::optional<int64_t> work = nestWork(&child);
      if (!work)
        return std::nullopt;
      inner = std::max(inner, *work);
    }
  }
  return *own * inner;
}

/// scf.parallel nested in another scf.parallel (or an outermost one doing
/// less than `minWork` innermost iterations) -> scf.for nest.
struct SerializeNestedParallel final : OpRewritePattern<scf::ParallelOp> {
  SerializeNestedParallel(MLIRContext *context, int64_t minWork)
      : OpRewritePattern(context), minWork(minWork) {}

  LogicalResult matchAndRewrite(scf::ParallelOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getNumReductions() != 0)
      return rewriter.notifyMatchFailure(op, "reducing");
    if (!op->getParentOfType<scf::ParallelOp>()) {
      std::optional<int64_t> work = nestWork(op);
      if (minWork <= 0 || !work || *work >= minWork)
        return rewriter.notifyMatchFailure(op, "outermost and large enough");
    }
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

  int64_t minWork;
};

/// Outermost scf.parallel over several dims -> scf.parallel over its
/// leading dims that give `minIterations` iterations, an scf.for nest over
/// the others inside.
struct SplitParallelDims final : OpRewritePattern<scf::ParallelOp> {
  SplitParallelDims(MLIRContext *context, int64_t minIterations)
      : OpRewritePattern(context), minIterations(minIterations) {}

  LogicalResult matchAndRewrite(scf::ParallelOp op,
                                PatternRewriter &rewriter) const override {
    if (minIterations <= 0 || op.getNumReductions() != 0 ||
        op->getParentOfType<scf::ParallelOp>())
      return rewriter.notifyMatchFailure(op, "nested or reducing");
    ValueRange lbs = op.getLowerBound(), ubs = op.getUpperBound(),
               steps = op.getStep();
    unsigned dims = lbs.size(), keep = 0;
    int64_t product = 1;
    while (keep < dims && product < minIterations) {
      std::optional<int64_t> count = staticTripCount(
          lbs.slice(keep, 1), ubs.slice(keep, 1), steps.slice(keep, 1));
      if (!count)
        return rewriter.notifyMatchFailure(op, "dynamic trip count");
      product *= *count;
      ++keep;
    }
    if (keep >= dims)
      return rewriter.notifyMatchFailure(op, "every dim needed");
    Location loc = op.getLoc();
    auto outer = scf::ParallelOp::create(rewriter, loc, lbs.take_front(keep),
                                         ubs.take_front(keep),
                                         steps.take_front(keep));
    rewriter.setInsertionPoint(outer.getBody()->getTerminator());
    scf::LoopNest nest =
        scf::buildLoopNest(rewriter, loc, lbs.drop_front(keep),
                           ubs.drop_front(keep), steps.drop_front(keep));
    SmallVector<Value> ivs(outer.getInductionVars());
    for (scf::ForOp loop : nest.loops)
      ivs.push_back(loop.getInductionVar());
    Block &source = op.getRegion().front();
    rewriter.eraseOp(source.getTerminator());
    rewriter.inlineBlockBefore(&source,
                               nest.loops.back().getBody()->getTerminator(),
                               ivs);
    rewriter.eraseOp(op);
    return success();
  }

  int64_t minIterations;
};

struct SerializeNestedParallelPass final
    : ms::impl::SerializeNestedParallelPassBase<SerializeNestedParallelPass> {
  using SerializeNestedParallelPassBase::SerializeNestedParallelPassBase;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<SerializeNestedParallel>(&getContext(), minParallelWork);
    patterns.add<SplitParallelDims>(&getContext(), minParallelIterations);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
