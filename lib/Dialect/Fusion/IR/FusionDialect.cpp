//===- FusionDialect.cpp - msfusion dialect -------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Fusion/IR/FusionDialect.h"
#include "ms/Dialect/Fusion/IR/FusionOps.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"

using namespace mlir;
using namespace mlir::ms::fusion;

#include "ms/Dialect/Fusion/IR/FusionOpsDialect.cpp.inc"

void FusionDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ms/Dialect/Fusion/IR/FusionOps.cpp.inc"
      >();
}
