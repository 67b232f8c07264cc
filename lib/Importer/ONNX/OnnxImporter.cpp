//===- OnnxImporter.cpp - ONNX models to msgraph --------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Importer/ONNX/OnnxImporter.h"

#include "ImporterImpl.h"
#include "ms/runtime/MappedPages.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>
#include <cstring>

#include <google/protobuf/io/zero_copy_stream_impl.h>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;

//===----------------------------------------------------------------------===//
// Element types and tensors
//===----------------------------------------------------------------------===//

Type mlir::ms::onnx_importer::convertElementType(MLIRContext *ctx,
                                                 int32_t code, Location loc) {
  Builder b(ctx);
  switch (code) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::UINT8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::UINT16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::UINT32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case onnx::TensorProto::UINT64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::STRING:
    return graph::StringType::get(ctx);
  default:
    break;
  }
  if (onnx::TensorProto::DataType_IsValid(code))
    emitError(loc, "element type ")
        << onnx::TensorProto::DataType_Name(
               static_cast<onnx::TensorProto::DataType>(code))
        << " (code " << code << ") is not supported";
  else
    emitError(loc, "unknown element type code ") << code;
  return nullptr;
}

namespace {
/// Where the bytes of an external-data tensor lie.
struct ExternalData {
  /// The file's real path (links resolved, absolute).
  std::string path;
  /// The bytes' offset and length in the file.
  uint64_t offset = 0;
  uint64_t length = 0;
};
} // namespace

/// Finds where the `expected` bytes of an external-data tensor lie. Like
/// ONNX Runtime, the data must lie in a regular file inside the model's
/// directory: no absolute path, no `..`, no link out of it, no device file.
static FailureOr<ExternalData> locateExternal(const onnx::TensorProto &tensor,
                                              Location loc,
                                              StringRef modelDirectory,
                                              uint64_t expected) {
  std::string location;
  uint64_t offset = 0, length = expected;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" &&
             StringRef(entry.value()).getAsInteger(10, offset))
      return emitError(loc, "malformed external-data offset '")
             << entry.value() << "' of tensor '" << tensor.name() << "'";
    else if (entry.key() == "length" &&
             StringRef(entry.value()).getAsInteger(10, length))
      return emitError(loc, "malformed external-data length '")
             << entry.value() << "' of tensor '" << tensor.name() << "'";
  }
  if (location.empty())
    return emitError(loc, "external-data tensor '")
           << tensor.name() << "' has no location";
  if (modelDirectory.empty())
    return emitError(loc, "tensor '")
           << tensor.name()
           << "' has external data, but the model was not read from a file";
  bool escapes = llvm::sys::path::is_absolute(location) ||
                 llvm::sys::path::has_root_name(location);
  for (auto it = llvm::sys::path::begin(location),
            end = llvm::sys::path::end(location);
       it != end; ++it)
    escapes |= *it == "..";
  if (escapes)
    return emitError(loc, "external data location '")
           << location << "' of tensor '" << tensor.name()
           << "' must be a relative path inside the model's directory";
  if (length != expected)
    return emitError(loc, "external data of tensor '")
           << tensor.name() << "' is " << length
           << " bytes long, but its shape and type need " << expected;
  SmallString<256> path(modelDirectory);
  llvm::sys::path::append(path, location);
  // The file (after links) must be a regular file inside the directory.
  SmallString<256> realPath, realDirectory;
  llvm::sys::fs::file_status status;
  if (std::error_code error = llvm::sys::fs::real_path(path, realPath))
    return emitError(loc, "cannot read external data '")
           << path << "' of tensor '" << tensor.name()
           << "': " << error.message();
  if (llvm::sys::fs::real_path(modelDirectory, realDirectory) ||
      !StringRef(realPath).starts_with(
          (realDirectory + llvm::sys::path::get_separator()).str()))
    return emitError(loc, "external data '")
           << path << "' of tensor '" << tensor.name()
           << "' leads outside the model's directory";
  if (llvm::sys::fs::status(realPath, status) ||
      status.type() != llvm::sys::fs::file_type::regular_file)
    return emitError(loc, "external data '")
           << path << "' of tensor '" << tensor.name()
           << "' is not a regular file";
  if (offset > status.getSize() || length > status.getSize() - offset)
    return emitError(loc, "external data of tensor '")
           << tensor.name() << "' (" << length << " bytes at offset "
           << offset << ") is out of range of '" << path << "' ("
           << status.getSize() << " bytes)";
  return ExternalData{realPath.str().str(), offset, length};
}

/// The number of values `tensor` holds in its typed fields (float_data, ...).
static int64_t typedValueCount(const onnx::TensorProto &tensor) {
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return tensor.float_data_size();
  case onnx::TensorProto::DOUBLE:
    return tensor.double_data_size();
  case onnx::TensorProto::INT64:
    return tensor.int64_data_size();
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return tensor.uint64_data_size();
  default:
    return tensor.int32_data_size();
  }
}

bool mlir::ms::onnx_importer::fitsTensorLimit(ArrayRef<int64_t> shape,
                                              Type elem) {
  uint64_t bytes = 1;
  if (elem.isIntOrFloat())
    bytes = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
  else if (auto complex = dyn_cast<ComplexType>(elem))
    bytes = std::max(1u, complex.getElementType().getIntOrFloatBitWidth() / 4);
  int64_t count = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      continue;
    // A zero-size tensor may not have huge dims either: converters loop
    // over dims.
    if (d < 0 || uint64_t(d) > kMaxTensorBytes ||
        llvm::MulOverflow(count, d, count) ||
        uint64_t(count) > kMaxTensorBytes / bytes)
      return false;
  }
  return true;
}

FailureOr<ElementsAttr> mlir::ms::onnx_importer::convertTensor(
    const onnx::TensorProto &tensor, MLIRContext *ctx, Location loc,
    StringRef modelDirectory, SmallVectorImpl<Attribute> *external,
    std::optional<RawData> rawData, bool mapFiles) {
  Type elem = convertElementType(ctx, tensor.data_type(), loc);
  if (!elem)
    return failure();
  if (isa<graph::StringType>(elem))
    return emitError(loc, "tensor '")
           << tensor.name()
           << "' holds strings; string constants are not supported yet";
  SmallVector<int64_t> shape;
  for (int64_t d : tensor.dims()) {
    if (d < 0)
      return emitError(loc, "tensor '")
             << tensor.name() << "' has a negative dimension " << d;
    shape.push_back(d);
  }
  if (!fitsTensorLimit(shape, elem))
    return emitError(loc, "tensor '")
           << tensor.name() << "' is too large: its dims need more than "
           << (kMaxTensorBytes >> 30) << " GiB";
  auto type = RankedTensorType::get(shape, elem);
  int64_t count = type.getNumElements();
  unsigned width = elem.getIntOrFloatBitWidth();
  uint64_t bytes = width == 1 ? 1 : width / 8;

  // The element bytes: the tensor's raw data as it is, else converted here.
  std::string converted;
  std::unique_ptr<llvm::MemoryBuffer> mapped;
  std::optional<ExternalData> origin;
  StringRef raw;
  // Where `raw` lies in a file mapped for the context's lifetime, if it
  // does.
  StringRef mappedPath;
  uint64_t mappedOffset = 0;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    auto located = locateExternal(tensor, loc, modelDirectory, count * bytes);
    if (failed(located))
      return failure();
    origin = std::move(*located);
    auto fail = [&](StringRef why) {
      return emitError(loc, "cannot read external data '")
             << origin->path << "' of tensor '" << tensor.name()
             << "': " << why;
    };
    if (mapFiles && origin->length >= kMinMappedBytes) {
      auto file =
          ctx->getOrLoadDialect<graph::GraphDialect>()->mapFile(origin->path);
      if (!file)
        return fail(llvm::errorToErrorCode(file.takeError()).message());
      mappedPath = file->first;
      mappedOffset = origin->offset;
      // (The file may have changed since it was checked.)
      raw = file->second.substr(origin->offset, origin->length);
    } else {
      auto buffer = llvm::MemoryBuffer::getFileSlice(
          origin->path, origin->length, origin->offset, /*IsVolatile=*/false);
      if (!buffer)
        return fail(buffer.getError().message());
      mapped = std::move(*buffer);
      raw = mapped->getBuffer();
    }
  } else if (rawData) {
    raw = rawData->bytes;
    if (mapFiles) {
      mappedPath = rawData->mappedPath;
      mappedOffset = rawData->offset;
    }
  } else if (tensor.has_raw_data()) {
    raw = tensor.raw_data();
  } else {
    // Typed fields: widen or narrow into little-endian element bytes.
    int64_t given = typedValueCount(tensor);
    if (given != count)
      return emitError(loc, "tensor '")
             << tensor.name() << "' holds " << given << " values but its shape "
             << "needs " << count;
    converted.resize(count * bytes);
    auto put = [&](int64_t i, uint64_t bits) {
      if (i < count)
        std::memcpy(&converted[i * bytes], &bits, bytes);
    };
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      for (int64_t i = 0; i < given; ++i) {
        float f = tensor.float_data(i);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        put(i, bits);
      }
      break;
    case onnx::TensorProto::DOUBLE:
      for (int64_t i = 0; i < given; ++i) {
        double f = tensor.double_data(i);
        uint64_t bits;
        std::memcpy(&bits, &f, 8);
        put(i, bits);
      }
      break;
    case onnx::TensorProto::INT64:
      for (int64_t i = 0; i < given; ++i)
        put(i, (uint64_t)tensor.int64_data(i));
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      for (int64_t i = 0; i < given; ++i)
        put(i, tensor.uint64_data(i));
      break;
    default:
      for (int64_t i = 0; i < given; ++i)
        put(i, (uint64_t)(int64_t)tensor.int32_data(i));
      break;
    }
    raw = converted;
  }
  if (raw.size() != count * bytes)
    return emitError(loc, "tensor '")
           << tensor.name() << "' holds " << raw.size()
           << " bytes of data but its shape and type need " << count * bytes;
  if (elem.isInteger(1)) {
    SmallVector<bool> values;
    for (char c : raw)
      values.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, ArrayRef<char>(raw.data(), raw.size()), detectedSplat))
    return emitError(loc, "tensor '") << tensor.name() << "' has malformed data";
  // A splat (every element the first one: found at the first difference,
  // which real weights have within a few bytes) stays dense, as do small
  // tensors.
  auto isSplat = [&] {
    for (uint64_t at = bytes; at < raw.size(); at += bytes)
      if (std::memcmp(raw.data(), raw.data() + at, bytes) != 0)
        return false;
    return true;
  };
  ElementsAttr attr;
  if (!mappedPath.empty() && raw.size() >= kMinMappedBytes && !isSplat()) {
    // Referred to in place: neither copied nor hashed.
    auto mappedAttr =
        graph::MappedElementsAttr::map(type, mappedPath, mappedOffset);
    if (!mappedAttr)
      return emitError(loc, "tensor '")
             << tensor.name()
             << "': " << llvm::toString(mappedAttr.takeError());
    attr = *mappedAttr;
  } else {
    attr = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(raw.data(), raw.size()));
  }
  // (Booleans are not recorded: the file may hold any nonzero byte.)
  if (origin && external) {
    Builder b(ctx);
    external->push_back(b.getArrayAttr(
        {b.getStringAttr(origin->path),
         b.getI64IntegerAttr(static_cast<int64_t>(origin->offset)),
         b.getI64IntegerAttr(static_cast<int64_t>(origin->length)), attr}));
  }
  return attr;
}

//===----------------------------------------------------------------------===//
// Initializer bytes left in the file
//===----------------------------------------------------------------------===//

namespace {
/// Reads protobuf wire format: varints and fields. (Not protobuf's
/// CodedInputStream: its positions and limits stop at 2 GiB, and the models
/// this is for are the large ones.)
struct WireReader {
  const char *at, *end;

  bool done() const { return at == end; }
  bool varint(uint64_t &value) {
    value = 0;
    for (unsigned shift = 0; shift < 64 && at != end; shift += 7) {
      auto byte = static_cast<uint8_t>(*at++);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  /// Reads one field: its number, wire type and, for a length-delimited
  /// field, its payload; `whole` spans the field from its tag.
  bool field(uint64_t &number, unsigned &wireType, StringRef &payload,
             StringRef &whole) {
    const char *start = at;
    uint64_t tag, length;
    if (!varint(tag))
      return false;
    number = tag >> 3;
    wireType = tag & 7;
    switch (wireType) {
    case 0:
      if (!varint(length))
        return false;
      break;
    case 1:
    case 5: {
      size_t size = wireType == 1 ? 8 : 4;
      if (static_cast<size_t>(end - at) < size)
        return false;
      at += size;
      break;
    }
    case 2:
      if (!varint(length) || length > static_cast<uint64_t>(end - at))
        return false;
      payload = StringRef(at, length);
      at += length;
      break;
    default: // groups (deprecated) and invalid types: not rewritten
      return false;
    }
    whole = StringRef(start, at - start);
    return true;
  }
};

/// Appends `value` as a varint.
void appendVarint(std::string &out, uint64_t value) {
  do {
    char byte = static_cast<char>(value & 0x7f);
    value >>= 7;
    out.push_back(value ? static_cast<char>(byte | 0x80) : byte);
  } while (value);
}

/// Appends length-delimited field `number` holding `payload`.
void appendMessage(std::string &out, uint64_t number, StringRef payload) {
  appendVarint(out, number << 3 | 2);
  appendVarint(out, payload.size());
  out.append(payload.data(), payload.size());
}

/// A model's protobuf without the raw data of its large initializers
/// (`slim`), and where those bytes lie in the file: by initializer index,
/// in the order of the graph's initializers.
struct SlimModel {
  std::string slim;
  DenseMap<size_t, StringRef> rawData;
  size_t initializers = 0;
};

/// Raw data of at least this many bytes stays in the file.
constexpr size_t kLeftInFile = 4096;

/// One field of a message: its number, wire type, payload (for a
/// length-delimited field) and all its bytes from its tag.
using FieldFn = function_ref<void(uint64_t number, unsigned wireType,
                                  StringRef payload, StringRef whole)>;

/// Calls `fn` on each field of `message`; false if it is not well-formed
/// wire format.
bool forEachField(StringRef message, FieldFn fn) {
  WireReader reader{message.begin(), message.end()};
  while (!reader.done()) {
    uint64_t number;
    unsigned wireType;
    StringRef payload, whole;
    if (!reader.field(number, wireType, payload, whole))
      return false;
    fn(number, wireType, payload, whole);
  }
  return true;
}

/// Copies TensorProto `tensor` into `out` without its raw data (field 9)
/// if that is large; returns the raw data left out (null if none).
bool slimTensor(StringRef tensor, std::string &out, StringRef &raw) {
  raw = StringRef();
  if (!forEachField(tensor, [&](uint64_t number, unsigned wireType,
                                StringRef payload, StringRef whole) {
        // The last raw_data wins, as in a protobuf parse.
        if (number == 9 && wireType == 2)
          raw = payload;
        else
          out.append(whole.data(), whole.size());
      }))
    return false;
  if (raw.data() && raw.size() < kLeftInFile) {
    appendMessage(out, 9, raw);
    raw = StringRef();
  }
  return true;
}

/// Copies GraphProto `graph` into `out`, its initializers (field 5)
/// slimmed.
bool slimGraph(StringRef graph, std::string &out, SlimModel &model) {
  bool valid = true;
  return forEachField(graph,
                      [&](uint64_t number, unsigned wireType, StringRef payload,
                          StringRef whole) {
                        if (number != 5 || wireType != 2) {
                          out.append(whole.data(), whole.size());
                          return;
                        }
                        std::string tensor;
                        StringRef raw;
                        valid = valid && slimTensor(payload, tensor, raw);
                        if (raw.data())
                          model.rawData[model.initializers] = raw;
                        ++model.initializers;
                        appendMessage(out, 5, tensor);
                      }) &&
         valid;
}

/// Slims ModelProto `bytes` (its graph is field 7); false if it is not
/// well-formed wire format, which the protobuf parse then reports.
bool slimModel(StringRef bytes, SlimModel &model) {
  bool valid = true;
  return forEachField(bytes,
                      [&](uint64_t number, unsigned wireType, StringRef payload,
                          StringRef whole) {
                        if (number != 7 || wireType != 2) {
                          model.slim.append(whole.data(), whole.size());
                          return;
                        }
                        std::string graph;
                        valid = valid && slimGraph(payload, graph, model);
                        appendMessage(model.slim, 7, graph);
                      }) &&
         valid;
}

/// Parses ModelProto `bytes` into `model` without the raw data of its large
/// initializers, which `slim.rawData` then points at in `bytes`. Whether
/// the parse succeeded; none (and nothing left out) if `bytes` is not
/// well-formed wire format, for the caller to parse it whole.
std::optional<bool> parseSlim(StringRef bytes, onnx::ModelProto &model,
                              SlimModel &slim) {
  if (!slimModel(bytes, slim) || slim.slim.size() > INT_MAX) {
    slim = SlimModel();
    return std::nullopt;
  }
  bool parsed = model.ParseFromArray(slim.slim.data(),
                                     static_cast<int>(slim.slim.size()));
  std::string().swap(slim.slim);
  return parsed;
}
} // namespace

//===----------------------------------------------------------------------===//
// NodeContext and OpTable
//===----------------------------------------------------------------------===//

InFlightDiagnostic NodeContext::error() const {
  // Unnamed nodes are identified by their location name (op type and index).
  std::string name = node.name();
  if (name.empty())
    if (auto named = dyn_cast<NameLoc>(loc))
      name = named.getName().str();
  return emitError(loc) << "node '" << name << "' (" << node.op_type()
                        << "): ";
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::getInt(StringRef name, int64_t fallback) const {
  const auto *a = attr(name);
  return a ? a->i() : fallback;
}

float NodeContext::getFloat(StringRef name, float fallback) const {
  const auto *a = attr(name);
  return a ? a->f() : fallback;
}

std::string NodeContext::getString(StringRef name, StringRef fallback) const {
  const auto *a = attr(name);
  return a ? a->s() : fallback.str();
}

std::optional<SmallVector<int64_t>>
NodeContext::getInts(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<SmallVector<float>> NodeContext::getFloats(StringRef name) const {
  const auto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<float>(a->floats().begin(), a->floats().end());
}

/// Names the graph inputs that `value` is computed from, as
/// " from graph input(s) 'a', 'b'", or "" when it reads none.
static std::string runtimeSources(Value value) {
  if (!value)
    return "";
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> visited;
  std::vector<std::string> names;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      if (!func)
        continue;
      auto name = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                    "ms.name");
      if (name && !llvm::is_contained(names, name.str()))
        names.push_back(name.str());
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (!op || !visited.insert(op).second)
      continue;
    llvm::append_range(worklist, op->getOperands());
  }
  if (names.empty())
    return "";
  std::string text = names.size() == 1 ? " from graph input " : " from graph inputs ";
  for (auto [k, name] : llvm::enumerate(names))
    text += (k ? ", '" : "'") + name + "'";
  return text;
}

DenseElementsAttr NodeContext::constantInput(unsigned i) const {
  Attribute attr;
  if (hasInput(i) && matchPattern(inputs[i], m_Constant(&attr)))
    return graph::getDenseElements(attr);
  return nullptr;
}

/// Reports that input `i`, described as `what`, is missing.
static InFlightDiagnostic missingInput(const NodeContext &c, unsigned i,
                                       StringRef what) {
  return c.error() << "expected " << what << " as input #" << i
                   << ", but the node has none";
}

FailureOr<SmallVector<int64_t>>
NodeContext::constantInts(unsigned i, StringRef what) const {
  if (!hasInput(i))
    return missingInput(*this, i, what);
  DenseElementsAttr attr = constantInput(i);
  if (!attr || !isa<IntegerType>(attr.getElementType()))
    return error() << "expected " << what << " (input '" << node.input(i)
                   << "') to be a constant integer tensor, but it is computed "
                      "at run time"
                   << runtimeSources(inputs[i]) << "; bind it with --bind-input";
  SmallVector<int64_t> values;
  for (const APInt &v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

FailureOr<SmallVector<double>>
NodeContext::constantFloats(unsigned i, StringRef what) const {
  if (!hasInput(i))
    return missingInput(*this, i, what);
  DenseElementsAttr attr = constantInput(i);
  if (!attr)
    return error() << "expected " << what << " (input '" << node.input(i)
                   << "') to be a constant tensor, but it is computed at run "
                      "time"
                   << runtimeSources(inputs[i]) << "; bind it with --bind-input";
  SmallVector<double> values;
  if (isa<FloatType>(attr.getElementType())) {
    for (const APFloat &v : attr.getValues<APFloat>())
      values.push_back(v.convertToDouble());
  } else {
    for (const APInt &v : attr.getValues<APInt>())
      values.push_back((double)v.getSExtValue());
  }
  return values;
}

Value NodeContext::constant(ElementsAttr value) {
  return graph::ConstantOp::create(b, loc, value);
}

FailureOr<Value> NodeContext::finish(Operation *op) {
  // Inference and verification report problems in msgraph terms; collect
  // them and report them against this node.
  std::string messages;
  LogicalResult valid = success();
  {
    ScopedDiagnosticHandler handler(op->getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        messages += (messages.empty() ? "" : "; ") + diag.str();
      return success();
    });
    if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
      SmallVector<Type> types;
      valid = infer.inferReturnTypes(
          op->getContext(), loc, op->getOperands(), op->getRawDictionaryAttrs(),
          op->getPropertiesStorage(), op->getRegions(), types);
      if (succeeded(valid))
        for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
          result.setType(type);
    }
    if (succeeded(valid))
      valid = verify(op);
  }
  if (failed(valid)) {
    op->erase();
    return error() << messages;
  }
  // The size limit before folding: folders count elements of result types.
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type);
        tensor && !fitsTensorLimit(tensor.getShape(), tensor.getElementType())) {
      op->erase();
      if (llvm::any_of(tensor.getShape(), [](int64_t d) {
            return d < 0 && !ShapedType::isDynamic(d);
          }))
        return error() << "a result has a negative dim: " << tensor;
      return error() << "a result would be too large: " << tensor
                     << " needs more than " << (kMaxTensorBytes >> 30)
                     << " GiB";
    }
  // Fold right away (shape arithmetic on constants, and ops such as
  // msgraph.shape that fold from static types alone) so that later nodes
  // see constants.
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands()) {
    Attribute a;
    operands.push_back(matchPattern(v, m_Constant(&a)) ? a : Attribute());
  }
  SmallVector<OpFoldResult> folded;
  if (op->getNumResults() == 1 &&
      succeeded(op->fold(operands, folded)) && folded.size() == 1) {
    Value result = op->getResult(0);
    if (auto attr = dyn_cast_if_present<Attribute>(folded[0])) {
      auto elements = dyn_cast<ElementsAttr>(attr);
      if (elements && elements.getType() == result.getType()) {
        Value c = constant(elements);
        op->erase();
        return c;
      }
    } else if (auto v = dyn_cast<Value>(folded[0]);
               v && v.getType() == result.getType()) {
      op->erase();
      return v;
    }
  }
  return op->getResult(0);
}

const Handler *OpTable::lookup(StringRef name, int64_t opset) const {
  auto it = table.find(name.str());
  if (it == table.end())
    return nullptr;
  const Handler *best = nullptr;
  for (const auto &[since, handler] : it->second)
    if (since <= opset)
      best = &handler;
  return best;
}

FailureOr<Value> mlir::ms::onnx_importer::reshape(NodeContext &c, Value value,
                                                  ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  return c.create<graph::ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), value, Value());
}

//===----------------------------------------------------------------------===//
// The graph
//===----------------------------------------------------------------------===//

namespace {
/// The model file an import reads its initializers' raw data from.
struct ModelFile {
  /// Its bytes.
  StringRef bytes;
  /// Whether they are a read-only mapping whose pages may be given back.
  bool releasable = false;
  /// Its real path when the GraphDialect maps it for the context's lifetime
  /// (constants then refer to it in place); empty otherwise.
  StringRef mappedPath;
};

class GraphImporter {
public:
  GraphImporter(MLIRContext *ctx, StringRef filename,
                const OnnxImportOptions &options)
      : ctx(ctx), filename(filename), options(options) {
    populateElementwiseOps(table);
    populateNeuralNetworkOps(table);
    populateTensorOps(table);
    populateStringOps(table);
    populateLossOps(table);
  }

  /// Imports `model`; the initializers' data is freed as they become
  /// constants. `file`, with `rawData`: the model file and the raw data of
  /// initializers left out of `model`'s protobuf, by index.
  OwningOpRef<ModuleOp>
  run(onnx::ModelProto &model, const ModelFile *file = nullptr,
      const DenseMap<size_t, StringRef> *rawData = nullptr);

private:
  Location fileLoc() { return FileLineColLoc::get(ctx, filename, 0, 0); }
  /// Returns what the options' annotateValue hook makes of value `name`.
  Value annotate(OpBuilder &b, StringRef name, Value value) {
    if (!options.annotateValue || !value)
      return value;
    return options.annotateValue(
        b, NameLoc::get(StringAttr::get(ctx, name), fileLoc()), name, value);
  }
  Location nodeLoc(const onnx::NodeProto &node, size_t index) {
    std::string name = node.name().empty() ? node.op_type() + "#" +
                                                 std::to_string(index)
                                           : node.name();
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc());
  }
  FailureOr<Type> valueType(const onnx::ValueInfoProto &info, bool isInput);
  /// Expands calls of model-local functions into plain nodes.
  LogicalResult expandFunctions(const onnx::ModelProto &model,
                                std::vector<onnx::NodeProto> &nodes);
  LogicalResult importNodes(OpBuilder &b,
                            const std::vector<onnx::NodeProto> &nodes);
  /// The element types of sequence graph input `info`, from its
  /// --input-shape list.
  FailureOr<SmallVector<Type>>
  sequenceInputTypes(const onnx::ValueInfoProto &info,
                     const onnx::TypeProto &elementType);

  MLIRContext *ctx;
  std::string filename;
  const OnnxImportOptions &options;
  OpTable table;
  int64_t opset = 1;
  llvm::StringMap<Value> values;
  /// Sequence values (compile-time lists of tensors), by name.
  SequenceMap sequences;
};
} // namespace

/// Returns the element type of a sequence of tensors (optional or not), or
/// null for any other type.
static const onnx::TypeProto *sequenceElementType(const onnx::TypeProto &type) {
  const onnx::TypeProto &inner =
      type.has_optional_type() ? type.optional_type().elem_type() : type;
  if (!inner.has_sequence_type() ||
      !inner.sequence_type().elem_type().has_tensor_type())
    return nullptr;
  return &inner.sequence_type().elem_type();
}

FailureOr<SmallVector<Type>>
GraphImporter::sequenceInputTypes(const onnx::ValueInfoProto &info,
                                  const onnx::TypeProto &elementType) {
  Location loc = fileLoc();
  auto shapes = options.sequenceShapes.find(info.name());
  if (shapes == options.sequenceShapes.end())
    return emitError(loc, "graph input '")
           << info.name()
           << "' is a sequence; give the shapes of its elements with "
              "--input-shape "
           << info.name() << "=D1xD2,D1xD2,... (one per element)";
  Type elem = convertElementType(ctx, elementType.tensor_type().elem_type(),
                                 loc);
  if (!elem)
    return failure();
  SmallVector<Type> types;
  for (const SmallVector<int64_t> &shape : shapes->second)
    types.push_back(RankedTensorType::get(shape, elem));
  return types;
}

FailureOr<Type> GraphImporter::valueType(const onnx::ValueInfoProto &info,
                                         bool isInput) {
  Location loc = fileLoc();
  // An optional is taken as present: a module has no absent inputs.
  const onnx::TypeProto &declared = info.type().has_optional_type()
                                        ? info.type().optional_type().elem_type()
                                        : info.type();
  if (!declared.has_tensor_type())
    return emitError(loc, "graph ")
           << (isInput ? "input" : "output") << " '" << info.name()
           << "' is not a tensor (maps, and sequences other than graph "
              "inputs and outputs of tensors, are not supported)";
  const auto &tensor = declared.tensor_type();
  Type elem = convertElementType(ctx, tensor.elem_type(), loc);
  if (!elem)
    return failure();
  SmallVector<int64_t> shape;
  auto pinned = options.inputShapes.find(info.name());
  if (isInput && pinned != options.inputShapes.end()) {
    if (tensor.has_shape() && tensor.shape().dim_size() != (int)pinned->second.size())
      return emitError(loc, "--input-shape for '")
             << info.name() << "' has rank " << pinned->second.size()
             << " but the model declares rank " << tensor.shape().dim_size();
    shape = pinned->second;
  } else if (tensor.has_shape()) {
    for (const auto &dim : tensor.shape().dim())
      shape.push_back(dim.has_dim_value() && dim.dim_value() >= 0
                          ? dim.dim_value()
                          : ShapedType::kDynamic);
  } else {
    return emitError(loc, "graph ")
           << (isInput ? "input" : "output") << " '" << info.name()
           << "' has no shape (its rank is unknown)";
  }
  // Static dims whose product overflows would wrap in every size
  // computation after this one.
  if (!fitsTensorLimit(shape, elem))
    return emitError(loc, "graph ")
           << (isInput ? "input" : "output") << " '" << info.name()
           << "' is too large: its dims need more than "
           << (kMaxTensorBytes >> 30) << " GiB";
  return Type(RankedTensorType::get(shape, elem));
}

LogicalResult
GraphImporter::expandFunctions(const onnx::ModelProto &model,
                               std::vector<onnx::NodeProto> &nodes) {
  std::map<std::pair<std::string, std::string>, const onnx::FunctionProto *>
      functions;
  for (const auto &f : model.functions())
    functions[{f.domain(), f.name()}] = &f;
  if (functions.empty())
    return success();
  std::vector<onnx::NodeProto> out;
  int64_t counter = 0;
  std::function<LogicalResult(const onnx::NodeProto &, int)> expand =
      [&](const onnx::NodeProto &node, int depth) -> LogicalResult {
    auto it = functions.find({node.domain(), node.op_type()});
    if (it == functions.end()) {
      out.push_back(node);
      return success();
    }
    if (depth > 32)
      return emitError(fileLoc(), "function '")
             << node.op_type() << "' expands recursively";
    const onnx::FunctionProto &f = *it->second;
    // Rename the function's values to fresh names bound to the call.
    std::map<std::string, std::string> rename;
    for (int i = 0; i < f.input_size(); ++i)
      rename[f.input(i)] = i < node.input_size() ? node.input(i) : "";
    for (int i = 0; i < f.output_size(); ++i)
      if (i < node.output_size())
        rename[f.output(i)] = node.output(i);
    std::string prefix = "__fn" + std::to_string(counter++) + "_";
    std::map<std::string, const onnx::AttributeProto *> callAttrs;
    for (const auto &a : node.attribute())
      callAttrs[a.name()] = &a;
    for (const auto &a : f.attribute_proto())
      if (!callAttrs.count(a.name()))
        callAttrs[a.name()] = &a;
    for (const auto &inner : f.node()) {
      onnx::NodeProto copy = inner;
      auto map = [&](std::string &name) {
        if (name.empty())
          return;
        auto r = rename.find(name);
        name = r != rename.end() ? r->second : prefix + name;
      };
      for (auto &name : *copy.mutable_input())
        map(name);
      for (auto &name : *copy.mutable_output())
        map(name);
      // Attribute references take the caller's value.
      google::protobuf::RepeatedPtrField<onnx::AttributeProto> attrs;
      for (const auto &a : copy.attribute()) {
        if (a.ref_attr_name().empty()) {
          *attrs.Add() = a;
          continue;
        }
        auto ref = callAttrs.find(a.ref_attr_name());
        if (ref == callAttrs.end())
          continue;
        onnx::AttributeProto resolved = *ref->second;
        resolved.set_name(a.name());
        *attrs.Add() = resolved;
      }
      *copy.mutable_attribute() = attrs;
      if (failed(expand(copy, depth + 1)))
        return failure();
    }
    return success();
  };
  for (const auto &node : nodes)
    if (failed(expand(node, 0)))
      return failure();
  nodes = std::move(out);
  return success();
}

LogicalResult
GraphImporter::importNodes(OpBuilder &b,
                           const std::vector<onnx::NodeProto> &nodes) {
  // Every value a node reads must be made by an earlier node (ONNX graphs are
  // topologically sorted); tell a cycle apart from a dangling name.
  llvm::StringSet<> producedLater;
  for (const auto &node : nodes)
    for (const auto &out : node.output())
      producedLater.insert(out);

  // Report every unsupported op at once.
  std::string unsupported;
  llvm::StringSet<> seen;
  for (auto [index, node] : llvm::enumerate(nodes)) {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    if (defaultDomain && (table.lookup(node.op_type(), opset) ||
                          isSequenceOp(node.op_type())))
      continue;
    if (isGradientOp(node))
      continue;
    std::string key = node.domain() + ":" + node.op_type();
    std::string entry = node.op_type() + " (node '" +
                        (node.name().empty() ? "#" + std::to_string(index)
                                             : node.name()) +
                        "', domain '" +
                        (node.domain().empty() ? "ai.onnx" : node.domain()) +
                        "', opset " + std::to_string(opset) + ")";
    if (!seen.insert(key).second)
      continue;
    unsupported += (unsupported.empty() ? "" : ", ") + entry;
  }
  if (!unsupported.empty())
    return emitError(fileLoc(), "unsupported ONNX ops: ") << unsupported;

  for (auto [index, node] : llvm::enumerate(nodes)) {
    Location loc = nodeLoc(node, index);
    SmallVector<Value> inputs;
    for (const auto &name : node.input()) {
      if (name.empty()) {
        inputs.push_back(Value());
        continue;
      }
      auto it = values.find(name);
      if (it != values.end()) {
        inputs.push_back(it->second);
        continue;
      }
      if (sequences.count(name)) {
        if (!isSequenceOp(node.op_type()) && node.op_type() != "Identity")
          return emitError(loc, "node '")
                 << node.name() << "' (" << node.op_type() << ") reads '"
                 << name << "', a sequence; only sequence ops take sequences";
        // Sequence ops read it from `sequences`.
        inputs.push_back(Value());
        continue;
      }
      if (producedLater.contains(name))
        return emitError(loc, "node '")
               << node.name() << "' (" << node.op_type() << ") reads '"
               << name
               << "' before it is produced: the graph has a cycle or is not "
                  "topologically sorted";
      return emitError(loc, "node '")
             << node.name() << "' (" << node.op_type()
             << ") reads '" << name
             << "', which no node, input or initializer defines";
    }
    for (Value v : inputs)
      if (v && !isa<RankedTensorType>(v.getType()))
        return emitError(loc, "node '") << node.name() << "' reads a non-tensor value";
    NodeContext c(b, loc, node, opset, inputs);
    if (!isGradientOp(node) && failed(checkSchema(c)))
      return failure();
    // Identity of a sequence names the same list.
    if (node.op_type() == "Identity" && node.input_size() == 1 &&
        sequences.count(node.input(0))) {
      if (node.output_size() == 1 && !node.output(0).empty()) {
        SmallVector<Value> elements = sequences[node.input(0)];
        sequences[node.output(0)] = std::move(elements);
      }
      continue;
    }
    if (isSequenceOp(node.op_type())) {
      if (failed(importSequenceOp(c, sequences, values)))
        return failure();
      continue;
    }
    FailureOr<SmallVector<Value>> results =
        isGradientOp(node) ? importGradient(c, values)
                           : (*table.lookup(node.op_type(), opset))(c);
    if (failed(results))
      return failure();
    // Every value keeps the size limit, so no converter's arithmetic on the
    // static dims of its operands can overflow.
    for (auto [i, result] : llvm::enumerate(*results)) {
      auto type = result ? dyn_cast<RankedTensorType>(result.getType())
                         : RankedTensorType();
      if (type && !fitsTensorLimit(type.getShape(), type.getElementType()))
        return c.error() << "output #" << i << " would be too large: "
                         << type << " needs more than "
                         << (kMaxTensorBytes >> 30) << " GiB";
    }
    for (auto [i, name] : llvm::enumerate(node.output())) {
      if (name.empty())
        continue;
      if (i >= results->size() || !(*results)[i]) {
        // An output the handler does not produce must stay unused.
        bool used = false;
        for (const auto &other : nodes)
          for (const auto &in : other.input())
            used |= in == name;
        if (used)
          return c.error() << "output #" << i << " ('" << name
                           << "') is not supported";
        continue;
      }
      values[name] = annotate(b, name, (*results)[i]);
    }
  }
  return success();
}

OwningOpRef<ModuleOp>
GraphImporter::run(onnx::ModelProto &model, const ModelFile *file,
                   const DenseMap<size_t, StringRef> *rawData) {
  Location loc = fileLoc();
  bool haveDefault = false;
  for (const auto &op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") {
      opset = op.version();
      haveDefault = true;
    }
  }
  if (!haveDefault && model.ir_version() >= 3) {
    // Only other domains are imported: every node will be unsupported.
    opset = 0;
  }
  if (!model.has_graph()) {
    emitError(loc, "the model has no graph");
    return nullptr;
  }
  const onnx::GraphProto &graph = model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());

  // Initializers first: graph inputs of the same name are not runtime
  // inputs.
  llvm::StringMap<ElementsAttr> initializers;
  // (A large initializer in a mapped file is referred to in place. Any
  // other constant holds its own copy: the protobuf's is freed at once, and
  // the pages of bytes read from the mapped file are given back, so that a
  // model's weights are not held twice while it imports.)
  SmallVector<Attribute> external;
  for (auto [index, tensor] :
       llvm::enumerate(*model.mutable_graph()->mutable_initializer())) {
    std::optional<RawData> raw;
    if (rawData)
      if (auto it = rawData->find(index); it != rawData->end()) {
        raw = RawData{it->second};
        if (file && !file->mappedPath.empty()) {
          raw->mappedPath = file->mappedPath;
          raw->offset = it->second.data() - file->bytes.data();
        }
      }
    auto attr = convertTensor(tensor, ctx, loc, options.modelDirectory,
                              options.recordExternalData ? &external : nullptr,
                              raw, options.mapWeights);
    if (failed(attr))
      return nullptr;
    initializers[tensor.name()] = *attr;
    std::string().swap(*tensor.mutable_raw_data());
    if (raw && file && file->releasable &&
        !isa<graph::MappedElementsAttr>(*attr)) {
      // Whole pages within the bytes (a read-only mapping of the file: a
      // page given back is read again if touched).
      ::ms::format::releaseMappedPages(raw->bytes.data(), raw->bytes.size());
    }
  }
  if (!external.empty())
    (*module)->setAttr(graph::kExternalDataAttrName, b.getArrayAttr(external));
  // Inputs bound at compile time are constants too.
  for (const auto &[name, value] : options.boundInputs) {
    const onnx::ValueInfoProto *declared = nullptr;
    for (const auto &input : graph.input())
      if (input.name() == name.str())
        declared = &input;
    if (!declared) {
      emitError(loc, "--bind-input names '")
          << name << "', which is not a graph input";
      return nullptr;
    }
    ElementsAttr bound = value;
    // .npy has no bfloat16: a bf16 input is bound from float32 values.
    auto dense = dyn_cast<DenseElementsAttr>(value);
    auto type = valueType(*declared, true);
    if (dense && succeeded(type) &&
        cast<ShapedType>(*type).getElementType().isBF16() &&
        dense.getElementType().isF32()) {
      Type bf16 = BFloat16Type::get(ctx);
      bound = dense.mapValues(bf16, [](const APFloat &v) {
        APFloat converted = v;
        bool lost;
        converted.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven,
                          &lost);
        return converted.bitcastToAPInt();
      });
    }
    initializers[name] = bound;
  }
  // A pinned shape must name a runtime input: a typo would otherwise leave
  // the intended input dynamic without a word.
  auto checkPinned = [&](StringRef name) {
    bool isInput = llvm::any_of(graph.input(), [&](const auto &input) {
      return input.name() == name.str();
    });
    // A bound input's value has its shape; the runner may pin it as well.
    if (isInput && (!initializers.count(name) || options.boundInputs.count(name)))
      return true;
    auto diag = emitError(loc, "an input shape is given for '") << name << "', ";
    if (isInput) {
      diag << "which has an initializer (a constant, not a runtime input)";
      return false;
    }
    diag << "but the model has no input of that name (runtime inputs:";
    for (const auto &input : graph.input())
      if (!initializers.count(input.name()))
        diag << " '" << input.name() << "'";
    diag << ")";
    return false;
  };
  for (const auto &entry : options.inputShapes)
    if (!checkPinned(entry.getKey()))
      return nullptr;
  for (const auto &entry : options.sequenceShapes)
    if (!checkPinned(entry.getKey()))
      return nullptr;
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  // Sequence inputs: the name and the positions of their element arguments.
  SmallVector<std::pair<std::string, SmallVector<unsigned>>> sequenceArgs;
  for (const auto &input : graph.input()) {
    if (initializers.count(input.name()))
      continue;
    const onnx::TypeProto *sequence = sequenceElementType(input.type());
    if (sequence) {
      auto elements = sequenceInputTypes(input, *sequence);
      if (failed(elements))
        return nullptr;
      auto &entry = sequenceArgs.emplace_back(input.name(),
                                              SmallVector<unsigned>());
      for (auto [i, type] : llvm::enumerate(*elements)) {
        entry.second.push_back(argTypes.size());
        argTypes.push_back(type);
        argNames.push_back(input.name() + "[" + std::to_string(i) + "]");
      }
      continue;
    }
    auto type = valueType(input, true);
    if (failed(type))
      return nullptr;
    argTypes.push_back(*type);
    argNames.push_back(input.name());
  }
  // Sequence outputs get their element types once the graph is imported.
  SmallVector<Type> resultTypes;
  for (const auto &output : graph.output()) {
    if (sequenceElementType(output.type())) {
      resultTypes.push_back(Type());
      continue;
    }
    auto type = valueType(output, false);
    if (failed(type))
      return nullptr;
    resultTypes.push_back(*type);
  }
  auto func = func::FuncOp::create(
      b, loc, "main", FunctionType::get(ctx, argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "ms.name", b.getStringAttr(name));
    values[name] = body->getArgument(i);
  }
  b.setInsertionPointToEnd(body);
  for (auto [i, name] : llvm::enumerate(argNames))
    if (values.count(name))
      values[name] = annotate(b, name, body->getArgument(i));
  for (auto &[name, positions] : sequenceArgs) {
    SmallVector<Value> &elements = sequences[name];
    for (unsigned position : positions) {
      values.erase(argNames[position]);
      elements.push_back(body->getArgument(position));
    }
  }
  b.setInsertionPointToEnd(body);
  for (auto &[name, attr] : initializers)
    values[name] = annotate(b, name, graph::ConstantOp::create(b, loc, attr));

  std::vector<onnx::NodeProto> nodes(graph.node().begin(), graph.node().end());
  if (failed(expandFunctions(model, nodes)) || failed(importNodes(b, nodes)))
    return nullptr;

  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  for (auto [j, output] : llvm::enumerate(graph.output())) {
    if (const onnx::TypeProto *elementType =
            sequenceElementType(output.type())) {
      // A sequence output: one result per element, named NAME[i].
      auto it = sequences.find(output.name());
      if (it == sequences.end()) {
        emitError(loc, "graph output '")
            << output.name() << "' is declared a sequence but is not one";
        return nullptr;
      }
      Type elem = convertElementType(
          ctx, elementType->tensor_type().elem_type(), loc);
      if (!elem)
        return nullptr;
      for (auto [i, v] : llvm::enumerate(it->second)) {
        if (cast<RankedTensorType>(v.getType()).getElementType() != elem) {
          emitError(loc, "graph output '")
              << output.name() << "' is declared a sequence of " << elem
              << " but element " << i << " is " << v.getType();
          return nullptr;
        }
        results.push_back(v);
        resultNames.push_back(output.name() + "[" + std::to_string(i) + "]");
      }
      continue;
    }
    auto it = values.find(output.name());
    if (it == values.end()) {
      emitError(loc, "graph output '") << output.name()
                                       << "' is never produced";
      return nullptr;
    }
    Value v = it->second;
    if (sequences.count(output.name())) {
      emitError(loc, "graph output '")
          << output.name() << "' is a sequence but is declared a tensor";
      return nullptr;
    }
    auto declared = cast<RankedTensorType>(resultTypes[j]);
    auto actual = cast<RankedTensorType>(v.getType());
    if (declared.getElementType() != actual.getElementType() ||
        declared.getRank() != actual.getRank() ||
        failed(verifyCompatibleShape(declared, actual))) {
      emitError(loc, "graph output '")
          << output.name() << "' is declared " << declared
          << " but the graph computes " << actual;
      return nullptr;
    }
    if (declared != actual)
      v = tensor::CastOp::create(b, loc, declared, v);
    results.push_back(v);
    resultNames.push_back(output.name());
  }
  func.setType(FunctionType::get(ctx, argTypes, ValueRange(results).getTypes()));
  for (auto [j, name] : llvm::enumerate(resultNames))
    func.setResultAttr(j, "ms.name", b.getStringAttr(name));
  func::ReturnOp::create(b, loc, results);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp>
mlir::ms::importOnnxModel(StringRef bytes, StringRef filename,
                          MLIRContext *context,
                          const OnnxImportOptions &options) {
  context->loadDialect<graph::GraphDialect, func::FuncDialect,
                       tensor::TensorDialect>();
  onnx::ModelProto model;
  SlimModel slim;
  std::optional<bool> parsed = parseSlim(bytes, model, slim);
  if (!parsed)
    parsed = bytes.size() <= INT_MAX &&
             model.ParseFromArray(bytes.data(), (int)bytes.size());
  if (!*parsed) {
    emitError(FileLineColLoc::get(context, filename, 0, 0),
              "malformed or truncated ONNX protobuf (")
        << bytes.size() << " bytes could not be parsed as a ModelProto)";
    return nullptr;
  }
  GraphImporter importer(context, filename, options);
  return importer.run(model, /*file=*/nullptr, &slim.rawData);
}

OwningOpRef<ModuleOp>
mlir::ms::importOnnxFile(StringRef path, MLIRContext *context,
                         const OnnxImportOptions &options) {
  context->loadDialect<graph::GraphDialect, func::FuncDialect,
                       tensor::TensorDialect>();
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  if (llvm::sys::fs::is_directory(path)) {
    emitError(loc, "cannot open the model: it is a directory");
    return nullptr;
  }
  // The file is mapped, and the protobuf parsed without the raw data of
  // its large initializers: each is referred to in place (mapped for the
  // context's lifetime) or copied once, from the mapping into its constant
  // (not into the protobuf first). A file that is not well-formed wire
  // format is parsed whole, which reports it.
  ModelFile modelFile;
  std::unique_ptr<llvm::MemoryBuffer> buffer;
  if (options.mapWeights && llvm::sys::fs::is_regular_file(path)) {
    auto mapped =
        context->getLoadedDialect<graph::GraphDialect>()->mapFile(path);
    if (!mapped) {
      emitError(loc, "cannot open the model: ")
          << llvm::errorToErrorCode(mapped.takeError()).message();
      return nullptr;
    }
    modelFile.mappedPath = mapped->first;
    modelFile.bytes = mapped->second;
    modelFile.releasable = true;
  } else {
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file) {
      emitError(loc, "cannot open the model: ") << file.getError().message();
      return nullptr;
    }
    buffer = std::move(*file);
    modelFile.bytes = buffer->getBuffer();
    modelFile.releasable =
        buffer->getBufferKind() == llvm::MemoryBuffer::MemoryBuffer_MMap;
  }
  SlimModel slim;
  onnx::ModelProto model;
  StringRef bytes = modelFile.bytes;
  std::optional<bool> parsed = parseSlim(bytes, model, slim);
  if (!parsed && bytes.size() <= INT_MAX) {
    parsed = model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()));
  } else if (!parsed) {
    // Over 2 GiB (ParseFromArray's limit): read again, as a stream.
    int fd;
    if (std::error_code ec = llvm::sys::fs::openFileForRead(path, fd)) {
      emitError(loc, "cannot open the model: ") << ec.message();
      return nullptr;
    }
    google::protobuf::io::FileInputStream stream(fd);
    stream.SetCloseOnDelete(true);
    parsed = model.ParseFromZeroCopyStream(&stream) && stream.GetErrno() == 0;
  }
  if (!*parsed) {
    emitError(loc, "malformed or truncated ONNX protobuf (")
        << bytes.size() << " bytes could not be parsed as a ModelProto)";
    return nullptr;
  }
  GraphImporter importer(context, path, options);
  return importer.run(model, &modelFile, &slim.rawData);
}

bool mlir::ms::parseInputShape(StringRef text, OnnxImportOptions &options,
                               std::string &error) {
  auto [name, dims] = text.split('=');
  if (name.empty() || !text.contains('=')) {
    error = "expected NAME=D1xD2x..., but found '" + text.str() + "'";
    return false;
  }
  auto parseShape = [&](StringRef dims, SmallVector<int64_t> &shape) {
    if (dims.empty())
      return true;
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef part : parts) {
      int64_t d;
      if (part.getAsInteger(10, d) || d < 0) {
        error = "expected a non-negative dimension in '" + text.str() +
                "', but found '" + part.str() + "'";
        return false;
      }
      shape.push_back(d);
    }
    return true;
  };
  if (dims.contains(',')) {
    // A sequence: one shape per element; a trailing comma ends the list.
    SmallVector<StringRef> elements;
    dims.split(elements, ',');
    if (elements.back().empty())
      elements.pop_back();
    SmallVector<SmallVector<int64_t>> shapes;
    for (StringRef element : elements) {
      if (element.empty()) {
        error = "expected a shape between commas in '" + text.str() + "'";
        return false;
      }
      if (!parseShape(element, shapes.emplace_back()))
        return false;
    }
    options.sequenceShapes[name] = std::move(shapes);
    return true;
  }
  SmallVector<int64_t> shape;
  if (!parseShape(dims, shape))
    return false;
  options.inputShapes[name] = shape;
  return true;
}
