//===- GraphDialect.h - msgraph dialect -------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_IR_GRAPHDIALECT_H
#define MS_DIALECT_GRAPH_IR_GRAPHDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "ms/Dialect/Graph/IR/GraphOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ms/Dialect/Graph/IR/GraphOpsTypes.h.inc"

#endif // MS_DIALECT_GRAPH_IR_GRAPHDIALECT_H
