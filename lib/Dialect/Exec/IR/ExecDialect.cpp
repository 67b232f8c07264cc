//===- ExecDialect.cpp - msexec dialect -----------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/IR/ExecDialect.h"
#include "ms/Dialect/Exec/IR/ExecOps.h"

using namespace mlir;
using namespace mlir::ms::exec;

#include "ms/Dialect/Exec/IR/ExecOpsDialect.cpp.inc"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#define GET_TYPEDEF_CLASSES
#include "ms/Dialect/Exec/IR/ExecOpsTypes.cpp.inc"

void ExecDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ms/Dialect/Exec/IR/ExecOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ms/Dialect/Exec/IR/ExecOps.cpp.inc"
      >();
}
