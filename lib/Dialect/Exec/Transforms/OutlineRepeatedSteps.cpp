//===- OutlineRepeatedSteps.cpp - repeated layers as calls of one body ----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/Dialect/Exec/Transforms/RepeatedSteps.h"

namespace mlir::ms::exec {
#define GEN_PASS_DEF_OUTLINEREPEATEDSTEPSPASS
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::ms::exec

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

/// Writes the first run of `repeat` as a body after `plan` and replaces
/// every run by a call of it.
static void outline(PlanOp plan, ArrayRef<Operation *> steps,
                    const RepeatedSteps &repeat, SymbolTable &symbols) {
  OpBuilder b(plan->getContext());
  b.setInsertionPointAfter(plan);
  Location loc = steps[repeat.start]->getLoc();
  auto body = BodyOp::create(b, loc, (plan.getSymName() + "_body").str());
  // Renames the body when the name is taken.
  symbols.insert(body);
  Block *block = b.createBlock(&body.getBody());
  for (unsigned a = 0; a < repeat.representatives.size(); ++a)
    block->addArgument(repeat.getBinding(steps, 0, a).getType(), loc);
  b.setInsertionPointToEnd(block);
  for (size_t i = 0; i < repeat.length; ++i) {
    // Operand by operand: one buffer may fill two operands that other runs
    // fill with two buffers (two arguments).
    Operation *step = b.clone(*steps[repeat.start + i]);
    for (unsigned o = 0; o < step->getNumOperands(); ++o)
      step->setOperand(o, block->getArgument(repeat.argumentOf[i][o]));
  }
  for (size_t r = 0; r < repeat.count; ++r) {
    ArrayRef<Operation *> run =
        steps.slice(repeat.start + r * repeat.length, repeat.length);
    // Before the run's last step, where every buffer it uses is declared.
    b.setInsertionPoint(run.back());
    SmallVector<Value> args;
    for (unsigned a = 0; a < repeat.representatives.size(); ++a)
      args.push_back(repeat.getBinding(steps, r, a));
    CallOp::create(b, run.front()->getLoc(), body.getSymName(), args);
    for (Operation *step : run)
      step->erase();
  }
}

namespace {
struct OutlineRepeatedStepsPass final
    : exec::impl::OutlineRepeatedStepsPassBase<OutlineRepeatedStepsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto plan : llvm::make_early_inc_range(module.getOps<PlanOp>())) {
      SmallVector<Operation *> steps;
      for (Operation &op : plan.getBody().front())
        if (!isBufferDeclaration(&op))
          steps.push_back(&op);
      RepeatedSteps repeat = findRepeatedSteps(steps);
      if (repeat.count)
        outline(plan, steps, repeat, symbols);
    }
  }
};
} // namespace
