//===- ContractMultiplyAdds.cpp - fused multiply-adds in GPU kernels ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// LLVM's NVPTX backend emits `mul.rn` and `add.rn` for a product and a sum
// that carry no `contract` flag, and the explicit rounding keeps ptxas from
// fusing them; nvcc fuses them by default (--fmad=true), as cuBLAS's and
// PyTorch's kernels are built. This pass marks each such pair in the
// kernels so that it becomes one `fma.rn`: half the instructions of a term
// loop's product and sum, and one rounding where there were two.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDACONTRACTMULTIPLYADDSPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// Adds the `contract` flag to `op`'s fastmath flags.
void allowContraction(arith::ArithFastMathInterface op) {
  auto flags = op.getFastMathFlagsAttr();
  auto contracted = arith::FastMathFlagsAttr::get(
      op->getContext(),
      (flags ? flags.getValue() : arith::FastMathFlags::none) |
          arith::FastMathFlags::contract);
  op->setAttr(op.getFastMathAttrName(), contracted);
}

/// Marks `sum` (an addf or subf) and the operand's product it adds, when
/// that product has no other use (its rounded value is then needed
/// nowhere): the first operand's product where both are.
template <typename SumOp>
void contract(SumOp sum) {
  for (Value operand : {sum.getLhs(), sum.getRhs()}) {
    auto product = operand.template getDefiningOp<arith::MulFOp>();
    if (!product || !product->hasOneUse())
      continue;
    allowContraction(cast<arith::ArithFastMathInterface>(*product));
    allowContraction(cast<arith::ArithFastMathInterface>(*sum));
    return;
  }
}

struct CUDAContractMultiplyAddsPass final
    : mlir::ms::impl::CUDAContractMultiplyAddsPassBase<
          CUDAContractMultiplyAddsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<gpu::GPUFuncOp>())
        return;
      if (auto add = dyn_cast<arith::AddFOp>(op))
        contract(add);
      else if (auto sub = dyn_cast<arith::SubFOp>(op))
        contract(sub);
    });
  }
};
} // namespace
