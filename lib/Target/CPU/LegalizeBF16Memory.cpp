//===- LegalizeBF16Memory.cpp - masked bf16 vector memory as i16 ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Masked loads and stores of bf16 vectors become the same on i16 vectors
// (the bits only move): X86 without AVX512-BF16 would convert them through
// f32 and call compiler-rt.
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

/// `type` with i16 elements if it is a vector of bf16, else null.
static VectorType asI16(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isBF16())
    return nullptr;
  return vector.clone(IntegerType::get(type.getContext(), 16));
}

namespace {
struct CPULegalizeBF16MemoryPass final
    : mlir::ms::impl::CPULegalizeBF16MemoryPassBase<CPULegalizeBF16MemoryPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](LLVM::MaskedStoreOp store) {
      VectorType bits = asI16(store.getValue().getType());
      if (!bits)
        return;
      rewriter.setInsertionPoint(store);
      Value value = LLVM::BitcastOp::create(rewriter, store.getLoc(), bits,
                                            store.getValue());
      rewriter.modifyOpInPlace(store,
                               [&] { store.getValueMutable().assign(value); });
    });
    getOperation()->walk([&](LLVM::MaskedLoadOp load) {
      VectorType bits = asI16(load.getType());
      if (!bits)
        return;
      Location loc = load.getLoc();
      rewriter.setInsertionPoint(load);
      Value passThru;
      if (Value old = load.getPassThru())
        passThru = LLVM::BitcastOp::create(rewriter, loc, bits, old);
      auto wide = LLVM::MaskedLoadOp::create(
          rewriter, loc, bits, load.getData(), load.getMask(), passThru,
          load.getAlignmentAttr(), load.getNontemporalAttr());
      rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(load, load.getType(),
                                                   wide.getResult());
    });
  }
};
} // namespace
