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

#include <string>

namespace mlir::ms {

/// Returns the module file bytes of `module`; emits errors and fails on a
/// module that is not fully compiled or that the runtime could not run.
FailureOr<std::string> writeModuleFile(ModuleOp module);

} // namespace mlir::ms

#endif // MS_MODULEFILE_MODULEWRITER_H
