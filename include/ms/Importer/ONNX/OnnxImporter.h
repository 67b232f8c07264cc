//===- OnnxImporter.h - ONNX models to msgraph ------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Reads an ONNX ModelProto and builds a module whose @main function computes
// the graph with msgraph ops. Conversion is opset-aware: each ONNX op has
// handlers keyed by the opset version they apply from.
//
//===----------------------------------------------------------------------===//

#ifndef MS_IMPORTER_ONNX_ONNXIMPORTER_H
#define MS_IMPORTER_ONNX_ONNXIMPORTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <string>

namespace mlir::ms {

/// Options of an import.
struct OnnxImportOptions {
  /// Static shapes for graph inputs, by name; they replace the model's
  /// (possibly symbolic) dimensions.
  llvm::StringMap<SmallVector<int64_t>> inputShapes;
  /// The element shapes of sequence graph inputs, by name: a sequence input
  /// becomes one function argument per element, named NAME[i].
  llvm::StringMap<SmallVector<SmallVector<int64_t>>> sequenceShapes;
  /// Directory that external-data locations are relative to.
  std::string modelDirectory;
  /// Whether the module records where the bytes of each initializer read
  /// from an external-data file lie (graph::kExternalDataAttrName), so that
  /// the module file refers to the file instead of holding a copy
  /// (`--external-weights`).
  bool recordExternalData = false;
  /// Whether large initializers read from a file (importOnnxFile's model,
  /// external data) refer to the file, mapped for the context's lifetime
  /// (#msgraph.mapped), instead of being copied into the compiler's memory.
  /// The file must not change while the context lives.
  bool mapWeights = true;
  /// Graph inputs replaced by constants (model specialization): shape-like
  /// inputs that the static-shape pipeline needs at compile time.
  llvm::StringMap<ElementsAttr> boundInputs;
  /// Called for each named value as it is defined (graph input, initializer,
  /// node output); the value it returns replaces it for later uses. The
  /// compiler inserts layout constraints (--shard NAME=...) here.
  std::function<Value(OpBuilder &, Location, StringRef name, Value)>
      annotateValue;
};

/// Reads a NumPy .npy file (little-endian, C order) into a dense constant.
/// Emits an error at `loc` and fails on anything else.
FailureOr<ElementsAttr> readNpyFile(llvm::StringRef path, MLIRContext *context,
                                    Location loc);

/// Imports serialized ModelProto `bytes`; `filename` names it in
/// diagnostics. Emits errors through the context and returns null on
/// failure.
OwningOpRef<ModuleOp> importOnnxModel(llvm::StringRef bytes,
                                      llvm::StringRef filename,
                                      MLIRContext *context,
                                      const OnnxImportOptions &options);

/// Imports the ONNX model in file `path`, read as a stream (the file is
/// never held in memory whole). Emits errors through the context and returns
/// null on failure.
OwningOpRef<ModuleOp> importOnnxFile(llvm::StringRef path, MLIRContext *context,
                                     const OnnxImportOptions &options);

/// Parses `NAME=D1xD2x...` (`NAME=` for a scalar) into `options`, or, with
/// commas, the element shapes of a sequence input (`NAME=2x3,4`; `NAME=2x3,`
/// for one element, `NAME=,` for none); returns false with `error` set on
/// malformed text.
bool parseInputShape(llvm::StringRef text, OnnxImportOptions &options,
                     std::string &error);

} // namespace mlir::ms

#endif // MS_IMPORTER_ONNX_ONNXIMPORTER_H
