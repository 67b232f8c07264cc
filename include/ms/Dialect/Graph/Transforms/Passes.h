//===- Passes.h - msgraph transformation passes -----------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_TRANSFORMS_PASSES_H
#define MS_DIALECT_GRAPH_TRANSFORMS_PASSES_H

#include "ms/Dialect/Graph/IR/GraphDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::ms::graph {

#define GEN_PASS_DECL
#include "ms/Dialect/Graph/Transforms/Passes.h.inc"

/// Adds the graph optimization passes (shape inference, canonicalization,
/// constant folding, dead code elimination) to a module-level pass manager.
void buildGraphOptimizationPipeline(OpPassManager &pm);

/// Registers the `msgraph-optimize` pipeline.
void registerGraphPipelines();

#define GEN_PASS_REGISTRATION
#include "ms/Dialect/Graph/Transforms/Passes.h.inc"

} // namespace mlir::ms::graph

#endif // MS_DIALECT_GRAPH_TRANSFORMS_PASSES_H
