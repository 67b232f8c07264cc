//===- InitAll.cpp - register every ms dialect, pass and pipeline ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/InitAll.h"

#include "ms/Conversion/Passes.h"
#include "ms/Dialect/Dist/IR/DistDialect.h"
#include "ms/Dialect/Dist/Transforms/Passes.h"
#include "ms/Dialect/Dist/Transforms/ShardingInterfaceImpl.h"
#include "ms/Dialect/Exec/IR/ExecDialect.h"
#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/Dialect/Fusion/IR/FusionDialect.h"
#include "ms/Dialect/Fusion/Transforms/Passes.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"
#include "ms/Dialect/Npu/IR/NpuDialect.h"
#include "ms/Pipelines/Pipelines.h"
#include "ms/Target/CPU/CPUTarget.h"
#include "ms/Target/CUDA/CUDATarget.h"
#include "ms/Target/NPU/NPUTarget.h"
#include "ms/Target/TargetBackend.h"
#include "ms/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void mlir::ms::registerAllDialects(DialectRegistry &registry) {
  registerAllTargetBackends();
  registry.insert<graph::GraphDialect, exec::ExecDialect, fusion::FusionDialect,
                  dist::DistDialect, npu::NpuDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  dist::registerShardingInterfaceExternalModels(registry);
}

void mlir::ms::registerAllTargetBackends() {
  registerCPUTargetBackend();
  registerCUDATargetBackend();
  registerNPUTargetBackend();
}

void mlir::ms::registerAllPasses() {
  static bool registered = [] {
    registerAllTargetBackends();
    mlir::registerAllPasses();
    graph::registerGraphPasses();
    registerMSConversionPasses();
    registerMSTransformsPasses();
    exec::registerExecPasses();
    fusion::registerFusionPasses();
    dist::registerDistPasses();
    registerMSTargetPasses();
    registerMSTargetCPUPasses();
    registerMSTargetCUDAPasses();
    registerMSTargetNPUPasses();
    graph::registerGraphPipelines();
    registerCompilePipelines();
    return true;
  }();
  (void)registered;
}
