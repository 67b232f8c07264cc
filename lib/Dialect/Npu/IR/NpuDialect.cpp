//===- NpuDialect.cpp - msnpu dialect -------------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Npu/IR/NpuDialect.h"
#include "ms/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ms::npu;

#include "ms/Dialect/Npu/IR/NpuOpsDialect.cpp.inc"

#include "ms/Dialect/Npu/IR/NpuEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ms/Dialect/Npu/IR/NpuAttrs.cpp.inc"

void NpuDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ms/Dialect/Npu/IR/NpuAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ms/Dialect/Npu/IR/NpuOps.cpp.inc"
      >();
}
