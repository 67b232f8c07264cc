//===- FoldConstants.cpp - evaluate constant subgraphs --------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"

namespace mlir::ms::graph {
#define GEN_PASS_DEF_FOLDCONSTANTSPASS
#include "ms/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlir::ms::graph

using namespace mlir;
using namespace mlir::ms::graph;

namespace {
struct FoldConstantsPass final
    : ms::graph::impl::FoldConstantsPassBase<FoldConstantsPass> {
  using FoldConstantsPassBase::FoldConstantsPassBase;

  void runOnOperation() override {
    auto *dialect = getContext().getLoadedDialect<GraphDialect>();
    SmallVector<Operation *> ops;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op->getDialect() == dialect && !op->hasTrait<OpTrait::ConstantLike>())
        ops.push_back(op);
    });

    SmallVector<Operation *> folded;
    for (Operation *op : ops) {
      SmallVector<Attribute> operands;
      bool allConstant = llvm::all_of(op->getOperands(), [&](Value v) {
        Attribute attr;
        if (!matchPattern(v, m_Constant(&attr)))
          return false;
        operands.push_back(attr);
        return true;
      });
      if (!allConstant)
        continue;
      SmallVector<OpFoldResult> results;
      if (failed(op->fold(operands, results)) || results.empty())
        continue;
      if (!llvm::all_of(results, [&](OpFoldResult r) { return fits(r); }))
        continue;
      OpBuilder builder(op);
      SmallVector<Value> replacements;
      for (auto [result, value] : llvm::zip_equal(results, op->getResults())) {
        if (auto v = dyn_cast<Value>(result)) {
          replacements.push_back(v);
          continue;
        }
        Operation *constant = dialect->materializeConstant(
            builder, cast<Attribute>(result), value.getType(), op->getLoc());
        if (!constant)
          break;
        replacements.push_back(constant->getResult(0));
      }
      if (replacements.size() != op->getNumResults())
        continue;
      op->replaceAllUsesWith(replacements);
      folded.push_back(op);
      ++numFolded;
    }
    for (Operation *op : folded)
      op->erase();
  }

  /// Returns true when a folded result is small enough to keep.
  bool fits(OpFoldResult result) const {
    auto attr = dyn_cast_if_present<DenseElementsAttr>(
        dyn_cast_if_present<Attribute>(result));
    if (!attr)
      return isa<Value>(result) || isa_and_present<ElementsAttr>(
                                       dyn_cast_if_present<Attribute>(result));
    return attr.isSplat() || attr.getNumElements() <= maxElements;
  }
};
} // namespace
