//===- OrderLoops.cpp - parallel loops outside reductions for the GPU -----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ms-cuda-map-to-gpu launches a thread (or a block) per iteration of a
// kernel's top-level parallel loop; a linalg op whose reductions come first,
// such as a sum over the leading axis, would otherwise become a top-level
// sequential loop and run on one thread.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"
#include "ms/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDAORDERLOOPSPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// Reorders a linalg op's loops as its parallel loops, then its reductions,
/// each in their order (named ops are generalized first).
struct ParallelLoopsFirst final : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    SmallVector<unsigned> perm;
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if (iterator == utils::IteratorType::parallel)
        perm.push_back(i);
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if (iterator != utils::IteratorType::parallel)
        perm.push_back(i);
    if (llvm::equal(perm, llvm::seq<unsigned>(0, perm.size())))
      return rewriter.notifyMatchFailure(op, "parallel loops already first");
    return interchangeLinalgLoops(rewriter, op, perm);
  }
};

struct CUDAOrderLoopsPass final
    : mlir::ms::impl::CUDAOrderLoopsPassBase<CUDAOrderLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ParallelLoopsFirst>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
