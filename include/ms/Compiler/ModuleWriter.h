//===- ModuleWriter.h - serialize a compiled module -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_COMPILER_MODULEWRITER_H
#define MS_COMPILER_MODULEWRITER_H

#include "ms/Compiler/ExecutionPlan.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::ms {

/// Returns the bytes of a module file (docs/ModuleFormat.md) holding the
/// plan's meta JSON, its weights and the CPU shared object `cpuElf`.
std::string writeModuleFile(const ExecutionPlan &plan, llvm::StringRef cpuElf);

} // namespace mlir::ms

#endif // MS_COMPILER_MODULEWRITER_H
