//===- LegalizeBF16Memory.cpp - bf16 loads and stores as i16 --------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Loads and stores of bf16 (scalars and vectors, masked or not) become the
// same on i16 (the bits only move), so that no bf16 value is left for
// LLVM's optimizer to carry across a select or a phi: X86 without
// AVX512-BF16 would convert such a value through f32 and call compiler-rt.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPULEGALIZEBF16MEMORYPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// `type` with i16 elements if it is bf16 or a vector of bf16, else null.
static Type asI16(Type type) {
  Type i16 = IntegerType::get(type.getContext(), 16);
  if (type.isBF16())
    return i16;
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isBF16())
    return nullptr;
  return vector.clone(i16);
}

/// Makes `result` (bf16) the i16 `bits` in place; its users read it back
/// through a bitcast.
static void retype(RewriterBase &rewriter, OpResult result, Type bits) {
  Type type = result.getType();
  rewriter.modifyOpInPlace(result.getOwner(), [&] { result.setType(bits); });
  rewriter.setInsertionPointAfter(result.getOwner());
  auto back = LLVM::BitcastOp::create(rewriter, result.getLoc(), type, result);
  rewriter.replaceAllUsesExcept(result, back, back);
}

/// Replaces the bf16 operand `operand` by its i16 bits.
static void retype(RewriterBase &rewriter, OpOperand &operand, Type bits) {
  Operation *owner = operand.getOwner();
  rewriter.setInsertionPoint(owner);
  Value value =
      LLVM::BitcastOp::create(rewriter, owner->getLoc(), bits, operand.get());
  rewriter.modifyOpInPlace(owner, [&] { operand.set(value); });
}

namespace {
struct CPULegalizeBF16MemoryPass final
    : mlir::ms::impl::CPULegalizeBF16MemoryPassBase<CPULegalizeBF16MemoryPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (Type bits = asI16(load.getType()))
          retype(rewriter, cast<OpResult>(load.getResult()), bits);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (Type bits = asI16(store.getValue().getType()))
          retype(rewriter, store.getValueMutable(), bits);
      } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        if (Type bits = asI16(load.getType())) {
          if (!load.getPassThruMutable().empty())
            retype(rewriter, load.getPassThruMutable()[0], bits);
          retype(rewriter, cast<OpResult>(load.getResult()), bits);
        }
      } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        if (Type bits = asI16(store.getValue().getType()))
          retype(rewriter, store.getValueMutable(), bits);
      }
    });
  }
};
} // namespace
