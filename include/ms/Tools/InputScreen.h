//===- InputScreen.h - screening inputs upstream code crashes on -*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TOOLS_INPUTSCREEN_H
#define MS_TOOLS_INPUTSCREEN_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::ms {

/// Screens MLIR source text for constructs upstream MLIR 22's parser crashes
/// on instead of diagnosing: a dense array attribute whose element type is
/// neither an integer nor a float (`array<index: 2>`, found by fuzzing).
/// Returns "" when the text is fine, else an error naming `filename`, the
/// line and the column.
std::string screenMlirSource(llvm::StringRef text, llvm::StringRef filename);

} // namespace mlir::ms

#endif // MS_TOOLS_INPUTSCREEN_H
