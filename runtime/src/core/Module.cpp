//===- Module.cpp - module file loading and validation --------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Module.h"
#include "core/Util.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

using ms::rt::formatTensorType;
using ms::rt::Status;
using namespace ms::rt::impl;
namespace format = ms::format;
using Json = nlohmann::json;

//===----------------------------------------------------------------------===//
// MappedFile
//===----------------------------------------------------------------------===//

Status MappedFile::open(const std::string &path,
                        std::unique_ptr<MappedFile> &out) {
  out.reset();
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::error(errno == ENOENT ? MS_NOT_FOUND : MS_UNAVAILABLE,
                         path + ": cannot open: " + std::strerror(errno));
  struct stat info;
  if (fstat(fd, &info) != 0) {
    Status status = Status::error(
        MS_UNAVAILABLE, path + ": cannot stat: " + std::strerror(errno));
    close(fd);
    return status;
  }
  if (!S_ISREG(info.st_mode)) {
    close(fd);
    return Status::error(MS_INVALID_ARGUMENT, path + ": not a regular file");
  }
  std::unique_ptr<MappedFile> file(new (std::nothrow) MappedFile());
  if (!file) {
    close(fd);
    return Status::error(MS_INTERNAL, path + ": out of memory");
  }
  file->length = static_cast<size_t>(info.st_size);
  if (file->length > 0) {
    void *mapping = mmap(nullptr, file->length, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      Status status = Status::error(
          MS_UNAVAILABLE, path + ": cannot map: " + std::strerror(errno));
      close(fd);
      return status;
    }
    file->bytes = static_cast<const uint8_t *>(mapping);
  }
  // The mapping stays valid after the descriptor is closed.
  close(fd);
  out = std::move(file);
  return Status();
}

MappedFile::~MappedFile() {
  if (bytes)
    munmap(const_cast<uint8_t *>(bytes), length);
}

//===----------------------------------------------------------------------===//
// Binary layout
//===----------------------------------------------------------------------===//

namespace {
/// Formats `value` as 0x-prefixed hex.
std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%016" PRIx64, value);
  return text;
}

/// Returns a printable name for a section kind.
const char *sectionName(uint32_t kind) {
  switch (static_cast<format::SectionKind>(kind)) {
  case format::SectionKind::Meta:
    return "meta";
  case format::SectionKind::Weights:
    return "weights";
  case format::SectionKind::CpuElf:
    return "cpu-elf";
  case format::SectionKind::CudaPtx:
    return "cuda-ptx";
  case format::SectionKind::NpuProgram:
    return "npu-program";
  }
  return "unknown";
}

/// Checks the header and the section table, and finds the sections.
Status parseLayout(const uint8_t *data, size_t size, const std::string &name,
                   SectionView &meta, ModuleImage &out) {
  auto corrupt = [&](const std::string &problem) {
    return Status::error(MS_DATA_LOSS, name + ": " + problem);
  };
  if (size < sizeof(format::Header))
    return corrupt("file is " + std::to_string(size) +
                   " bytes, shorter than the 64-byte module header");
  format::Header header;
  std::memcpy(&header, data, sizeof(header));
  if (std::memcmp(header.magic, format::kMagic, sizeof(header.magic)) != 0)
    return Status::error(MS_INVALID_ARGUMENT,
                         name + ": not a module file (bad magic; expected "
                                "\"MSMODULE\")");
  if (header.version == 0 || header.version > format::kVersion)
    return Status::error(MS_UNIMPLEMENTED,
                         name + ": unsupported module format version " +
                             std::to_string(header.version) +
                             " (this runtime reads versions 1 to " +
                             std::to_string(format::kVersion) + ")");
  uint64_t checksum =
      format::fnv1a64(data, offsetof(format::Header, headerChecksum));
  if (checksum != header.headerChecksum)
    return corrupt("header checksum mismatch (stored " +
                   hex(header.headerChecksum) + ", computed " + hex(checksum) +
                   ")");
  if (header.fileSize != size)
    return corrupt("file is " + std::to_string(size) +
                   " bytes but its header says " +
                   std::to_string(header.fileSize) +
                   (size < header.fileSize ? " (truncated)" : " (padded)"));

  uint64_t tableOffset = header.sectionTableOffset;
  uint64_t tableSize =
      uint64_t(header.sectionCount) * sizeof(format::SectionEntry);
  if (tableOffset < sizeof(format::Header) ||
      tableOffset % format::kAlignment != 0 ||
      !inRange(tableOffset, tableSize, size))
    return corrupt("section table (offset " + std::to_string(tableOffset) +
                   ", " + std::to_string(header.sectionCount) +
                   " entries) is misaligned, overlaps the header or lies "
                   "outside the file");
  uint64_t tableEnd = tableOffset + tableSize;

  for (uint32_t i = 0; i < header.sectionCount; ++i) {
    format::SectionEntry entry;
    std::memcpy(&entry, data + tableOffset + i * sizeof(entry), sizeof(entry));
    std::string what =
        "section " + std::to_string(i) + " (" + sectionName(entry.kind) + ")";
    if (entry.kind < 1 || entry.kind > 5)
      return corrupt(what + ": unknown section kind " +
                     std::to_string(entry.kind));
    if (entry.offset % format::kAlignment != 0)
      return corrupt(what + ": offset " + std::to_string(entry.offset) +
                     " is not 64-byte aligned");
    if (entry.offset < tableEnd)
      return corrupt(what + ": offset " + std::to_string(entry.offset) +
                     " overlaps the header or the section table");
    if (!inRange(entry.offset, entry.size, size))
      return corrupt(what + ": [" + std::to_string(entry.offset) + ", +" +
                     std::to_string(entry.size) + ") lies outside the " +
                     std::to_string(size) + "-byte file");
    if (entry.flags & ~format::kWordChecksum)
      return corrupt(what + ": unknown flags " + hex(entry.flags));
    const uint8_t *bytes = data + entry.offset;
    uint64_t sum = entry.flags & format::kWordChecksum
                       ? format::fnv1a64Words(bytes, entry.size)
                       : format::fnv1a64(bytes, entry.size);
    if (sum != entry.checksum)
      return corrupt(what + ": checksum mismatch (stored " +
                     hex(entry.checksum) + ", computed " + hex(sum) + ")");
    SectionView section{bytes, entry.size, true, entry.requirements};
    if (entry.kind != uint32_t(format::SectionKind::Meta) &&
        entry.kind != uint32_t(format::SectionKind::Weights)) {
      out.code[entry.kind].push_back(section);
      continue;
    }
    SectionView &view =
        entry.kind == uint32_t(format::SectionKind::Meta) ? meta : out.weights;
    if (view.present)
      return Status::error(MS_INVALID_ARGUMENT, name + ": more than one " +
                                                    sectionName(entry.kind) +
                                                    " section");
    view = section;
  }
  if (!meta.present)
    return Status::error(MS_INVALID_ARGUMENT, name + ": no meta section");
  return Status();
}

//===----------------------------------------------------------------------===//
// Meta JSON
//===----------------------------------------------------------------------===//

/// Reads fields of the meta JSON, reporting errors as "<file>: meta: <where>:
/// <problem>".
class MetaReader {
public:
  explicit MetaReader(const std::string &name) : name(name) {}

  /// Returns the message prefix for `where`.
  std::string prefix(const std::string &where) const {
    return name + ": meta: " + where + ": ";
  }

  /// Returns a failure at `where`.
  Status fail(const std::string &where, const std::string &problem) const {
    return Status::error(MS_INVALID_ARGUMENT,
                         name + ": meta: " + where + ": " + problem);
  }

  /// Reads the object `value` names at `where`.
  Status object(const Json &value, const std::string &where) const {
    if (!value.is_object())
      return fail(where, "expected an object");
    return Status();
  }

  /// Reads array `key` of `object` (an empty array when absent and
  /// optional).
  Status array(const Json &object, const char *key, const std::string &where,
               const Json *&out, bool required = true) const {
    static const Json empty = Json::array();
    auto it = object.find(key);
    if (it == object.end()) {
      out = &empty;
      return required ? fail(where, std::string("missing \"") + key + "\"")
                      : Status();
    }
    if (!it->is_array())
      return fail(where + "." + key, "expected an array");
    out = &*it;
    return Status();
  }

  /// Reads the non-negative integer `value` at `where`.
  Status unsigned64(const Json &value, const std::string &where,
                    uint64_t &out) const {
    if (!value.is_number_unsigned())
      return fail(where, "expected a non-negative integer");
    out = value.get<uint64_t>();
    return Status();
  }

  /// Reads the non-negative integer `key` of `object`; when absent, fails if
  /// `required`, else leaves `out` unchanged.
  Status unsigned64(const Json &object, const char *key,
                    const std::string &where, uint64_t &out,
                    bool required = true) const {
    auto it = object.find(key);
    if (it == object.end())
      return required ? fail(where, std::string("missing \"") + key + "\"")
                      : Status();
    return unsigned64(*it, where + "." + key, out);
  }

  /// Reads string `key` of `object`; when absent, fails if `required`.
  Status string(const Json &object, const char *key, const std::string &where,
                std::string &out, bool required = true) const {
    auto it = object.find(key);
    if (it == object.end())
      return required ? fail(where, std::string("missing \"") + key + "\"")
                      : Status();
    if (!it->is_string())
      return fail(where + "." + key, "expected a string");
    out = it->get<std::string>();
    return Status();
  }

private:
  /// The file path.
  const std::string &name;
};

/// Reads one entry of "inputs" or "outputs", except its buffer.
Status readTensor(const MetaReader &reader, const Json &value,
                  const std::string &where, bool output, TensorDesc &out) {
  MS_RETURN_IF_ERROR(reader.object(value, where));
  MS_RETURN_IF_ERROR(reader.string(value, "name", where, out.name));
  if (out.name.empty())
    return reader.fail(where + ".name", "empty name");
  std::string dtype;
  MS_RETURN_IF_ERROR(reader.string(value, "dtype", where, dtype));
  out.dtype = ms_dtype_from_name(dtype.c_str());
  if (out.dtype == MS_DTYPE_INVALID)
    return reader.fail(where + ".dtype", "unknown dtype \"" + dtype + "\"");
  const Json *shape = nullptr;
  MS_RETURN_IF_ERROR(reader.array(value, "shape", where, shape));
  uint64_t size = ms_dtype_size(out.dtype);
  for (size_t i = 0; i < shape->size(); ++i) {
    const Json &dim = (*shape)[i];
    std::string at = where + ".shape[" + std::to_string(i) + "]";
    if (output && dim.is_number_integer() && dim.get<int64_t>() == -1) {
      // A data-dependent extent: the size is the buffer's capacity.
      out.shape.push_back(-1);
      continue;
    }
    if (dim.is_number_integer() && !dim.is_number_unsigned())
      return reader.fail(at, "dynamic or negative dimension " + dim.dump() +
                                 (output ? " (only outputs a host step "
                                           "computes may use -1)"
                                         : " (input shapes must be static)"));
    uint64_t extent = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(dim, at, extent));
    if (extent > uint64_t(INT64_MAX) || mulOverflows(size, extent, size))
      return reader.fail(where + ".shape", "tensor size overflows");
    out.shape.push_back(static_cast<int64_t>(extent));
  }
  out.size = size;
  if (!value.contains("buffer"))
    return reader.fail(where, "missing \"buffer\"");
  return Status();
}

/// Reads a buffer id at `where` and returns its position in `positions`.
Status readBufferRef(const MetaReader &reader, const Json &value,
                     const std::string &where,
                     const std::unordered_map<uint64_t, uint32_t> &positions,
                     uint32_t &out) {
  uint64_t id = 0;
  MS_RETURN_IF_ERROR(reader.unsigned64(value, where, id));
  auto it = positions.find(id);
  if (it == positions.end())
    return reader.fail(where,
                       "buffer " + std::to_string(id) + " does not exist");
  out = it->second;
  return Status();
}

/// Parses a step of kind "host" at `where`: appends its argument slots to
/// meta.stepArgs and its operation to meta.hostOps, and marks in
/// `dynamicResults` the outputs whose shape it computes.
Status parseHostStep(const MetaReader &reader, const Json &value,
                     const std::string &where,
                     const std::unordered_map<uint64_t, uint32_t> &positions,
                     ModuleMeta &meta, std::vector<bool> &dynamicResults) {
  std::string op;
  MS_RETURN_IF_ERROR(reader.string(value, "op", where, op));
  const Json *args = nullptr, *dtypes = nullptr, *shapes = nullptr;
  MS_RETURN_IF_ERROR(reader.array(value, "args", where, args));
  MS_RETURN_IF_ERROR(reader.array(value, "dtypes", where, dtypes));
  MS_RETURN_IF_ERROR(reader.array(value, "shapes", where, shapes));
  uint64_t operandCount = 0;
  MS_RETURN_IF_ERROR(
      reader.unsigned64(value, "operands", where, operandCount));
  if (dtypes->size() != args->size() || shapes->size() != args->size() ||
      operandCount > args->size())
    return reader.fail(where, "\"args\", \"dtypes\" and \"shapes\" differ in "
                              "length, or \"operands\" exceeds them");
  if (meta.hostOps.size() >= kSlotIndexMask)
    return reader.fail(where, "too many host steps");
  HostSignature signature;
  signature.operandCount = operandCount;
  std::vector<uint32_t> buffers;
  for (size_t j = 0; j < args->size(); ++j) {
    std::string at = where + ".args[" + std::to_string(j) + "]";
    uint32_t position = 0;
    MS_RETURN_IF_ERROR(
        readBufferRef(reader, (*args)[j], at, positions, position));
    buffers.push_back(position);
    std::string dtype;
    if (!(*dtypes)[j].is_string() ||
        (dtype = (*dtypes)[j].get<std::string>(),
         ms_dtype_from_name(dtype.c_str()) == MS_DTYPE_INVALID))
      return reader.fail(where + ".dtypes[" + std::to_string(j) + "]",
                         "expected a dtype name, found " +
                             (*dtypes)[j].dump());
    signature.dtypes.push_back(ms_dtype_from_name(dtype.c_str()));
    std::vector<int64_t> shape;
    const Json &dims = (*shapes)[j];
    std::string shapeAt = where + ".shapes[" + std::to_string(j) + "]";
    if (!dims.is_array())
      return reader.fail(shapeAt, "expected an array");
    for (const Json &dim : dims) {
      if (!dim.is_number_integer() || dim.get<int64_t>() < -1)
        return reader.fail(shapeAt, "expected extents >= -1, found " +
                                        dim.dump());
      shape.push_back(dim.get<int64_t>());
    }
    signature.shapes.push_back(std::move(shape));
  }
  std::shared_ptr<const HostOp> host;
  static const Json noAttrs = Json::object();
  auto attrs = value.find("attrs");
  if (Status status = createHostOp(op, signature,
                                   attrs == value.end() ? noAttrs : *attrs,
                                   host);
      !status.ok())
    return Status::error(status.code(), reader.prefix(where) +
                                            status.message());
  // Every operand buffer must hold its tensor; every result buffer must be
  // writable and hold the most the operation can produce.
  std::vector<uint32_t> shapeSlots;
  for (size_t j = 0; j < buffers.size(); ++j) {
    const BufferDesc &buffer = meta.buffers[buffers[j]];
    std::string at = where + ".args[" + std::to_string(j) + "]";
    bool operand = j < operandCount;
    uint64_t need = 0;
    if (operand) {
      need = ms_dtype_size(signature.dtypes[j]);
      for (int64_t d : signature.shapes[j])
        if (d < 0 || mulOverflows(need, uint64_t(d), need))
          return reader.fail(at, "operand extents must be static and small");
    } else {
      need = host->resultCapacity(j - operandCount);
      if (buffer.kind == BufferKind::Input || buffer.kind == BufferKind::Weight)
        return reader.fail(at, "buffer " + std::to_string(buffer.id) +
                                   " is read-only (an input or a weight)");
      if (hasDynamicExtent(signature.shapes[j])) {
        if (buffer.kind != BufferKind::Output ||
            signature.shapes[j] != meta.outputs[buffer.index].shape)
          return reader.fail(at, "a result with data-dependent extents must "
                                 "be a module output of the same shape");
        dynamicResults[buffer.index] = true;
        shapeSlots.push_back(kShapeSlot | static_cast<uint32_t>(buffer.index));
      }
    }
    if (buffer.size < need)
      return reader.fail(at, "buffer " + std::to_string(buffer.id) + " has " +
                                 std::to_string(buffer.size) + " bytes, the " +
                                 (operand ? "operand" : "result") + " needs " +
                                 std::to_string(need));
  }
  meta.stepArgs.insert(meta.stepArgs.end(), buffers.begin(), buffers.end());
  meta.stepArgs.insert(meta.stepArgs.end(), shapeSlots.begin(),
                       shapeSlots.end());
  meta.stepArgs.push_back(kScratchSlot |
                          static_cast<uint32_t>(meta.hostOps.size()));
  meta.hostOps.push_back(std::move(host));
  return Status();
}

/// Parses and validates the meta JSON of a module.
Status parseMeta(const SectionView &section, const ModuleImage &image,
                 const std::string &name, ModuleMeta &meta) {
  MetaReader reader(name);
  const char *text = reinterpret_cast<const char *>(section.data);
  meta.json.assign(text, section.size);
  Json root;
  try {
    root = Json::parse(meta.json);
  } catch (const Json::exception &e) {
    return Status::error(MS_INVALID_ARGUMENT,
                         name + ": meta: malformed JSON: " + e.what());
  }
  MS_RETURN_IF_ERROR(reader.object(root, "root"));
  MS_RETURN_IF_ERROR(
      reader.string(root, "producer", "root", meta.producer, false));
  MS_RETURN_IF_ERROR(reader.string(root, "target", "root", meta.target, false));
  MS_RETURN_IF_ERROR(reader.string(root, "entry", "root", meta.entry, false));

  // Buffers first: everything else refers to them by id.
  const Json *buffers = nullptr;
  MS_RETURN_IF_ERROR(reader.array(root, "buffers", "root", buffers));
  if (buffers->size() > kSlotIndexMask)
    return reader.fail("buffers", "too many buffers");
  std::unordered_map<uint64_t, uint32_t> positions;
  for (size_t i = 0; i < buffers->size(); ++i) {
    const Json &value = (*buffers)[i];
    std::string where = "buffers[" + std::to_string(i) + "]";
    MS_RETURN_IF_ERROR(reader.object(value, where));
    BufferDesc buffer;
    MS_RETURN_IF_ERROR(reader.unsigned64(value, "id", where, buffer.id));
    where += " (id " + std::to_string(buffer.id) + ")";
    if (!positions.emplace(buffer.id, static_cast<uint32_t>(i)).second)
      return reader.fail(where, "duplicate buffer id");
    std::string kind;
    MS_RETURN_IF_ERROR(reader.string(value, "kind", where, kind));
    if (kind == "input" || kind == "output") {
      buffer.kind = kind == "input" ? BufferKind::Input : BufferKind::Output;
      MS_RETURN_IF_ERROR(
          reader.unsigned64(value, "index", where, buffer.index));
    } else if (kind == "weight" || kind == "arena") {
      buffer.kind = kind == "weight" ? BufferKind::Weight : BufferKind::Arena;
      MS_RETURN_IF_ERROR(
          reader.unsigned64(value, "offset", where, buffer.offset));
    } else {
      return reader.fail(where + ".kind",
                         "unknown buffer kind \"" + kind + "\"");
    }
    MS_RETURN_IF_ERROR(reader.unsigned64(value, "size", where, buffer.size));
    meta.buffers.push_back(buffer);
  }

  // The signature.
  for (int output = 0; output < 2; ++output) {
    const char *key = output ? "outputs" : "inputs";
    const char *kindName = output ? "output" : "input";
    std::vector<TensorDesc> &tensors = output ? meta.outputs : meta.inputs;
    const Json *list = nullptr;
    MS_RETURN_IF_ERROR(reader.array(root, key, "root", list));
    for (size_t i = 0; i < list->size(); ++i) {
      std::string where = std::string(key) + "[" + std::to_string(i) + "]";
      TensorDesc tensor;
      MS_RETURN_IF_ERROR(
          readTensor(reader, (*list)[i], where, output != 0, tensor));
      for (const TensorDesc &other : tensors)
        if (other.name == tensor.name)
          return reader.fail(where, std::string("duplicate ") + kindName +
                                        " name '" + tensor.name + "'");
      MS_RETURN_IF_ERROR(readBufferRef(reader, (*list)[i].at("buffer"),
                                       where + ".buffer", positions,
                                       tensor.buffer));
      tensors.push_back(std::move(tensor));
    }
  }

  // Buffer ranges and sizes.
  MS_RETURN_IF_ERROR(
      reader.unsigned64(root, "arena_size", "root", meta.arenaSize, false));
  for (const BufferDesc &buffer : meta.buffers) {
    std::string where = "buffer " + std::to_string(buffer.id);
    switch (buffer.kind) {
    case BufferKind::Input:
    case BufferKind::Output: {
      bool input = buffer.kind == BufferKind::Input;
      const std::vector<TensorDesc> &tensors =
          input ? meta.inputs : meta.outputs;
      const char *kindName = input ? "input" : "output";
      if (buffer.index >= tensors.size())
        return reader.fail(where, std::string(kindName) + " index " +
                                      std::to_string(buffer.index) +
                                      " does not exist (the module has " +
                                      std::to_string(tensors.size()) + " " +
                                      kindName + "s)");
      TensorDesc &tensor = const_cast<TensorDesc &>(tensors[buffer.index]);
      if (hasDynamicExtent(tensor.shape)) {
        if (buffer.size % ms_dtype_size(tensor.dtype) != 0)
          return reader.fail(where, "size " + std::to_string(buffer.size) +
                                        " is not a whole number of " +
                                        ms_dtype_name(tensor.dtype) +
                                        " elements");
        tensor.size = buffer.size;
      }
      if (buffer.size != tensor.size)
        return reader.fail(
            where, "size " + std::to_string(buffer.size) + " does not match " +
                       kindName + " '" + tensor.name + "' of type " +
                       formatTensorType(tensor.dtype, tensor.shape.data(),
                                        tensor.shape.size()) +
                       " (" + std::to_string(tensor.size) + " bytes)");
      break;
    }
    case BufferKind::Weight:
      if (buffer.offset % format::kAlignment != 0)
        return reader.fail(where, "weight offset " +
                                      std::to_string(buffer.offset) +
                                      " is not 64-byte aligned");
      if (!inRange(buffer.offset, buffer.size, image.weights.size))
        return reader.fail(
            where, "weight range [" + std::to_string(buffer.offset) + ", +" +
                       std::to_string(buffer.size) + ") lies outside the " +
                       std::to_string(image.weights.size) +
                       "-byte weights section");
      break;
    case BufferKind::Arena:
      if (!inRange(buffer.offset, buffer.size, meta.arenaSize))
        return reader.fail(
            where, "arena range [" + std::to_string(buffer.offset) + ", +" +
                       std::to_string(buffer.size) + ") lies outside the " +
                       std::to_string(meta.arenaSize) + "-byte arena");
      break;
    }
  }

  // Each signature entry names the buffer bound to it.
  for (int output = 0; output < 2; ++output) {
    const char *kindName = output ? "output" : "input";
    BufferKind kind = output ? BufferKind::Output : BufferKind::Input;
    const std::vector<TensorDesc> &tensors =
        output ? meta.outputs : meta.inputs;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const BufferDesc &buffer = meta.buffers[tensors[i].buffer];
      if (buffer.kind != kind || buffer.index != i)
        return reader.fail(
            std::string(kindName) + "s[" + std::to_string(i) + "].buffer",
            "buffer " + std::to_string(buffer.id) + " is not the " + kindName +
                " buffer with index " + std::to_string(i));
    }
  }

  // Kernels.
  const Json *kernels = nullptr;
  MS_RETURN_IF_ERROR(reader.array(root, "kernels", "root", kernels, false));
  for (size_t i = 0; i < kernels->size(); ++i) {
    std::string where = "kernels[" + std::to_string(i) + "]";
    std::string kernel;
    MS_RETURN_IF_ERROR(reader.object((*kernels)[i], where));
    MS_RETURN_IF_ERROR(reader.string((*kernels)[i], "name", where, kernel));
    if (kernel.empty())
      return reader.fail(where + ".name", "empty kernel name");
    const Json *args = nullptr;
    MS_RETURN_IF_ERROR(reader.array((*kernels)[i], "args", where, args));
    if (args->size() > UINT32_MAX / 2)
      return reader.fail(where + ".args", "too many arguments");
    std::vector<uint64_t> argBytes(args->size());
    for (size_t j = 0; j < args->size(); ++j)
      MS_RETURN_IF_ERROR(reader.unsigned64(
          (*args)[j], where + ".args[" + std::to_string(j) + "]",
          argBytes[j]));
    meta.kernels.push_back(std::move(kernel));
    meta.kernelArgBytes.push_back(std::move(argBytes));
  }

  // Queues and events.
  uint64_t queueCount = 1, eventCount = 0;
  MS_RETURN_IF_ERROR(
      reader.unsigned64(root, "queues", "root", queueCount, false));
  MS_RETURN_IF_ERROR(
      reader.unsigned64(root, "events", "root", eventCount, false));
  if (queueCount < 1 || queueCount > kMaxQueues)
    return reader.fail("root.queues",
                       "expected 1 to " + std::to_string(kMaxQueues) +
                           " queues, found " + std::to_string(queueCount));
  if (eventCount > kMaxEvents)
    return reader.fail("root.events",
                       "expected at most " + std::to_string(kMaxEvents) +
                           " events, found " + std::to_string(eventCount));
  meta.queueCount = static_cast<uint32_t>(queueCount);
  meta.eventCount = static_cast<uint32_t>(eventCount);
  // Reads the index `key` of `value`, which must be below `count` items
  // named `noun`.
  auto readIndex = [&](const Json &value, const char *key,
                       const std::string &where, uint64_t count,
                       const char *noun, bool required, uint32_t &out) {
    uint64_t index = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(value, key, where, index, required));
    if (index >= count)
      return reader.fail(where + "." + key,
                         std::string(noun) + " " + std::to_string(index) +
                             " does not exist (the module has " +
                             std::to_string(count) + " " + noun + "s)");
    out = static_cast<uint32_t>(index);
    return Status();
  };

  // The plan.
  std::vector<bool> dynamicResults(meta.outputs.size(), false);
  std::vector<bool> signalled(meta.eventCount, false);
  const Json *steps = nullptr;
  MS_RETURN_IF_ERROR(reader.array(root, "steps", "root", steps));
  for (size_t i = 0; i < steps->size(); ++i) {
    const Json &value = (*steps)[i];
    std::string where = "steps[" + std::to_string(i) + "]";
    MS_RETURN_IF_ERROR(reader.object(value, where));
    std::string kind;
    MS_RETURN_IF_ERROR(reader.string(value, "kind", where, kind));
    if (meta.stepArgs.size() > UINT32_MAX / 2)
      return reader.fail(where, "too many step arguments");
    Step step;
    step.argBegin = static_cast<uint32_t>(meta.stepArgs.size());
    MS_RETURN_IF_ERROR(readIndex(value, "queue", where, meta.queueCount,
                                 "queue", false, step.queue));
    if (kind == "signal" || kind == "wait") {
      step.kind = kind == "signal" ? StepKind::Signal : StepKind::Wait;
      MS_RETURN_IF_ERROR(readIndex(value, "event", where, meta.eventCount,
                                   "event", true, step.event));
      if (step.kind == StepKind::Signal)
        signalled[step.event] = true;
      else if (!signalled[step.event])
        return reader.fail(where, "waits on event " +
                                      std::to_string(step.event) +
                                      ", which no earlier step signals");
    } else if (kind == "launch" || kind == "graph") {
      // A graph step (O2) calls one generated function that runs a whole
      // offloaded part of the plan; its ABI is a kernel's.
      step.kind = kind == "graph" ? StepKind::Graph : StepKind::Launch;
      uint64_t kernel = 0;
      MS_RETURN_IF_ERROR(reader.unsigned64(value, "kernel", where, kernel));
      if (kernel >= meta.kernels.size())
        return reader.fail(where + ".kernel",
                           "kernel " + std::to_string(kernel) +
                               " does not exist (the module has " +
                               std::to_string(meta.kernels.size()) +
                               " kernels)");
      step.kernel = static_cast<uint32_t>(kernel);
      const Json *args = nullptr;
      MS_RETURN_IF_ERROR(reader.array(value, "args", where, args));
      if (args->size() > UINT32_MAX / 2)
        return reader.fail(where + ".args", "too many arguments");
      // The step must match the kernel's signature: a kernel is native
      // code that trusts its buffers' sizes.
      const std::vector<uint64_t> &signature = meta.kernelArgBytes[kernel];
      if (args->size() != signature.size())
        return reader.fail(where + ".args",
                           "kernel '" + meta.kernels[kernel] + "' takes " +
                               std::to_string(signature.size()) +
                               " buffers, but the step passes " +
                               std::to_string(args->size()));
      for (size_t j = 0; j < args->size(); ++j) {
        uint32_t position = 0;
        std::string at = where + ".args[" + std::to_string(j) + "]";
        MS_RETURN_IF_ERROR(
            readBufferRef(reader, (*args)[j], at, positions, position));
        const BufferDesc &buffer = meta.buffers[position];
        if (buffer.size < signature[j])
          return reader.fail(
              at, "buffer " + std::to_string(buffer.id) + " holds " +
                      std::to_string(buffer.size) + " bytes, but argument " +
                      std::to_string(j) + " of kernel '" +
                      meta.kernels[kernel] + "' needs " +
                      std::to_string(signature[j]));
        meta.stepArgs.push_back(position);
      }
    } else if (kind == "copy") {
      step.kind = StepKind::Copy;
      uint32_t src = 0, dst = 0;
      MS_RETURN_IF_ERROR(reader.unsigned64(value, "size", where, step.size));
      if (value.find("src") == value.end() || value.find("dst") == value.end())
        return reader.fail(where, "missing \"src\" or \"dst\"");
      MS_RETURN_IF_ERROR(readBufferRef(reader, value.at("src"), where + ".src",
                                       positions, src));
      MS_RETURN_IF_ERROR(readBufferRef(reader, value.at("dst"), where + ".dst",
                                       positions, dst));
      const BufferDesc &from = meta.buffers[src], &to = meta.buffers[dst];
      if (to.kind == BufferKind::Input || to.kind == BufferKind::Weight)
        return reader.fail(where + ".dst",
                           "buffer " + std::to_string(to.id) +
                               " is read-only (an input or a weight)");
      if (step.size > from.size || step.size > to.size)
        return reader.fail(
            where + ".size",
            "copy of " + std::to_string(step.size) + " bytes exceeds buffer " +
                std::to_string(from.id) + " (" + std::to_string(from.size) +
                " bytes) or " + std::to_string(to.id) + " (" +
                std::to_string(to.size) + " bytes)");
      meta.stepArgs.push_back(src);
      meta.stepArgs.push_back(dst);
    } else if (kind == "host") {
      step.kind = StepKind::Host;
      MS_RETURN_IF_ERROR(parseHostStep(reader, value, where, positions,
                                       meta, dynamicResults));
      step.host = meta.hostOps.back().get();
    } else {
      return Status::error(MS_UNIMPLEMENTED, name + ": meta: " + where +
                                                 ": unsupported step kind \"" +
                                                 kind + "\"");
    }
    step.argCount = static_cast<uint32_t>(meta.stepArgs.size()) - step.argBegin;
    meta.steps.push_back(step);
  }
  for (size_t i = 0; i < meta.outputs.size(); ++i)
    if (hasDynamicExtent(meta.outputs[i].shape) && !dynamicResults[i])
      return reader.fail("outputs[" + std::to_string(i) + "]",
                         "output '" + meta.outputs[i].name +
                             "' has a data-dependent extent (-1) but no host "
                             "step computes its shape");
  return Status();
}
} // namespace

Status ms::rt::impl::parseModule(const uint8_t *data, size_t size,
                                 const std::string &name, ModuleImage &out) {
  out = ModuleImage();
  SectionView meta;
  MS_RETURN_IF_ERROR(parseLayout(data, size, name, meta, out));
  return parseMeta(meta, out, name, out.meta);
}

//===----------------------------------------------------------------------===//
// Module
//===----------------------------------------------------------------------===//

Status Module::load(std::shared_ptr<Device> device, const std::string &path,
                    std::shared_ptr<Module> &out) {
  out.reset();
  auto module = std::make_shared<Module>();
  module->device = std::move(device);
  module->path = path;
  MS_RETURN_IF_ERROR(MappedFile::open(path, module->file));
  MS_RETURN_IF_ERROR(parseModule(module->file->data(), module->file->size(),
                                 path, module->image));
  const ModuleMeta &meta = module->image.meta;
  Device &dev = *module->device;
  if (!dev.hostVisible())
    for (size_t i = 0; i < meta.steps.size(); ++i)
      if (meta.steps[i].kind == StepKind::Host)
        return Status::error(
            MS_UNIMPLEMENTED,
            path + ": meta: steps[" + std::to_string(i) +
                "]: a host step needs host-visible memory, but the " +
                dev.name() +
                " device's memory is not (staging through host "
                "copies is not implemented)");
  const SectionView &weights = module->image.weights;
  if (weights.size > 0 && dev.hostVisible()) {
    // Kernels receive `void **`; the weights are mapped read-only and the
    // compiler never writes them.
    module->weights = const_cast<uint8_t *>(weights.data);
  } else if (weights.size > 0) {
    MS_RETURN_IF_ERROR(dev.allocate(weights.size, &module->deviceWeights));
    MS_RETURN_IF_ERROR(
        dev.copyToDevice(module->deviceWeights, weights.data, weights.size));
    module->weights = static_cast<uint8_t *>(module->deviceWeights);
  }
  if (!meta.kernels.empty()) {
    // Each device kind has its own code sections; the others are ignored.
    // The first variant whose requirements the device meets runs.
    auto kind = static_cast<uint32_t>(dev.codeSection());
    const std::vector<SectionView> &variants = module->image.code[kind];
    if (variants.empty())
      return Status::error(
          MS_INVALID_ARGUMENT,
          path + ": module has " + std::to_string(meta.kernels.size()) +
              " kernels but no " + sectionName(kind) + " section for the " +
              dev.name() + " device (target '" + meta.target + "')");
    const SectionView *code = nullptr;
    std::string missing;
    for (const SectionView &variant : variants) {
      std::string lacks = dev.missingRequirements(variant.requirements);
      if (lacks.empty()) {
        code = &variant;
        break;
      }
      if (!missing.empty())
        missing += "; ";
      missing += lacks;
    }
    if (!code)
      return Status::error(
          MS_UNAVAILABLE,
          path + ": this " + dev.name() + " device cannot run the module's " +
              sectionName(kind) + " code: it lacks " + missing +
              (kind == uint32_t(format::SectionKind::CpuElf)
                   ? " (compile for this host, or for an older CPU with "
                     "--target-cpu, e.g. x86-64-v3 for AVX2)"
                   : ""));
    MS_RETURN_IF_ERROR(dev.loadExecutable(path, code->data, code->size,
                                          meta.kernels, module->executable));
  }
  out = std::move(module);
  return Status();
}

Module::~Module() {
  executable.reset();
  if (deviceWeights)
    device->deallocate(deviceWeights);
}
