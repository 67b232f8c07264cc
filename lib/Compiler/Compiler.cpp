//===- Compiler.cpp - the ms compiler facade ------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/Compiler.h"

#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/ModuleFile/ModuleWriter.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::ms;

FailureOr<std::string> mlir::ms::compileModule(ModuleOp module,
                                               const CompileOptions &options,
                                               const DriverOptions &driver,
                                               llvm::raw_ostream &os) {
  PassManager pm(module.getContext());
  if (driver.configurePassManager &&
      failed(driver.configurePassManager(pm)))
    return failure();
  std::string error;
  if (failed(buildCompilePipeline(pm, options, error)))
    return emitError(module.getLoc(), error);
  if (failed(pm.run(module)))
    return failure();
  if (driver.memoryReport)
    for (auto plan : module.getOps<exec::PlanOp>())
      if (plan.getArenaSize())
        exec::printMemoryReport(plan, os);
  if (options.compileTo.empty())
    return driver.moduleBytes ? writeModuleFile(module)
                              : FailureOr<std::string>(std::string());
  // The target's text phase: print the text itself.
  bool textual = false;
  for (auto binary : module.getOps<exec::BinaryOp>()) {
    if (binary.getFormat() != "llvm-ir")
      continue;
    os << binary.getData();
    textual = true;
  }
  if (textual)
    return std::string();
  module.print(os);
  os << "\n";
  return std::string();
}
