//===- ModuleWriter.h - serialize a compiled module -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Packs a fully compiled module (one msexec.plan with memory planned, and
// msexec.binary ops) into the bytes of a module file (docs/ModuleFormat.md):
// the plan as the meta JSON, the weights, one code section per binary.
//
//===----------------------------------------------------------------------===//

#ifndef MS_MODULEFILE_MODULEWRITER_H
#define MS_MODULEFILE_MODULEWRITER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::ms {
/// How a module file is written.
struct ModuleWriteOptions {
  /// The directory the module file goes to: a weight file (`msexec.weight`
  /// with `file`) inside it is recorded relative to it, one outside it (or
  /// every one, when this is empty) by its absolute path.
  std::string moduleDirectory;
};

/// Writes the module file of `module` to `os` as it goes (the weights
/// straight from their attributes; the section table, once its checksums
/// are known, through `pwrite`); emits errors and fails, writing nothing, on
/// a module that is not fully compiled or that the runtime could not run.
LogicalResult writeModuleFile(ModuleOp module, llvm::raw_pwrite_stream &os,
                              const ModuleWriteOptions &options = {});
/// Returns the module file bytes of `module` (see above).
FailureOr<std::string> writeModuleFile(ModuleOp module,
                                       const ModuleWriteOptions &options = {});
} // namespace mlir::ms

#endif // MS_MODULEFILE_MODULEWRITER_H
