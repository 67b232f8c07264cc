//===- LegalizeBoolMemory.cpp - vectors of i1 in memory as bytes ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Loads and stores of vectors of i1 (masked or not) become the same on i8,
// compared with zero after a load and zero-extended before a store. A
// tensor of booleans holds a byte per element, as a scalar i1 load or store
// reads or writes it, but LLVM packs a vector of i1 in memory into bits:
// a `<32 x i1>` load would read 4 bytes, one bit per element.
//
//===----------------------------------------------------------------------===//

#include "RetypeMemory.h"

#include "ms/Target/CPU/CPUTarget.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPULEGALIZEBOOLMEMORYPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// `type` with i8 elements if it is a vector of i1, else null.
static Type asBytes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isInteger(1))
    return nullptr;
  return vector.clone(IntegerType::get(type.getContext(), 8));
}

/// The booleans `bytes != 0`.
static Value fromBytes(OpBuilder &builder, Location loc, Value bytes, Type) {
  Value zero = LLVM::ZeroOp::create(builder, loc, bytes.getType());
  return LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne, bytes,
                              zero);
}

/// The booleans `value` as bytes of `type` (0 or 1 each).
static Value toBytes(OpBuilder &builder, Location loc, Value value, Type type) {
  return LLVM::ZExtOp::create(builder, loc, type, value);
}

namespace {
struct CPULegalizeBoolMemoryPass final
    : mlir::ms::impl::CPULegalizeBoolMemoryPassBase<CPULegalizeBoolMemoryPass> {
  void runOnOperation() override {
    retypeMemoryValues(getOperation(), asBytes, fromBytes, toBytes);
  }
};
} // namespace
