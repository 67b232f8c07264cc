//===- FusionDialect.h - msfusion dialect -----------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_FUSION_IR_FUSIONDIALECT_H
#define MS_DIALECT_FUSION_IR_FUSIONDIALECT_H

#include "mlir/IR/Dialect.h"

#include "ms/Dialect/Fusion/IR/FusionOpsDialect.h.inc"

#endif // MS_DIALECT_FUSION_IR_FUSIONDIALECT_H
