//===- ReassociateReductions.cpp - vectorizable float reductions ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Float reductions over the innermost loop run as a chain of dependent adds
// unless LLVM may reorder them; this pass allows it on exactly the
// reductions' combiners, nothing else.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUREASSOCIATEREDUCTIONSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Marks `op` (an addf or mulf) `reassoc`, keeping its other flags.
static void allowReassociation(arith::ArithFastMathInterface op) {
  arith::FastMathFlags flags = op.getFastMathFlagsAttr().getValue();
  op->setAttr(op.getFastMathAttrName(),
              arith::FastMathFlagsAttr::get(
                  op->getContext(), flags | arith::FastMathFlags::reassoc));
}

namespace {
struct CPUReassociateReductionsPass
    : public ms::impl::CPUReassociateReductionsPassBase<
          CPUReassociateReductionsPass> {
  void runOnOperation() override {
    getOperation()->walk([](linalg::GenericOp op) {
      if (op.getNumReductionLoops() == 0)
        return;
      Block &body = op.getRegion().front();
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      for (OpOperand &init : op.getDpsInitsMutable()) {
        BlockArgument acc = op.getMatchingBlockArgument(&init);
        unsigned result = init.getOperandNumber() - op.getNumDpsInputs();
        Operation *combiner = yield.getOperand(result).getDefiningOp();
        if (!isa_and_present<arith::AddFOp, arith::MulFOp>(combiner) ||
            !llvm::is_contained(combiner->getOperands(), acc))
          continue;
        allowReassociation(cast<arith::ArithFastMathInterface>(combiner));
      }
    });
  }
};
} // namespace
