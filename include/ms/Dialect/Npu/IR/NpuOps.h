//===- NpuOps.h - msnpu operations and attributes ---------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_NPU_IR_NPUOPS_H
#define MS_DIALECT_NPU_IR_NPUOPS_H

#include "ms/Dialect/Npu/IR/NpuDialect.h"
#include "ms/runtime/NpuConfig.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ms/Dialect/Npu/IR/NpuEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ms/Dialect/Npu/IR/NpuAttrs.h.inc"

#define GET_OP_CLASSES
#include "ms/Dialect/Npu/IR/NpuOps.h.inc"

namespace mlir::ms::npu {
using ::ms::npu::NpuConfig;

/// The name of the module attribute (a dictionary of NpuConfig fields by
/// their C++ names) that overrides the default configuration.
inline constexpr StringLiteral kConfigAttrName = "msnpu.config";

/// Returns the configuration `op` is compiled for: the defaults, overridden
/// by the `msnpu.config` attribute of the closest enclosing op that has one.
NpuConfig getConfig(Operation *op);
/// Returns `config` as an `msnpu.config` dictionary (every field).
DictionaryAttr getConfigAttr(MLIRContext *context, const NpuConfig &config);

/// Returns the memory `type` lives in (GM when it has no memory space).
MemorySpace getMemorySpace(MemRefType type);
/// Returns the capacity of on-chip memory `space` in `config` (0 for GM).
int64_t getCapacity(const NpuConfig &config, MemorySpace space);
/// Returns the memref type of `shape` and `elementType` in `space`.
MemRefType getBufferType(ArrayRef<int64_t> shape, Type elementType,
                         MemorySpace space);
/// Returns the K extent of the cube's fractals of `elementType` (a fractal
/// row is 32 bytes: 16 for f16 and bf16, 8 for f32, 32 for i8), 0 for a
/// type the cube does not multiply.
int64_t getFractalK(Type elementType);
} // namespace mlir::ms::npu

#endif // MS_DIALECT_NPU_IR_NPUOPS_H
