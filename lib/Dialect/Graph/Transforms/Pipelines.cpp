//===- Pipelines.cpp - msgraph pass pipelines -----------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::ms::graph::buildGraphOptimizationPipeline(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createInferShapesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFoldConstantsPass());
  pm.addNestedPass<func::FuncOp>(createInferShapesPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createEliminateDeadCodePass());
}

void mlir::ms::graph::registerGraphPipelines() {
  PassPipelineRegistration<>(
      "msgraph-optimize",
      "graph optimization: shape inference, canonicalization, constant "
      "folding and dead code elimination",
      buildGraphOptimizationPipeline);
}
