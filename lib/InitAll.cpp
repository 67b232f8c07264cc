//===- InitAll.cpp - register every ms dialect, pass and pipeline ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/InitAll.h"

#include "ms/Conversion/Passes.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"
#include "ms/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void mlir::ms::registerAllDialects(DialectRegistry &registry) {
  registry.insert<graph::GraphDialect>();
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
}

void mlir::ms::registerAllPasses() {
  static bool registered = [] {
    mlir::registerAllPasses();
    graph::registerGraphPasses();
    registerMSConversionPasses();
    registerMSTransformsPasses();
    graph::registerGraphPipelines();
    return true;
  }();
  (void)registered;
}
