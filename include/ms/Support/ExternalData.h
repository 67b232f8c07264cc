//===- ExternalData.h - constants whose bytes lie in files ------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// An importer records where the bytes of each constant it read from a file
// outside the model lie (ONNX external data); the module writer then refers
// to that file instead of copying the bytes into the module
// (`ms-compile --external-weights`). Constants are uniqued, so a constant a
// pass computed (a transposed or sliced weight) is a different attribute and
// is never mistaken for the file's bytes.
//
//===----------------------------------------------------------------------===//

#ifndef MS_SUPPORT_EXTERNALDATA_H
#define MS_SUPPORT_EXTERNALDATA_H

#include "mlir/IR/Attributes.h"
#include "llvm/ADT/DenseMap.h"

#include <cstdint>
#include <string>

namespace mlir::ms {
/// Where the bytes of a constant lie in a file.
struct ExternalData {
  /// The file's real path (links resolved, absolute).
  std::string path;
  /// The bytes' offset and length in the file.
  uint64_t offset = 0;
  uint64_t length = 0;
};

/// The constants read from external files, by value.
using ExternalDataMap = llvm::DenseMap<Attribute, ExternalData>;
} // namespace mlir::ms

#endif // MS_SUPPORT_EXTERNALDATA_H
