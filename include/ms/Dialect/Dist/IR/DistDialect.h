//===- DistDialect.h - msdist dialect ---------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_IR_DISTDIALECT_H
#define MS_DIALECT_DIST_IR_DISTDIALECT_H

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/Dialect.h"

#include "ms/Dialect/Dist/IR/DistOpsDialect.h.inc"

#endif // MS_DIALECT_DIST_IR_DISTDIALECT_H
