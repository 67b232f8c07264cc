//===- NPUTarget.h - the virtual NPU code generator -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The `npu` target backend: kernels lowered to msnpu programs (the cube for
// contractions, the vector unit for the rest) and serialized to the
// `npu-program` section the runtime's simulator executes (docs/NPU.md).
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_NPU_NPUTARGET_H
#define MS_TARGET_NPU_NPUTARGET_H

#include "ms/Dialect/Npu/IR/NpuOps.h"
#include "ms/Target/TargetBackend.h"

namespace mlir::ms {
/// Registers the `npu` target backend.
void registerNPUTargetBackend();

#define GEN_PASS_DECL
#include "ms/Target/NPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ms/Target/NPU/Passes.h.inc"
} // namespace mlir::ms

#endif // MS_TARGET_NPU_NPUTARGET_H
