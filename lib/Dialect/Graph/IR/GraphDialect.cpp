//===- GraphDialect.cpp - msgraph dialect ---------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/runtime/Relayout.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::ms::graph;

#include "ms/Dialect/Graph/IR/GraphOpsDialect.cpp.inc"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#define GET_TYPEDEF_CLASSES
#include "ms/Dialect/Graph/IR/GraphOpsTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ms/Dialect/Graph/IR/GraphAttrs.cpp.inc"

void GraphDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ms/Dialect/Graph/IR/GraphOpsTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ms/Dialect/Graph/IR/GraphAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ms/Dialect/Graph/IR/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}

//===----------------------------------------------------------------------===//
// RelayoutElementsAttr
//===----------------------------------------------------------------------===//

/// The bytes of one element of `type`, or 0 if it is no whole-byte integer
/// or float.
static unsigned elementBytes(Type type) {
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return type.getIntOrFloatBitWidth() / 8;
}

LogicalResult
RelayoutElementsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             ShapedType type, DenseElementsAttr source,
                             ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> permutation) {
  auto sourceType = cast<ShapedType>(source.getType());
  Type from = sourceType.getElementType(), to = type.getElementType();
  // relayout_c1: a source of whole-byte integers or floats.
  if (!elementBytes(from))
    return emitError() << "expected a source of integers or floats of whole "
                          "bytes, but found "
                       << from;
  // relayout_c2: the shape holds the source's elements.
  int64_t count = 1;
  bool overflows = false;
  for (int64_t size : shape) {
    if (size < 0)
      return emitError() << "expected a shape of sizes at least 0, but found "
                         << size;
    overflows |= llvm::MulOverflow(count, size, count);
  }
  if (overflows)
    return emitError() << "expected a shape of " << sourceType.getNumElements()
                       << " elements (the source's), but found [" << shape
                       << "]";
  if (shape.empty() || count != sourceType.getNumElements())
    return emitError() << "expected a shape of " << sourceType.getNumElements()
                       << " elements (the source's), but found [" << shape
                       << "]";
  // relayout_c3: a permutation of the shape's dims.
  SmallVector<int64_t> sorted(permutation);
  llvm::sort(sorted);
  SmallVector<int64_t> dims(shape.size());
  std::iota(dims.begin(), dims.end(), 0);
  if (sorted != dims)
    return emitError() << "expected a permutation of the " << shape.size()
                       << " dims of the shape, but found [" << permutation
                       << "]";
  // relayout_c4: a static type of as many elements.
  if (!type.hasStaticShape() || type.getNumElements() != count)
    return emitError() << "expected a static type of " << count
                       << " elements, but found " << type;
  // relayout_c5: the source's element type, or f32 to bf16.
  if (to != from && !(from.isF32() && to.isBF16()))
    return emitError() << "expected element type " << from
                       << " (or bf16 from f32), but found " << to;
  return success();
}

uint64_t RelayoutElementsAttr::getNumBytes() const {
  return static_cast<uint64_t>(getType().getNumElements()) *
         elementBytes(getType().getElementType());
}

/// The shape of a relayout, as the module format's code computes it.
static ::ms::format::RelayoutShape relayoutShape(RelayoutElementsAttr attr) {
  DenseElementsAttr source = attr.getSource();
  ::ms::format::RelayoutShape relayout;
  relayout.shape.assign(attr.getShape().begin(), attr.getShape().end());
  relayout.permutation.assign(attr.getPermutation().begin(),
                              attr.getPermutation().end());
  relayout.elementBytes = elementBytes(source.getElementType());
  relayout.toBF16 = attr.getType().getElementType() != source.getElementType();
  relayout.splat = source.isSplat();
  return relayout;
}

void RelayoutElementsAttr::writeBytes(
    function_ref<void(ArrayRef<char>)> write) const {
  ::ms::format::RelayoutShape relayout = relayoutShape(*this);
  int64_t rows = relayout.rows();
  if (rows == 0)
    return;
  // Pieces of about 1 MiB, whole rows each.
  int64_t rowBytes = relayout.rowElements() * relayout.resultBytes();
  int64_t perPiece = std::max<int64_t>(1, (int64_t(1) << 20) / rowBytes);
  std::vector<char> piece;
  const char *source = getSource().getRawData().data();
  for (int64_t row = 0; row < rows; row += perPiece) {
    int64_t last = std::min(rows, row + perPiece);
    piece.resize((last - row) * rowBytes);
    ::ms::format::relayoutRows(source, relayout, row, last, piece.data());
    write(piece);
  }
}

DenseElementsAttr RelayoutElementsAttr::materialize() const {
  std::vector<char> bytes;
  bytes.reserve(getNumBytes());
  writeBytes([&](ArrayRef<char> piece) { llvm::append_range(bytes, piece); });
  return DenseElementsAttr::getFromRawBuffer(getType(), bytes);
}
