//===- EliminateDeadCode.cpp - remove unused side-effect-free ops ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/Iterators.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::ms::graph {
#define GEN_PASS_DEF_ELIMINATEDEADCODEPASS
#include "ms/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlir::ms::graph

using namespace mlir;
using namespace mlir::ms::graph;

namespace {
struct EliminateDeadCodePass final
    : ms::graph::impl::EliminateDeadCodePassBase<EliminateDeadCodePass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    // Post-order over reversed blocks visits users before their producers,
    // so a dead chain disappears in one walk.
    root->walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (op == root || !isOpTriviallyDead(op))
        return;
      op->erase();
      ++numErased;
    });
  }
};
} // namespace
