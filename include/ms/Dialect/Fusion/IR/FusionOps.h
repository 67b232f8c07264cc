//===- FusionOps.h - msfusion operations ------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_FUSION_IR_FUSIONOPS_H
#define MS_DIALECT_FUSION_IR_FUSIONOPS_H

#include "ms/Dialect/Fusion/IR/FusionDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "ms/Dialect/Fusion/IR/FusionOps.h.inc"

#endif // MS_DIALECT_FUSION_IR_FUSIONOPS_H
