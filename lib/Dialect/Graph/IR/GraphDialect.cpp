//===- GraphDialect.cpp - msgraph dialect ---------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "llvm/Support/MathExtras.h"

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

/// Rounds the f32 with bits `bits` to bf16, to nearest, ties to even (a
/// NaN stays a NaN).
static uint16_t roundToBF16(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

void RelayoutElementsAttr::writeBytes(
    function_ref<void(ArrayRef<char>)> write) const {
  DenseElementsAttr source = getSource();
  ArrayRef<char> raw = source.getRawData();
  unsigned in = elementBytes(source.getElementType());
  bool toBF16 = getType().getElementType() != source.getElementType();
  unsigned out = toBF16 ? 2 : in;
  ArrayRef<int64_t> shape = getShape(), permutation = getPermutation();
  int64_t rank = shape.size();
  // The result's dims and the source element step along each (0 for a
  // splat: its one element everywhere).
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  SmallVector<int64_t> sizes, steps;
  for (int64_t d : permutation) {
    sizes.push_back(shape[d]);
    steps.push_back(source.isSplat() ? 0 : strides[d]);
  }
  int64_t inner = sizes.back(), innerStep = steps.back();
  if (inner == 0)
    return;
  int64_t rows = getType().getNumElements() / inner;
  constexpr size_t kPiece = 1 << 20;
  std::vector<char> piece;
  piece.reserve(kPiece + inner * out);
  SmallVector<int64_t> index(rank - 1, 0);
  int64_t from = 0;
  for (int64_t row = 0; row < rows; ++row) {
    size_t at = piece.size();
    piece.resize(at + inner * out);
    char *to = piece.data() + at;
    if (!toBF16 && innerStep == 1) {
      std::memcpy(to, raw.data() + from * in, inner * in);
    } else if (!toBF16) {
      for (int64_t j = 0; j < inner; ++j)
        std::memcpy(to + j * in, raw.data() + (from + j * innerStep) * in, in);
    } else {
      for (int64_t j = 0; j < inner; ++j) {
        uint32_t bits;
        std::memcpy(&bits, raw.data() + (from + j * innerStep) * in, 4);
        uint16_t half = roundToBF16(bits);
        std::memcpy(to + j * 2, &half, 2);
      }
    }
    if (piece.size() >= kPiece) {
      write(piece);
      piece.clear();
    }
    // The next row: the outer dims counted like an odometer.
    for (int64_t d = rank - 2; d >= 0; --d) {
      from += steps[d];
      if (++index[d] < sizes[d])
        break;
      from -= steps[d] * sizes[d];
      index[d] = 0;
    }
  }
  if (!piece.empty())
    write(piece);
}

DenseElementsAttr RelayoutElementsAttr::materialize() const {
  std::vector<char> bytes;
  bytes.reserve(getNumBytes());
  writeBytes([&](ArrayRef<char> piece) { llvm::append_range(bytes, piece); });
  return DenseElementsAttr::getFromRawBuffer(getType(), bytes);
}
