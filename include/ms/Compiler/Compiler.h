//===- Compiler.h - the ms compiler facade ----------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// One entry point that ms-compile (and later the Python JIT) call: an
// msgraph module in, a module file out, through the pipeline picked by the
// optimization level and target.
//
//===----------------------------------------------------------------------===//

#ifndef MS_COMPILER_COMPILER_H
#define MS_COMPILER_COMPILER_H

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace mlir::ms {

/// Options of one compilation.
struct CompileOptions {
  /// 0: one kernel per op, no graph optimization. 1 and 2 are not built yet.
  int optLevel = 0;
  /// "cpu" (others are not built yet).
  std::string target = "cpu";
  CpuTargetOptions cpu;
  /// Stop after this stage and print it: graph, kernels, linalg, bufferized,
  /// llvm, llvmir, plan. Empty: produce the module file.
  std::string compileTo;
  /// Print the memory plan.
  bool memoryReport = false;
  /// Applies the command line's pass-manager options (IR printing, timing).
  std::function<LogicalResult(PassManager &)> configurePassManager;
};

/// The stage names accepted by CompileOptions::compileTo.
ArrayRef<StringRef> compileStages();

/// Compiles `module` in place. Writes the stage output (compileTo) or the
/// memory report to `os`. Returns the module file bytes, or an empty string
/// when compileTo stopped early. Diagnostics go through the context.
FailureOr<std::string> compileModule(ModuleOp module,
                                     const CompileOptions &options,
                                     llvm::raw_ostream &os);

} // namespace mlir::ms

#endif // MS_COMPILER_COMPILER_H
