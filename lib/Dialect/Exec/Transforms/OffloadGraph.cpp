//===- OffloadGraph.cpp - runs of steps become offloaded graphs (O2) ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/Passes.h"

namespace mlir::ms::exec {
#define GEN_PASS_DEF_OFFLOADGRAPHPASS
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::ms::exec

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

/// Returns the queue of a launch or copy.
static int64_t queueOf(Operation *op) {
  if (auto launch = dyn_cast<LaunchOp>(op))
    return launch.getQueue();
  return cast<CopyOp>(op).getQueue();
}

namespace {
struct OffloadGraphPass final
    : exec::impl::OffloadGraphPassBase<OffloadGraphPass> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    // Declarations first, so that any run of steps is contiguous.
    Operation *firstStep = nullptr;
    for (Operation &op : llvm::make_early_inc_range(body)) {
      bool declaration = isBufferDeclaration(&op);
      if (!declaration && !firstStep)
        firstStep = &op;
      else if (declaration && firstStep)
        op.moveBefore(firstStep);
    }
    SmallVector<SmallVector<Operation *>> runs;
    for (Operation &op : body) {
      if (!isa<LaunchOp, CopyOp>(op)) {
        if (!isBufferDeclaration(&op))
          runs.emplace_back();
        continue;
      }
      if (runs.empty() || runs.back().empty() ||
          queueOf(runs.back().back()) != queueOf(&op))
        runs.emplace_back();
      runs.back().push_back(&op);
    }
    for (ArrayRef<Operation *> run : runs) {
      if (run.empty())
        continue;
      OpBuilder b(run.front());
      auto offload = OffloadOp::create(b, run.front()->getLoc(), StringAttr(),
                                       queueOf(run.front()));
      Block *region = new Block();
      offload.getBody().push_back(region);
      for (Operation *op : run)
        op->moveBefore(region, region->end());
    }
  }
};
} // namespace
