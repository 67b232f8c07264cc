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

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPULEGALIZEBOOLMEMORYPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// `type` with i8 elements if it is a vector of i1, else null.
static VectorType asBytes(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isInteger(1))
    return nullptr;
  return vector.clone(IntegerType::get(type.getContext(), 8));
}

/// Makes `result` (a vector of i1) the bytes `bytes` in place; its users
/// read it back as `bytes != 0`.
static void retype(RewriterBase &rewriter, OpResult result, Type bytes) {
  rewriter.modifyOpInPlace(result.getOwner(), [&] { result.setType(bytes); });
  rewriter.setInsertionPointAfter(result.getOwner());
  Location loc = result.getLoc();
  Value zero = LLVM::ZeroOp::create(rewriter, loc, bytes);
  auto back = LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                   result, zero);
  rewriter.replaceAllUsesExcept(result, back, back);
}

/// Replaces `operand` (a vector of i1) by its bytes (0 or 1 each).
static void retype(RewriterBase &rewriter, OpOperand &operand, Type bytes) {
  Operation *owner = operand.getOwner();
  rewriter.setInsertionPoint(owner);
  Value value =
      LLVM::ZExtOp::create(rewriter, owner->getLoc(), bytes, operand.get());
  rewriter.modifyOpInPlace(owner, [&] { operand.set(value); });
}

namespace {
struct CPULegalizeBoolMemoryPass final
    : mlir::ms::impl::CPULegalizeBoolMemoryPassBase<CPULegalizeBoolMemoryPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](Operation *op) {
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        if (VectorType bytes = asBytes(load.getType()))
          retype(rewriter, cast<OpResult>(load.getResult()), bytes);
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        if (VectorType bytes = asBytes(store.getValue().getType()))
          retype(rewriter, store.getValueMutable(), bytes);
      } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        if (VectorType bytes = asBytes(load.getType())) {
          if (!load.getPassThruMutable().empty())
            retype(rewriter, load.getPassThruMutable()[0], bytes);
          retype(rewriter, cast<OpResult>(load.getResult()), bytes);
        }
      } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        if (VectorType bytes = asBytes(store.getValue().getType()))
          retype(rewriter, store.getValueMutable(), bytes);
      }
    });
  }
};
} // namespace
