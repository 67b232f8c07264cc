//===- RetypeMemory.h - loads and stores moving another type ----*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Some values LLVM should not hold in memory as they are (bf16, which X86
// would convert through compiler-rt; vectors of i1, which it packs into
// bits): the legalize-memory passes make their loads and stores move
// another type and convert around them.
//
//===----------------------------------------------------------------------===//

#ifndef MS_LIB_TARGET_CPU_RETYPEMEMORY_H
#define MS_LIB_TARGET_CPU_RETYPEMEMORY_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ms {
/// Makes each `llvm.load`, `llvm.store`, `llvm.intr.masked.load` and
/// `llvm.intr.masked.store` under `root` whose value's type `memoryType`
/// maps to another (null: left as it is) move that type: a loaded value
/// takes it in place and its users read `fromMemory(value, original type)`;
/// a stored value, and a masked load's pass-through, become
/// `toMemory(value, memory type)`. The masks stay. The op `fromMemory`
/// returns must be the only one that reads the loaded value. Each access's
/// address is taken to hold the values as the memory type does (a vector
/// of i1: a byte per element, as memrefs of i1 hold them).
inline void retypeMemoryValues(
    Operation *root, function_ref<Type(Type)> memoryType,
    function_ref<Value(OpBuilder &, Location, Value, Type)> fromMemory,
    function_ref<Value(OpBuilder &, Location, Value, Type)> toMemory) {
  IRRewriter rewriter(root->getContext());
  auto retypeResult = [&](OpResult result, Type type) {
    Type original = result.getType();
    rewriter.modifyOpInPlace(result.getOwner(), [&] { result.setType(type); });
    rewriter.setInsertionPointAfter(result.getOwner());
    Value back = fromMemory(rewriter, result.getLoc(), result, original);
    rewriter.replaceAllUsesExcept(result, back, back.getDefiningOp());
  };
  auto retypeOperand = [&](OpOperand &operand, Type type) {
    Operation *owner = operand.getOwner();
    rewriter.setInsertionPoint(owner);
    Value value = toMemory(rewriter, owner->getLoc(), operand.get(), type);
    rewriter.modifyOpInPlace(owner, [&] { operand.set(value); });
  };
  root->walk([&](Operation *op) {
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      if (Type type = memoryType(load.getType()))
        retypeResult(cast<OpResult>(load.getResult()), type);
    } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      if (Type type = memoryType(store.getValue().getType()))
        retypeOperand(store.getValueMutable(), type);
    } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
      if (Type type = memoryType(load.getType())) {
        if (!load.getPassThruMutable().empty())
          retypeOperand(load.getPassThruMutable()[0], type);
        retypeResult(cast<OpResult>(load.getResult()), type);
      }
    } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
      if (Type type = memoryType(store.getValue().getType()))
        retypeOperand(store.getValueMutable(), type);
    }
  });
}
} // namespace mlir::ms

#endif // MS_LIB_TARGET_CPU_RETYPEMEMORY_H
