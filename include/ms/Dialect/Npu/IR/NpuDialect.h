//===- NpuDialect.h - msnpu dialect -----------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_NPU_IR_NPUDIALECT_H
#define MS_DIALECT_NPU_IR_NPUDIALECT_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "ms/Dialect/Npu/IR/NpuOpsDialect.h.inc"

#endif // MS_DIALECT_NPU_IR_NPUDIALECT_H
