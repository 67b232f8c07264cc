//===- Compiler.h - the ms compiler facade ----------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// One entry point that ms-compile and the embedding API call: an msgraph
// module in, a module file out (or the IR of a phase), through the pipeline
// that buildCompilePipeline assembles for the level and target.
//
//===----------------------------------------------------------------------===//

#ifndef MS_COMPILER_COMPILER_H
#define MS_COMPILER_COMPILER_H

#include "ms/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace mlir::ms {

/// What a driver adds around the pipeline.
struct DriverOptions {
  /// Print the memory plan to the output stream.
  bool memoryReport = false;
  /// Stop after the plan phase (no code generation) and print the kernel
  /// list and the memory plan instead of the IR.
  bool dryRun = false;
  /// With `dryRun`: after the report, replay each plan on this simulation
  /// preset (exec::getSimPresets) and print its step time and hidden
  /// communication; empty: no simulation.
  std::string simulatePreset;
  /// With `simulatePreset`: write the simulated timeline to this file as
  /// Chrome trace-event JSON.
  std::string simulateTrace;
  /// Return the module file's bytes; when false the caller writes the
  /// compiled module itself (writeModuleFile to a stream, no copy).
  bool moduleBytes = true;
  /// Applies the command line's pass-manager options (IR printing, timing).
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// Compiles `module` in place. With `options.compileTo` set, prints that
/// phase's IR (the target's text for its text phase) to `os` and returns an
/// empty string; otherwise returns the module file bytes (an empty string
/// without `driver.moduleBytes`). The memory report
/// goes to `os` too. Diagnostics go through the context.
FailureOr<std::string> compileModule(ModuleOp module,
                                     const CompileOptions &options,
                                     const DriverOptions &driver,
                                     llvm::raw_ostream &os);

} // namespace mlir::ms

#endif // MS_COMPILER_COMPILER_H
