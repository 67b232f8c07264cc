//===- DistDialect.cpp - msdist dialect -----------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/IR/DistDialect.h"
#include "ms/Dialect/Dist/IR/DistOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ms::dist;

#include "ms/Dialect/Dist/IR/DistOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ms/Dialect/Dist/IR/DistAttrs.cpp.inc"

void DistDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ms/Dialect/Dist/IR/DistAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ms/Dialect/Dist/IR/DistOps.cpp.inc"
      >();
}
