//===- OverlapCollectives.cpp - collectives on the communication queue ----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/Passes.h"

namespace mlir::ms::exec {
#define GEN_PASS_DEF_OVERLAPCOLLECTIVESPASS
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::ms::exec

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

/// Returns whether step `op` (an offloaded graph: any step inside it) reads
/// or writes `a` or `b`.
static bool usesEither(Operation *op, Value a, Value b) {
  bool uses = false;
  op->walk([&](Operation *inner) {
    uses |= llvm::is_contained(inner->getOperands(), a) ||
            llvm::is_contained(inner->getOperands(), b);
  });
  return uses;
}

namespace {
struct OverlapCollectivesPass final
    : exec::impl::OverlapCollectivesPassBase<OverlapCollectivesPass> {
  void runOnOperation() override {
    Block &body = getOperation().getBody().front();
    SmallVector<CollectiveOp> collectives;
    // all_slice is a local copy: it computes on queue 0.
    for (auto collective : body.getOps<CollectiveOp>())
      if (collective.getQueue() == 0 && collective.getOp() != "all_slice")
        collectives.push_back(collective);
    auto eventType = EventType::get(&getContext());
    OpBuilder b(&getContext());
    for (CollectiveOp collective : collectives) {
      Location loc = collective.getLoc();
      b.setInsertionPoint(collective);
      auto ready = SignalOp::create(b, loc, eventType, /*queue=*/0);
      WaitOp::create(b, loc, ready, /*queue=*/1);
      collective.setQueue(1);
      b.setInsertionPointAfter(collective);
      auto done = SignalOp::create(b, loc, eventType, /*queue=*/1);
      // Queue 0 waits before its first step on the collective's buffers.
      // Later collectives run after it on queue 1 anyway.
      Operation *consumer = nullptr;
      for (Operation *op = done->getNextNode(); op && !consumer;
           op = op->getNextNode())
        if (getStepQueue(op) == 0 && !isa<SignalOp, WaitOp>(op) &&
            !(isa<CollectiveOp>(op) &&
              cast<CollectiveOp>(op).getOp() != "all_slice") &&
            usesEither(op, collective.getSource(), collective.getTarget()))
          consumer = op;
      if (consumer)
        b.setInsertionPoint(consumer);
      else
        b.setInsertionPointToEnd(&body);
      WaitOp::create(b, loc, done, /*queue=*/0);
    }
  }
};
} // namespace
