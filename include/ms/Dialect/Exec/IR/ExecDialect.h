//===- ExecDialect.h - msexec dialect ---------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_IR_EXECDIALECT_H
#define MS_DIALECT_EXEC_IR_EXECDIALECT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "ms/Dialect/Exec/IR/ExecOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ms/Dialect/Exec/IR/ExecOpsTypes.h.inc"

#endif // MS_DIALECT_EXEC_IR_EXECDIALECT_H
