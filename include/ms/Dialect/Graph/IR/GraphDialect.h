//===- GraphDialect.h - msgraph dialect -------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_IR_GRAPHDIALECT_H
#define MS_DIALECT_GRAPH_IR_GRAPHDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"

#include <mutex>
#include <optional>

#include "ms/Dialect/Graph/IR/GraphOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ms/Dialect/Graph/IR/GraphOpsTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "ms/Dialect/Graph/IR/GraphAttrs.h.inc"

namespace mlir::ms::graph {
/// The module attribute recording where the bytes of constants read from
/// files outside the model lie (ONNX external data, `ms-compile
/// --external-weights`): an array of `[path, offset, length, value]`, the
/// file's real path, the bytes' offset and length in it, and the constant
/// (uniqued: a constant a pass computed from it, such as a transposed
/// weight, is another attribute and is never taken for the file's bytes).
/// ms-build-plan consumes it.
inline constexpr llvm::StringLiteral kExternalDataAttrName =
    "msgraph.external_data";

/// Whether `value` holds elements a weight can be written from: dense or
/// mapped elements, or a relayout of them.
inline bool isWeightElements(Attribute value) {
  return isa_and_nonnull<DenseElementsAttr, MappedElementsAttr,
                         RelayoutElementsAttr>(value);
}

/// A constant's bytes as stored.
struct StoredBytes {
  /// The elements' little-endian bytes, or a splat's one element's.
  ArrayRef<char> data;
  bool splat = false;
};

/// Returns the stored bytes of `value` if it holds dense elements (not
/// bools, which a dense attribute packs as bits) or mapped ones.
std::optional<StoredBytes> getStoredBytes(Attribute value);

/// Returns `value` as dense elements: itself, or a mapped constant's
/// elements copied (for readers of values, such as folders); null for any
/// other attribute.
DenseElementsAttr getDenseElements(Attribute value);
} // namespace mlir::ms::graph

#endif // MS_DIALECT_GRAPH_IR_GRAPHDIALECT_H
