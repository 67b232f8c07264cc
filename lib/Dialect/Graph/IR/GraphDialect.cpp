//===- GraphDialect.cpp - msgraph dialect ---------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/runtime/Relayout.h"

#include "llvm/Support/FileSystem.h"
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

llvm::Expected<std::pair<StringRef, StringRef>>
GraphDialect::mapFile(StringRef path) {
  auto fail = [&](std::error_code error) {
    return llvm::createStringError(error, "cannot map '%s': %s",
                                   path.str().c_str(), error.message().c_str());
  };
  namespace fs = llvm::sys::fs;
  SmallString<256> real;
  if (std::error_code error = fs::real_path(path, real))
    return fail(error);
  std::lock_guard<std::mutex> lock(mappedFilesMutex);
  auto it = mappedFiles.find(real);
  if (it == mappedFiles.end()) {
    auto file = fs::openNativeFileForRead(real);
    if (!file)
      return fail(llvm::errorToErrorCode(file.takeError()));
    MappedFile mapped;
    std::error_code error = fs::status(*file, mapped.status);
    if (!error && mapped.status.type() != fs::file_type::regular_file) {
      fs::closeFile(*file);
      return llvm::createStringError(
          std::make_error_code(std::errc::invalid_argument),
          "cannot map '%s': not a regular file", path.str().c_str());
    }
    if (!error && mapped.status.getSize() != 0)
      mapped.region = std::make_unique<fs::mapped_file_region>(
          *file, fs::mapped_file_region::readonly, mapped.status.getSize(),
          /*offset=*/0, error);
    fs::closeFile(*file);
    if (error)
      return fail(error);
    it = mappedFiles.try_emplace(real, std::move(mapped)).first;
  }
  const auto &region = it->second.region;
  if (!region)
    return std::make_pair(it->first(), StringRef());
  return std::make_pair(it->first(),
                        StringRef(region->const_data(), region->size()));
}

std::string GraphDialect::findChangedMappedFile() {
  std::lock_guard<std::mutex> lock(mappedFilesMutex);
  for (const auto &entry : mappedFiles) {
    llvm::sys::fs::file_status now;
    const llvm::sys::fs::file_status &then = entry.second.status;
    if (llvm::sys::fs::status(entry.first(), now) ||
        now.getUniqueID() != then.getUniqueID() ||
        now.getSize() != then.getSize() ||
        now.getLastModificationTime() != then.getLastModificationTime())
      return entry.first().str();
  }
  return "";
}

/// The bytes of one element of `type`, or 0 if it is no whole-byte integer
/// or float.
static unsigned elementBytes(Type type) {
  if (!type.isIntOrFloat() || type.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return type.getIntOrFloatBitWidth() / 8;
}

std::optional<StoredBytes> mlir::ms::graph::getStoredBytes(Attribute value) {
  if (auto mapped = dyn_cast_if_present<MappedElementsAttr>(value))
    return StoredBytes{mapped.getRawData(), /*splat=*/false};
  auto dense = dyn_cast_if_present<DenseIntOrFPElementsAttr>(value);
  if (!dense || !elementBytes(dense.getElementType()))
    return std::nullopt;
  return StoredBytes{dense.getRawData(), dense.isSplat()};
}

DenseElementsAttr mlir::ms::graph::getDenseElements(Attribute value) {
  if (auto mapped = dyn_cast_if_present<MappedElementsAttr>(value))
    return mapped.materialize();
  return dyn_cast_if_present<DenseElementsAttr>(value);
}

//===----------------------------------------------------------------------===//
// MappedElementsAttr
//===----------------------------------------------------------------------===//

llvm::Expected<MappedElementsAttr>
MappedElementsAttr::map(ShapedType type, StringRef path, uint64_t offset) {
  std::string text;
  llvm::raw_string_ostream os(text);
  // mapped_c1: a static type of whole-byte integers or floats.
  unsigned bytes = elementBytes(type.getElementType());
  if (!type.hasStaticShape() || !bytes) {
    os << "expected a static type of integers or floats of whole bytes, but "
          "found '"
       << type << "'";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
  }
  int64_t size = bytes;
  for (int64_t dim : type.getShape())
    if (llvm::MulOverflow(size, dim, size))
      size = -1;
  auto *dialect = type.getContext()->getOrLoadDialect<GraphDialect>();
  auto file = dialect->mapFile(path);
  if (!file)
    return file.takeError();
  // mapped_c2: the elements lie inside the file.
  StringRef contents = file->second;
  if (size < 0 || offset > contents.size() ||
      uint64_t(size) > contents.size() - offset) {
    os << "expected the ";
    if (size >= 0)
      os << size << " ";
    os << "bytes of '" << type << "' at offset " << offset << " of '" << path
       << "', but the file holds " << contents.size() << " bytes";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), text);
  }
  return Base::get(type.getContext(), type, file->first, offset,
                   contents.data() + offset);
}

MappedElementsAttr MappedElementsAttr::reshaped(ShapedType type) const {
  assert(type.hasStaticShape() &&
         type.getNumElements() == getType().getNumElements() &&
         type.getElementType() == getType().getElementType() &&
         "expected a static type of as many elements");
  return Base::get(type.getContext(), type, getPath(), getOffset(), getData());
}

Attribute MappedElementsAttr::parse(AsmParser &parser, Type type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string path;
  uint64_t offset = 0;
  if (parser.parseLess() || parser.parseString(&path) || parser.parseComma() ||
      parser.parseKeyword("offset") || parser.parseEqual() ||
      parser.parseInteger(offset) || parser.parseGreater())
    return {};
  auto shaped = dyn_cast_if_present<RankedTensorType>(type);
  if (!shaped) {
    parser.emitError(loc, "expected a ranked tensor type after "
                          "#msgraph.mapped, but found ")
        << type;
    return {};
  }
  auto attr = map(shaped, path, offset);
  if (!attr) {
    parser.emitError(loc) << llvm::toString(attr.takeError());
    return {};
  }
  return *attr;
}

void MappedElementsAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printer.printString(getPath());
  printer << ", offset = " << getOffset() << '>';
}

ArrayRef<char> MappedElementsAttr::getRawData() const {
  return {getData(), static_cast<size_t>(getType().getNumElements()) *
                         elementBytes(getType().getElementType())};
}

DenseElementsAttr MappedElementsAttr::materialize() const {
  return DenseElementsAttr::getFromRawBuffer(getType(), getRawData());
}

//===----------------------------------------------------------------------===//
// RelayoutElementsAttr
//===----------------------------------------------------------------------===//

LogicalResult
RelayoutElementsAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                             ShapedType type, ElementsAttr source,
                             ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> permutation) {
  // relayout_c1: a dense or mapped source of whole-byte integers or floats.
  if (!isa<DenseIntOrFPElementsAttr, MappedElementsAttr>(source))
    return emitError() << "expected a dense or mapped source, but found "
                       << source;
  auto sourceType = cast<ShapedType>(source.getType());
  Type from = sourceType.getElementType(), to = type.getElementType();
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
  // relayout_c5: the source's element type, or f32 to bf16 or f16.
  if (to != from && !(from.isF32() && (to.isBF16() || to.isF16())))
    return emitError() << "expected element type " << from
                       << " (or bf16 or f16 from f32), but found " << to;
  return success();
}

uint64_t RelayoutElementsAttr::getNumBytes() const {
  return static_cast<uint64_t>(getType().getNumElements()) *
         elementBytes(getType().getElementType());
}

/// What a relayout rounds its f32 source to, if anything.
static ::ms::format::Narrowing getNarrowing(RelayoutElementsAttr attr) {
  Type from = attr.getSource().getElementType(),
       to = attr.getType().getElementType();
  if (from == to)
    return ::ms::format::Narrowing::None;
  return to.isBF16() ? ::ms::format::Narrowing::BF16
                     : ::ms::format::Narrowing::F16;
}

/// The shape of a relayout, as the module format's code computes it.
static ::ms::format::RelayoutShape relayoutShape(RelayoutElementsAttr attr) {
  ElementsAttr source = attr.getSource();
  ::ms::format::RelayoutShape relayout;
  relayout.shape.assign(attr.getShape().begin(), attr.getShape().end());
  relayout.permutation.assign(attr.getPermutation().begin(),
                              attr.getPermutation().end());
  relayout.elementBytes = elementBytes(source.getElementType());
  relayout.narrowing = getNarrowing(attr);
  relayout.splat = getStoredBytes(source)->splat;
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
  const char *source = getStoredBytes(getSource())->data.data();
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
