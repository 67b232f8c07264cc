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

#include "RetypeMemory.h"

#include "ms/Target/CPU/CPUTarget.h"

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

/// `value` as `type` of the same bits.
static Value bitcast(OpBuilder &builder, Location loc, Value value, Type type) {
  return LLVM::BitcastOp::create(builder, loc, type, value);
}

namespace {
struct CPULegalizeBF16MemoryPass final
    : mlir::ms::impl::CPULegalizeBF16MemoryPassBase<CPULegalizeBF16MemoryPass> {
  void runOnOperation() override {
    retypeMemoryValues(getOperation(), asI16, bitcast, bitcast);
  }
};
} // namespace
