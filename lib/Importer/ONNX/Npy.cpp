//===- Npy.cpp - read NumPy .npy files as constants -----------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Importer/ONNX/OnnxImporter.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

FailureOr<ElementsAttr> mlir::ms::readNpyFile(StringRef path,
                                              MLIRContext *ctx, Location loc) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    return emitError(loc, "cannot read '")
           << path << "': " << buffer.getError().message();
  StringRef data = (*buffer)->getBuffer();
  auto bad = [&](const Twine &why) {
    return emitError(loc, "'") << path << "' is not a valid .npy file: " << why;
  };
  if (data.size() < 10 || !data.starts_with("\x93NUMPY"))
    return bad("missing the \\x93NUMPY magic");
  uint8_t major = data[6];
  size_t headerLen, start;
  if (major == 1) {
    headerLen = (uint8_t)data[8] | ((uint8_t)data[9] << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return bad("truncated header");
    headerLen = (uint8_t)data[8] | ((uint8_t)data[9] << 8) |
                ((uint8_t)data[10] << 16) | ((size_t)(uint8_t)data[11] << 24);
    start = 12;
  } else {
    return bad("unsupported version " + Twine(major));
  }
  if (start + headerLen > data.size())
    return bad("truncated header");
  StringRef header = data.substr(start, headerLen);
  auto value = [&](StringRef key) -> StringRef {
    size_t at = header.find("'" + key.str() + "'");
    if (at == StringRef::npos)
      return "";
    StringRef rest = header.drop_front(at + key.size() + 2).ltrim(" :");
    return rest;
  };
  StringRef descr = value("descr");
  if (!descr.consume_front("'"))
    return bad("no descr");
  descr = descr.take_until([](char c) { return c == '\''; });
  if (value("fortran_order").starts_with("True"))
    return bad("fortran_order arrays are not supported");
  StringRef shapeText = value("shape");
  if (!shapeText.consume_front("("))
    return bad("no shape");
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  SmallVector<int64_t> shape;
  SmallVector<StringRef> parts;
  shapeText.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t d;
    if (part.getAsInteger(10, d) || d < 0)
      return bad("malformed shape");
    shape.push_back(d);
  }
  Builder b(ctx);
  Type elem;
  StringRef code = descr.drop_front(descr.starts_with("<") ||
                                    descr.starts_with("|") ||
                                    descr.starts_with("="));
  if (descr.starts_with(">"))
    return bad("big-endian data is not supported");
  if (code == "f4")
    elem = b.getF32Type();
  else if (code == "f8")
    elem = b.getF64Type();
  else if (code == "f2")
    elem = b.getF16Type();
  else if (code == "i8")
    elem = b.getI64Type();
  else if (code == "i4")
    elem = b.getI32Type();
  else if (code == "i2")
    elem = b.getI16Type();
  else if (code == "i1")
    elem = b.getI8Type();
  else if (code == "u1")
    elem = IntegerType::get(ctx, 8, IntegerType::Unsigned);
  else if (code == "u2")
    elem = IntegerType::get(ctx, 16, IntegerType::Unsigned);
  else if (code == "u4")
    elem = IntegerType::get(ctx, 32, IntegerType::Unsigned);
  else if (code == "u8")
    elem = IntegerType::get(ctx, 64, IntegerType::Unsigned);
  else if (code == "b1")
    elem = b.getI1Type();
  else
    return bad("unsupported dtype '" + descr + "'");
  auto type = RankedTensorType::get(shape, elem);
  unsigned width = elem.getIntOrFloatBitWidth();
  size_t bytes = type.getNumElements() * (width == 1 ? 1 : width / 8);
  StringRef payload = data.drop_front(start + headerLen);
  if (payload.size() != bytes)
    return bad("expected " + Twine(bytes) + " bytes of data, found " +
               Twine(payload.size()));
  if (width == 1) {
    SmallVector<bool> values;
    for (char c : payload)
      values.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(payload.data(), payload.size())));
}
