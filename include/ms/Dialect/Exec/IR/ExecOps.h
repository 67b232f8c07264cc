//===- ExecOps.h - msexec operations ----------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_IR_EXECOPS_H
#define MS_DIALECT_EXEC_IR_EXECOPS_H

#include "ms/Dialect/Exec/IR/ExecDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ms/Dialect/Exec/IR/ExecOps.h.inc"

namespace mlir::ms::exec {

/// Returns the module-file dtype name of a tensor element type ("f32",
/// "bool", "u8", "string", ...), or "" when the runtime has none.
std::string dtypeName(Type elementType);

/// Returns the bytes of one element in a runtime buffer (bool one byte, a
/// string one ms_string_t), or 0 for a type without a dtype name.
uint64_t elementByteSize(Type elementType);

/// Returns the element type of module-file dtype `name`, or null. All three
/// read the one table of element types, ms/runtime/DTypes.def.
Type typeOfDtypeName(StringRef name, MLIRContext *context);

/// Returns every dtype name (less "string" unless `withString`),
/// comma-separated, for diagnostics.
std::string dtypeNames(bool withString = true);

/// True for the ops that declare a plan's buffers (input, output, weight,
/// alloc), as opposed to its steps.
inline bool isBufferDeclaration(Operation *op) {
  return isa<InputOp, OutputOp, WeightOp, AllocOp>(op);
}

/// Returns the queue plan step `op` runs on (0 when it names none).
inline int64_t getStepQueue(Operation *op) {
  if (auto queue = op->getAttrOfType<IntegerAttr>("queue"))
    return queue.getInt();
  return 0;
}

/// Calls `fn` with each step of `plan` in the order the runtime runs them
/// (the launches and copies of an offloaded graph, and the steps of a
/// call's body, in its place) and that step's operands in the plan (a
/// body's arguments replaced by the call's buffers).
void forEachStep(PlanOp plan,
                 function_ref<void(Operation *step, ValueRange operands)> fn);

/// Returns the function `kernel` (`@executable::@function`) refers to from
/// `from`, or null.
Operation *lookupKernel(Operation *from, SymbolRefAttr kernel);

} // namespace mlir::ms::exec

#endif // MS_DIALECT_EXEC_IR_EXECOPS_H
