//===- FuzzCommon.h - shared by the compiler fuzz targets -------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TEST_FUZZ_FUZZCOMMON_H
#define MS_TEST_FUZZ_FUZZCOMMON_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class MLIRContext;
class ModuleOp;
} // namespace mlir

namespace msfuzz {

/// A context with every ms dialect loaded and diagnostics swallowed (errors
/// are the expected outcome of most fuzz inputs).
mlir::MLIRContext &context();

/// Runs the compile pipeline's graph phase (the verifier first) on `module`;
/// errors are ignored.
void runGraphPhase(mlir::ModuleOp module);

/// Whether `text` holds MLIR that upstream's parser crashes on (ms-opt and
/// ms-compile refuse it before parsing).
bool hasKnownParserCrash(llvm::StringRef text);

/// Imports `bytes` as an ONNX model (no model directory, so no external
/// data) and, when that succeeds, runs the graph phase on it.
void importAndCompile(llvm::StringRef bytes);

} // namespace msfuzz

#endif // MS_TEST_FUZZ_FUZZCOMMON_H
