//===- OptMain.cpp - entry point of ms-opt --------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Tools/OptMain.h"

#include "ms/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int mlir::ms::msOptMain(int argc, char **argv) {
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  return asMainReturnCode(
      MlirOptMain(argc, argv, "ms optimizer driver\n", registry));
}
