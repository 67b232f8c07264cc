//===- RefineEntrySignature.cpp - the entry's refined result types --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::ms {
#define GEN_PASS_DEF_REFINEENTRYSIGNATUREPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
struct RefineEntrySignaturePass final
    : ms::impl::RefineEntrySignaturePassBase<RefineEntrySignaturePass> {
  using RefineEntrySignaturePassBase::RefineEntrySignaturePassBase;

  void runOnOperation() override {
    func::FuncOp func = findEntryFunction(getOperation(), entry);
    if (!func)
      return signalPassFailure();
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (OpOperand &operand : ret->getOpOperands()) {
      auto cast = operand.get().getDefiningOp<tensor::CastOp>();
      if (!cast)
        continue;
      operand.set(cast.getSource());
      if (cast->use_empty())
        cast.erase();
    }
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }
};
} // namespace
