//===- PackWeights.cpp - constant matmul weights in the cube's type -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// When the cube multiplies fp16 or bf16, a matmul's constant f32 weight is
// stored in that type at compile time: MTE2 then reads half the bytes (GEMMs
// are bound by MTE2 reading f32) and converts nothing. The module writer
// rounds as MTE2 does (to nearest, ties to even), so the results are the
// same bit for bit. The kernel widens its argument back with msgraph.cast;
// ms-npu-lower-kernels folds that widening into the contraction's loads.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/PackWeights.h"
#include "ms/Target/NPU/NPUTarget.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include <numeric>

namespace mlir::ms {
#define GEN_PASS_DEF_NPUPACKWEIGHTSPASS
#include "ms/Target/NPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Whether the contraction of `matmul` reads its operand `index` as it is
/// (a matrix, or a batch of them with no broadcast batch dim: the others
/// are reshaped first, and a reshaped weight's widening would run as a step
/// of its own).
static bool isReadAsIs(graph::MatMulOp matmul, unsigned index) {
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return false;
  ArrayRef<int64_t> lb = lhs.getShape().drop_back(2),
                    rb = rhs.getShape().drop_back(2);
  FailureOr<SmallVector<int64_t>> batch = graph::broadcastShapes(lb, rb);
  if (failed(batch))
    return false;
  ArrayRef<int64_t> own = index == 0 ? lb : rb;
  int64_t offset = int64_t(batch->size()) - int64_t(own.size());
  for (auto [i, size] : llvm::enumerate(own))
    if (size == 1 && (*batch)[i + offset] != 1)
      return false;
  return true;
}

namespace {
struct NPUPackWeightsPass final
    : mlir::ms::impl::NPUPackWeightsPassBase<NPUPackWeightsPass> {
  using NPUPackWeightsPassBase::NPUPackWeightsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    Type narrow = precision == "f16"    ? Type(builder.getF16Type())
                  : precision == "bf16" ? Type(builder.getBF16Type())
                                        : Type();
    if (!narrow) {
      if (precision != "f32") {
        module.emitError("expected precision f16, bf16 or f32, found '")
            << precision << "'";
        signalPassFailure();
      }
      return;
    }
    DenseMap<Operation *, SmallVector<func::CallOp>> calls =
        KernelWeightPacker::getKernelCalls(module);
    KernelWeightPacker packer;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      auto callers = calls.find(kernel);
      if (kernel.isExternal() || callers == calls.end())
        continue;
      kernel.walk([&](graph::MatMulOp matmul) {
        for (OpOperand &operand : matmul->getOpOperands()) {
          auto arg = dyn_cast<BlockArgument>(operand.get());
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (!arg || arg.getOwner() != &kernel.front() || !arg.hasOneUse() ||
              !type || !type.hasStaticShape() ||
              !type.getElementType().isF32() || type.getNumElements() == 0 ||
              !isReadAsIs(matmul, operand.getOperandNumber()))
            continue;
          auto packedType = RankedTensorType::get(type.getShape(), narrow);
          SmallVector<int64_t> dims(type.getRank());
          std::iota(dims.begin(), dims.end(), 0);
          Value widened = packer.packArgument(
              kernel, callers->second, arg, packedType,
              [&](OpBuilder &b, Location loc, Value weight) {
                return relayoutWeight(b, loc, weight, packedType,
                                      type.getShape(), dims);
              },
              [&](OpBuilder &b, Location loc, Value packed) -> Value {
                return graph::CastOp::create(b, loc, type, packed);
              });
          if (widened)
            operand.set(widened);
        }
      });
    }
    packer.eraseReplaced();
  }
};
} // namespace
