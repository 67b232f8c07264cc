//===- GraphDialect.cpp - msgraph dialect ---------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace mlir::ms::graph;

#include "ms/Dialect/Graph/IR/GraphOpsDialect.cpp.inc"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#define GET_TYPEDEF_CLASSES
#include "ms/Dialect/Graph/IR/GraphOpsTypes.cpp.inc"

void GraphDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ms/Dialect/Graph/IR/GraphOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ms/Dialect/Graph/IR/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
