//===- Passes.h - msexec passes ---------------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_TRANSFORMS_PASSES_H
#define MS_DIALECT_EXEC_TRANSFORMS_PASSES_H

#include "ms/Dialect/Exec/IR/ExecOps.h"
#include "ms/Dialect/Exec/Transforms/MemoryPlanner.h"

#include "mlir/Pass/Pass.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ms::exec {

#define GEN_PASS_DECL
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"

/// The arena buffers of `plan` with their live ranges (steps numbered in
/// plan order, offloaded steps included; a buffer of a step on another
/// queue than 0 lives until queue 0 has waited for that step) and current
/// offsets.
void collectArenaBuffers(PlanOp plan, SmallVectorImpl<AllocOp> &allocs,
                         std::vector<PlannedBuffer> &buffers);

/// Prints the memory plan of `plan` (after msexec-plan-memory): peak live
/// bytes, arena size, the sum of buffer sizes, weights, and each buffer.
void printMemoryReport(PlanOp plan, llvm::raw_ostream &os);

#define GEN_PASS_REGISTRATION
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"

} // namespace mlir::ms::exec

#endif // MS_DIALECT_EXEC_TRANSFORMS_PASSES_H
