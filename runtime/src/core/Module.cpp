//===- Module.cpp - module file loading and validation --------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Module.h"
#include "core/Util.h"
#include "ms/runtime/MappedPages.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
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

/// Reads a weight's "relayout": the source's shape, the permutation, the
/// source's element size and whether it is rounded to bf16 or f16.
Status readRelayout(const MetaReader &reader, const Json &value,
                    const std::string &where, format::RelayoutShape &out) {
  MS_RETURN_IF_ERROR(reader.object(value, where));
  const Json *shape = nullptr, *permutation = nullptr;
  MS_RETURN_IF_ERROR(reader.array(value, "shape", where, shape));
  MS_RETURN_IF_ERROR(reader.array(value, "permutation", where, permutation));
  if (shape->empty() || shape->size() > kMaxRelayoutRank ||
      permutation->size() != shape->size())
    return reader.fail(where, "expected a shape of 1 to " +
                                  std::to_string(kMaxRelayoutRank) +
                                  " dims and a permutation of as many, found " +
                                  std::to_string(shape->size()) + " and " +
                                  std::to_string(permutation->size()));
  std::vector<bool> seen(shape->size(), false);
  for (size_t i = 0; i < shape->size(); ++i) {
    uint64_t size = 0, dim = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(
        (*shape)[i], where + ".shape[" + std::to_string(i) + "]", size));
    std::string at = where + ".permutation[" + std::to_string(i) + "]";
    MS_RETURN_IF_ERROR(reader.unsigned64((*permutation)[i], at, dim));
    if (dim >= shape->size() || seen[dim])
      return reader.fail(at, "expected a permutation of the " +
                                 std::to_string(shape->size()) +
                                 " dims, found " + std::to_string(dim));
    seen[dim] = true;
    if (size > (uint64_t(1) << 40))
      return reader.fail(where + ".shape[" + std::to_string(i) + "]",
                         "size " + std::to_string(size) + " is too large");
    out.shape.push_back(static_cast<int64_t>(size));
    out.permutation.push_back(static_cast<int64_t>(dim));
  }
  uint64_t elementBytes = 0;
  MS_RETURN_IF_ERROR(
      reader.unsigned64(value, "element_bytes", where, elementBytes));
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 &&
      elementBytes != 8)
    return reader.fail(where + ".element_bytes",
                       "expected 1, 2, 4 or 8, found " +
                           std::to_string(elementBytes));
  out.elementBytes = static_cast<unsigned>(elementBytes);
  // "to_bf16" and "to_f16": f32 elements rounded (at most one of them).
  for (auto [key, narrowing] : {std::pair{"to_bf16", format::Narrowing::BF16},
                                std::pair{"to_f16", format::Narrowing::F16}}) {
    auto field = value.find(key);
    if (field == value.end())
      continue;
    std::string at = where + "." + key;
    if (!field->is_boolean())
      return reader.fail(at, "expected a boolean");
    if (!field->get<bool>())
      continue;
    if (elementBytes != 4)
      return reader.fail(
          at, std::string("expected 4-byte (f32) elements to "
                          "round to ") +
                  (narrowing == format::Narrowing::BF16 ? "bf16" : "f16") +
                  ", found " + std::to_string(elementBytes));
    if (out.narrowing != format::Narrowing::None)
      return reader.fail(at, "expected one of to_bf16 and to_f16");
    out.narrowing = narrowing;
  }
  return Status();
}

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
  std::vector<uint64_t> tensorBytes;
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
    tensorBytes.push_back(need);
  }
  meta.stepArgs.insert(meta.stepArgs.end(), buffers.begin(), buffers.end());
  meta.stepArgs.insert(meta.stepArgs.end(), shapeSlots.begin(),
                       shapeSlots.end());
  meta.stepArgs.push_back(kScratchSlot |
                          static_cast<uint32_t>(meta.hostOps.size()));
  meta.hostOps.push_back(std::move(host));
  meta.hostOpNames.push_back(std::move(op));
  meta.hostSignatures.push_back(std::move(signature));
  meta.hostTensorBytes.push_back(std::move(tensorBytes));
  return Status();
}

/// Returns the bytes of a tensor of `dtype` and `shape`; false when the
/// size overflows.
bool tensorBytes(ms_dtype_t dtype, const std::vector<int64_t> &shape,
                 uint64_t &out) {
  out = ms_dtype_size(dtype);
  for (int64_t d : shape)
    if (d < 0 || mulOverflows(out, uint64_t(d), out))
      return false;
  return true;
}

/// The collective operations by their plan names.
constexpr std::pair<const char *, CollectiveKind> collectiveKinds[] = {
    {"all_reduce", CollectiveKind::AllReduce},
    {"all_gather", CollectiveKind::AllGather},
    {"reduce_scatter", CollectiveKind::ReduceScatter},
    {"all_to_all", CollectiveKind::AllToAll},
    {"all_slice", CollectiveKind::AllSlice},
    {"broadcast", CollectiveKind::Broadcast},
};

/// Reads the "groups" of the collective step at `where`: a partition of the
/// module's ranks into groups of one size. Returns the group size in
/// `groupSize` and the partition's index in meta.partitions (added when
/// new) in `out`.
Status readGroups(const MetaReader &reader, const Json &value,
                  const std::string &where, ModuleMeta &meta,
                  uint32_t &groupSize, uint32_t &out) {
  const Json *groups = nullptr;
  MS_RETURN_IF_ERROR(reader.array(value, "groups", where, groups));
  std::string at = where + ".groups";
  if (groups->empty())
    return reader.fail(at, "expected at least one group");
  std::vector<std::vector<int32_t>> partition;
  // The group holding each rank, or -1.
  std::vector<int64_t> holder(meta.ranks, -1);
  for (size_t i = 0; i < groups->size(); ++i) {
    const Json &group = (*groups)[i];
    std::string groupAt = at + "[" + std::to_string(i) + "]";
    if (!group.is_array())
      return reader.fail(groupAt, "expected an array of ranks");
    if (group.empty())
      return reader.fail(groupAt, "expected at least one rank, found an "
                                  "empty group");
    if (group.size() != (*groups)[0].size())
      return reader.fail(groupAt, "expected " +
                                      std::to_string((*groups)[0].size()) +
                                      " ranks, as in groups[0], found " +
                                      std::to_string(group.size()));
    std::vector<int32_t> members;
    for (size_t j = 0; j < group.size(); ++j) {
      std::string rankAt = groupAt + "[" + std::to_string(j) + "]";
      uint64_t rank = 0;
      MS_RETURN_IF_ERROR(reader.unsigned64(group[j], rankAt, rank));
      if (rank >= meta.ranks)
        return reader.fail(rankAt,
                           "rank " + std::to_string(rank) +
                               " does not exist (the module has " +
                               std::to_string(meta.ranks) +
                               (meta.ranks == 1 ? " rank)" : " ranks)"));
      if (holder[rank] >= 0)
        return reader.fail(rankAt, "rank " + std::to_string(rank) +
                                       " appears twice (also in groups[" +
                                       std::to_string(holder[rank]) + "])");
      holder[rank] = int64_t(i);
      members.push_back(static_cast<int32_t>(rank));
    }
    partition.push_back(std::move(members));
  }
  for (uint32_t rank = 0; rank < meta.ranks; ++rank)
    if (holder[rank] < 0)
      return reader.fail(at, "expected a partition of ranks 0.." +
                                 std::to_string(meta.ranks - 1) +
                                 ", but rank " + std::to_string(rank) +
                                 " is in no group");
  groupSize = static_cast<uint32_t>(partition[0].size());
  for (size_t p = 0; p < meta.partitions.size(); ++p)
    if (meta.partitions[p] == partition) {
      out = static_cast<uint32_t>(p);
      return Status();
    }
  out = static_cast<uint32_t>(meta.partitions.size());
  meta.partitions.push_back(std::move(partition));
  return Status();
}

/// Parses a step of kind "collective" at `where` (step `index`): appends its
/// source and destination slots to meta.stepArgs and its operation to
/// meta.collectives.
Status
parseCollectiveStep(const MetaReader &reader, const Json &value,
                    const std::string &where, uint32_t index,
                    const std::unordered_map<uint64_t, uint32_t> &positions,
                    ModuleMeta &meta) {
  auto op = std::make_shared<CollectiveOp>();
  op->stepIndex = index;
  MS_RETURN_IF_ERROR(reader.string(value, "op", where, op->name));
  bool known = false;
  for (auto [name, kind] : collectiveKinds)
    if (op->name == name) {
      op->kind = kind;
      known = true;
    }
  if (!known)
    return Status::error(
        MS_UNIMPLEMENTED,
        reader.prefix(where + ".op") + "unsupported collective \"" + op->name +
            "\" (expected all_reduce, all_gather, reduce_scatter, "
            "all_to_all, all_slice or broadcast)");

  // The source tensor.
  std::string dtype;
  MS_RETURN_IF_ERROR(reader.string(value, "dtype", where, dtype));
  op->dtype = ms_dtype_from_name(dtype.c_str());
  if (op->dtype == MS_DTYPE_INVALID)
    return reader.fail(where + ".dtype", "unknown dtype \"" + dtype + "\"");
  if (op->dtype == MS_DTYPE_STRING)
    return reader.fail(where + ".dtype",
                       "expected a numeric dtype, found string (collectives "
                       "do not move string tensors)");
  const Json *shape = nullptr;
  MS_RETURN_IF_ERROR(reader.array(value, "shape", where, shape));
  for (size_t i = 0; i < shape->size(); ++i) {
    const Json &dim = (*shape)[i];
    if (!dim.is_number_unsigned() || dim.get<uint64_t>() > uint64_t(INT64_MAX))
      return reader.fail(where + ".shape[" + std::to_string(i) + "]",
                         "expected a static extent >= 0, found " + dim.dump());
    op->shape.push_back(dim.get<int64_t>());
  }
  if (!tensorBytes(op->dtype, op->shape, op->srcBytes))
    return reader.fail(where + ".shape", "tensor size overflows");
  std::string type =
      formatTensorType(op->dtype, op->shape.data(), op->shape.size());
  MS_RETURN_IF_ERROR(
      readGroups(reader, value, where, meta, op->groupSize, op->partition));
  uint32_t groupSize = op->groupSize;

  // What the operation needs, and the destination's shape.
  auto readAxis = [&](const char *key, uint32_t &out) -> Status {
    uint64_t axis = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(value, key, where, axis));
    if (axis >= op->shape.size())
      return reader.fail(where + "." + key,
                         "expected an axis below the rank " +
                             std::to_string(op->shape.size()) +
                             " of the source " + type + ", found " +
                             std::to_string(axis));
    out = static_cast<uint32_t>(axis);
    return Status();
  };
  auto checkDivisible = [&](const char *key, uint32_t axis) -> Status {
    if (op->shape[axis] % groupSize != 0)
      return reader.fail(where + "." + key,
                         "dimension " + std::to_string(axis) +
                             " of the source " + type + " (" +
                             std::to_string(op->shape[axis]) +
                             ") is not divisible by the group size " +
                             std::to_string(groupSize));
    return Status();
  };
  auto readReduction = [&]() -> Status {
    std::string name;
    MS_RETURN_IF_ERROR(reader.string(value, "reduction", where, name));
    for (Reduction reduction :
         {Reduction::Sum, Reduction::Prod, Reduction::Max, Reduction::Min})
      if (name == reductionName(reduction)) {
        op->reduction = reduction;
        return Status();
      }
    return reader.fail(where + ".reduction",
                       "unknown reduction \"" + name +
                           "\" (expected sum, prod, max or min)");
  };
  op->dstShape = op->shape;
  switch (op->kind) {
  case CollectiveKind::AllReduce:
    MS_RETURN_IF_ERROR(readReduction());
    break;
  case CollectiveKind::AllGather: {
    MS_RETURN_IF_ERROR(readAxis("axis", op->axis));
    uint64_t extent = 0;
    if (mulOverflows(uint64_t(op->shape[op->axis]), groupSize, extent) ||
        extent > uint64_t(INT64_MAX))
      return reader.fail(where + ".shape", "tensor size overflows");
    op->dstShape[op->axis] = static_cast<int64_t>(extent);
    break;
  }
  case CollectiveKind::ReduceScatter:
    MS_RETURN_IF_ERROR(readReduction());
    [[fallthrough]];
  case CollectiveKind::AllSlice:
    MS_RETURN_IF_ERROR(readAxis("axis", op->axis));
    MS_RETURN_IF_ERROR(checkDivisible("axis", op->axis));
    op->dstShape[op->axis] /= groupSize;
    break;
  case CollectiveKind::AllToAll: {
    MS_RETURN_IF_ERROR(readAxis("split_axis", op->axis));
    MS_RETURN_IF_ERROR(readAxis("concat_axis", op->concatAxis));
    MS_RETURN_IF_ERROR(checkDivisible("split_axis", op->axis));
    op->dstShape[op->axis] /= groupSize;
    uint64_t extent = 0;
    if (mulOverflows(uint64_t(op->dstShape[op->concatAxis]), groupSize,
                     extent) ||
        extent > uint64_t(INT64_MAX))
      return reader.fail(where + ".shape", "tensor size overflows");
    op->dstShape[op->concatAxis] = static_cast<int64_t>(extent);
    break;
  }
  case CollectiveKind::Broadcast: {
    uint64_t root = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(value, "root", where, root));
    if (root >= groupSize)
      return reader.fail(where + ".root",
                         "expected a position below the group size " +
                             std::to_string(groupSize) + ", found " +
                             std::to_string(root));
    op->root = static_cast<uint32_t>(root);
    break;
  }
  }
  if (!tensorBytes(op->dtype, op->dstShape, op->dstBytes))
    return reader.fail(where + ".shape", "tensor size overflows");

  // The buffers.
  if (value.find("src") == value.end() || value.find("dst") == value.end())
    return reader.fail(where, "missing \"src\" or \"dst\"");
  uint32_t src = 0, dst = 0;
  MS_RETURN_IF_ERROR(
      readBufferRef(reader, value.at("src"), where + ".src", positions, src));
  MS_RETURN_IF_ERROR(
      readBufferRef(reader, value.at("dst"), where + ".dst", positions, dst));
  const BufferDesc &from = meta.buffers[src], &to = meta.buffers[dst];
  if (to.kind == BufferKind::Input || to.kind == BufferKind::Weight)
    return reader.fail(where + ".dst",
                       "buffer " + std::to_string(to.id) +
                           " is read-only (an input or a weight)");
  if (from.size < op->srcBytes)
    return reader.fail(where + ".src",
                       "buffer " + std::to_string(from.id) + " holds " +
                           std::to_string(from.size) +
                           " bytes, but the source " + type + " needs " +
                           std::to_string(op->srcBytes));
  if (to.size < op->dstBytes)
    return reader.fail(where + ".dst",
                       "buffer " + std::to_string(to.id) + " holds " +
                           std::to_string(to.size) +
                           " bytes, but the destination " +
                           formatTensorType(op->dtype, op->dstShape.data(),
                                            op->dstShape.size()) +
                           " needs " + std::to_string(op->dstBytes));
  // Only all_reduce and broadcast work in place; nothing works on buffers
  // that partly overlap.
  bool bothArena =
      from.kind == BufferKind::Arena && to.kind == BufferKind::Arena;
  bool inPlace = src == dst || (bothArena && from.offset == to.offset);
  bool overlap = bothArena && from.offset < to.offset + op->dstBytes &&
                 to.offset < from.offset + op->srcBytes && op->srcBytes > 0 &&
                 op->dstBytes > 0;
  bool mayBeInPlace = op->kind == CollectiveKind::AllReduce ||
                      op->kind == CollectiveKind::Broadcast;
  if (inPlace && !mayBeInPlace && op->srcBytes > 0)
    return reader.fail(where + ".dst",
                       op->name + " cannot write its source buffer " +
                           std::to_string(from.id) +
                           " (only all_reduce and broadcast work in place)");
  if (overlap && !inPlace)
    return reader.fail(where + ".dst", "buffer " + std::to_string(to.id) +
                                           " overlaps the source buffer " +
                                           std::to_string(from.id) +
                                           " in the arena");
  meta.stepArgs.push_back(src);
  meta.stepArgs.push_back(dst);
  meta.collectives.push_back(std::move(op));
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

  // Weight files outside the module, which weights refer to by index.
  const Json *files = nullptr;
  MS_RETURN_IF_ERROR(
      reader.array(root, "weight_files", "root", files, /*required=*/false));
  if (files && files->size() > kMaxWeightFiles)
    return reader.fail("weight_files", "expected at most " +
                                           std::to_string(kMaxWeightFiles) +
                                           " weight files, found " +
                                           std::to_string(files->size()));
  for (size_t i = 0; files && i < files->size(); ++i) {
    const Json &value = (*files)[i];
    std::string where = "weight_files[" + std::to_string(i) + "]";
    MS_RETURN_IF_ERROR(reader.object(value, where));
    WeightFileDesc file;
    std::string checksum;
    MS_RETURN_IF_ERROR(reader.string(value, "path", where, file.path));
    MS_RETURN_IF_ERROR(reader.unsigned64(value, "size", where, file.size));
    MS_RETURN_IF_ERROR(reader.string(value, "checksum", where, checksum));
    if (file.path.empty() || file.path.find('\0') != std::string::npos)
      return reader.fail(where + ".path", "expected a file path");
    char *end = nullptr;
    errno = 0;
    file.checksum = std::strtoull(checksum.c_str(), &end, 16);
    if (checksum.size() != 18 || checksum.compare(0, 2, "0x") != 0 ||
        errno != 0 || *end != '\0')
      return reader.fail(where + ".checksum",
                         "expected 0x and 16 hex digits, found \"" + checksum +
                             "\"");
    meta.weightFiles.push_back(std::move(file));
  }

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
      if (kind == "weight") {
        MS_RETURN_IF_ERROR(reader.unsigned64(value, "rank_stride", where,
                                             buffer.rankStride,
                                             /*required=*/false));
        if (value.contains("relayout") && !value.contains("file"))
          return reader.fail(where + ".relayout",
                             "expected a relayout only for a weight in a "
                             "weight file");
        if (value.contains("file")) {
          uint64_t file = 0;
          MS_RETURN_IF_ERROR(reader.unsigned64(value, "file", where, file));
          if (file >= meta.weightFiles.size())
            return reader.fail(where + ".file",
                               "expected the index of one of the module's " +
                                   std::to_string(meta.weightFiles.size()) +
                                   " weight files, found " +
                                   std::to_string(file));
          if (buffer.rankStride != 0)
            return reader.fail(where, "expected no rank_stride for a weight "
                                      "in a weight file");
          buffer.file = static_cast<uint32_t>(file);
          if (value.contains("relayout")) {
            format::RelayoutShape relayout;
            MS_RETURN_IF_ERROR(readRelayout(reader, value.at("relayout"),
                                            where + ".relayout", relayout));
            buffer.relayout = static_cast<uint32_t>(meta.relayouts.size());
            meta.relayouts.push_back(std::move(relayout));
          }
        }
      }
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

  // The number of processes.
  uint64_t ranks = 1;
  MS_RETURN_IF_ERROR(reader.unsigned64(root, "ranks", "root", ranks, false));
  if (ranks < 1 || ranks > uint64_t(kMaxRanks))
    return reader.fail("root.ranks",
                       "expected 1 to " + std::to_string(kMaxRanks) +
                           " ranks, found " + std::to_string(ranks));
  meta.ranks = static_cast<uint32_t>(ranks);
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
    case BufferKind::Weight: {
      if (buffer.offset % format::kAlignment != 0)
        return reader.fail(where, "weight offset " +
                                      std::to_string(buffer.offset) +
                                      " is not 64-byte aligned");
      // A weight with one block per rank spans all the blocks.
      uint64_t span = buffer.size;
      if (buffer.rankStride != 0) {
        if (buffer.rankStride < buffer.size ||
            buffer.rankStride % format::kAlignment != 0)
          return reader.fail(where, "rank_stride " +
                                        std::to_string(buffer.rankStride) +
                                        " must be a multiple of 64 of at "
                                        "least the size " +
                                        std::to_string(buffer.size));
        if (__builtin_mul_overflow(buffer.rankStride, uint64_t(meta.ranks - 1),
                                   &span) ||
            __builtin_add_overflow(span, buffer.size, &span))
          return reader.fail(where, "rank_stride overflows");
      }
      if (buffer.file != kInSection) {
        const WeightFileDesc &file = meta.weightFiles[buffer.file];
        if (buffer.relayout != kNoRelayout) {
          // The source's bytes lie in the file; the buffer holds as many
          // elements in the relayout's element size.
          const format::RelayoutShape &relayout =
              meta.relayouts[buffer.relayout];
          uint64_t elements = 1;
          for (int64_t size : relayout.shape)
            if (__builtin_mul_overflow(elements, uint64_t(size), &elements))
              return reader.fail(where, "relayout shape overflows");
          if (__builtin_mul_overflow(elements, uint64_t(relayout.elementBytes),
                                     &span) ||
              elements * relayout.resultBytes() != buffer.size)
            return reader.fail(
                where, "expected a size of " +
                           std::to_string(elements * relayout.resultBytes()) +
                           " bytes (the relayout's " +
                           std::to_string(elements) + " elements), found " +
                           std::to_string(buffer.size));
        }
        if (!inRange(buffer.offset, span, file.size))
          return reader.fail(
              where, "weight range [" + std::to_string(buffer.offset) + ", +" +
                         std::to_string(span) + ") lies outside the " +
                         std::to_string(file.size) + "-byte weight file '" +
                         file.path + "'");
        break;
      }
      if (!inRange(buffer.offset, span, image.weights.size))
        return reader.fail(
            where, "weight range [" + std::to_string(buffer.offset) + ", +" +
                       std::to_string(span) + ") lies outside the " +
                       std::to_string(image.weights.size) +
                       "-byte weights section");
      break;
    }
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
  // Parses step `value` of kind `kind` at `where`, in the `i`-th step of the
  // plan, its buffer ids read through `positions` (every buffer, or a body's
  // parameters bound to a call's buffers).
  auto parseStep = [&](const Json &value, const std::string &where,
                       const std::string &kind, size_t i,
                       const std::unordered_map<uint64_t, uint32_t>
                           &positions) {
    if (meta.stepArgs.size() > kMaxStepArgs || meta.steps.size() >= kMaxSteps)
      return reader.fail(where, "too many steps or step arguments (at most " +
                                    std::to_string(kMaxSteps) + " and " +
                                    std::to_string(kMaxStepArgs) +
                                    ", calls' body steps counted per call)");
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
      step.hostIndex = static_cast<uint32_t>(meta.hostOps.size() - 1);
    } else if (kind == "collective") {
      step.kind = StepKind::Collective;
      MS_RETURN_IF_ERROR(parseCollectiveStep(
          reader, value, where, static_cast<uint32_t>(i), positions, meta));
      step.collective = meta.collectives.back().get();
    } else {
      return Status::error(MS_UNIMPLEMENTED, name + ": meta: " + where +
                                                 ": unsupported step kind \"" +
                                                 kind + "\"");
    }
    step.argCount = static_cast<uint32_t>(meta.stepArgs.size()) - step.argBegin;
    meta.steps.push_back(step);
    return Status();
  };

  // Bodies run by call steps: their steps are parsed, and checked, once per
  // call with the call's buffers.
  const Json *bodies = nullptr;
  if (root.contains("bodies"))
    MS_RETURN_IF_ERROR(reader.array(root, "bodies", "root", bodies));
  auto parseCall = [&](const Json &value, const std::string &where,
                       size_t index) {
    uint64_t bodyIndex = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(value, "body", where, bodyIndex));
    size_t bodyCount = bodies ? bodies->size() : 0;
    if (bodyIndex >= bodyCount)
      return reader.fail(where + ".body",
                         "body " + std::to_string(bodyIndex) +
                             " does not exist (the module has " +
                             std::to_string(bodyCount) + " bodies)");
    const Json &body = (*bodies)[bodyIndex];
    std::string at = "bodies[" + std::to_string(bodyIndex) + "]";
    MS_RETURN_IF_ERROR(reader.object(body, at));
    uint64_t params = 0;
    MS_RETURN_IF_ERROR(reader.unsigned64(body, "params", at, params));
    const Json *args = nullptr, *bodySteps = nullptr;
    MS_RETURN_IF_ERROR(reader.array(value, "args", where, args));
    MS_RETURN_IF_ERROR(reader.array(body, "steps", at, bodySteps));
    if (args->size() != params)
      return reader.fail(where + ".args", at + " takes " +
                                              std::to_string(params) +
                                              " buffers, but the call passes " +
                                              std::to_string(args->size()));
    std::unordered_map<uint64_t, uint32_t> bound;
    for (size_t j = 0; j < args->size(); ++j)
      MS_RETURN_IF_ERROR(readBufferRef(
          reader, (*args)[j], where + ".args[" + std::to_string(j) + "]",
          positions, bound[j]));
    for (size_t k = 0; k < bodySteps->size(); ++k) {
      const Json &step = (*bodySteps)[k];
      std::string stepAt =
          at + ".steps[" + std::to_string(k) + "] (called by " + where + ")";
      MS_RETURN_IF_ERROR(reader.object(step, stepAt));
      std::string kind;
      MS_RETURN_IF_ERROR(reader.string(step, "kind", stepAt, kind));
      if (kind != "launch" && kind != "copy")
        return reader.fail(stepAt, "expected a launch or copy step in a "
                                   "body, found \"" +
                                       kind + "\"");
      MS_RETURN_IF_ERROR(parseStep(step, stepAt, kind, index, bound));
    }
    return Status();
  };

  const Json *steps = nullptr;
  MS_RETURN_IF_ERROR(reader.array(root, "steps", "root", steps));
  for (size_t i = 0; i < steps->size(); ++i) {
    const Json &value = (*steps)[i];
    std::string where = "steps[" + std::to_string(i) + "]";
    MS_RETURN_IF_ERROR(reader.object(value, where));
    std::string kind;
    MS_RETURN_IF_ERROR(reader.string(value, "kind", where, kind));
    MS_RETURN_IF_ERROR(kind == "call"
                           ? parseCall(value, where, i)
                           : parseStep(value, where, kind, i, positions));
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
  for (const WeightFileDesc &file : meta.weightFiles)
    MS_RETURN_IF_ERROR(module->mapWeightFile(file));
  MS_RETURN_IF_ERROR(module->relayWeights());
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

Status Module::mapWeightFile(const WeightFileDesc &desc) {
  // A relative path is relative to the directory the module file really
  // lies in (through links).
  std::string resolved = desc.path;
  if (resolved[0] != '/') {
    std::string directory = "./";
    if (char *real = ::realpath(path.c_str(), nullptr)) {
      directory = real;
      std::free(real);
      directory.resize(directory.rfind('/') + 1);
    } else if (size_t slash = path.rfind('/'); slash != std::string::npos) {
      directory = path.substr(0, slash + 1);
    }
    resolved = directory + resolved;
  }
  std::string where = path + ": weight file '" + resolved + "'";
  std::unique_ptr<MappedFile> file;
  Status opened = MappedFile::open(resolved, file);
  if (!opened.ok()) {
    // The problem without MappedFile's leading path.
    std::string problem = opened.message();
    if (problem.compare(0, resolved.size() + 2, resolved + ": ") == 0)
      problem.erase(0, resolved.size() + 2);
    return Status::error(opened.code(), where + " (recorded as '" + desc.path +
                                            "'): " + problem);
  }
  if (file->size() != desc.size)
    return Status::error(MS_DATA_LOSS,
                         where + " is " + std::to_string(file->size()) +
                             " bytes, expected " + std::to_string(desc.size) +
                             " (it changed since the module was compiled)");
  uint64_t sum = format::fnv1a64Words(file->data(), file->size());
  if (sum != desc.checksum)
    return Status::error(MS_DATA_LOSS,
                         where + ": checksum mismatch (stored " +
                             hex(desc.checksum) + ", computed " + hex(sum) +
                             "; it changed since the module was compiled)");
  uint8_t *view = const_cast<uint8_t *>(file->data());
  void *copy = nullptr;
  if (!device->hostVisible() && file->size() > 0) {
    MS_RETURN_IF_ERROR(device->allocate(file->size(), &copy));
    deviceFileWeights.push_back(copy);
    MS_RETURN_IF_ERROR(device->copyToDevice(copy, file->data(), file->size()));
    view = static_cast<uint8_t *>(copy);
  }
  fileWeights.push_back(view);
  weightFiles.push_back(std::move(file));
  return Status();
}

Status Module::relayWeights() {
  const ModuleMeta &meta = image.meta;
  relaidWeights.assign(meta.relayouts.size(), nullptr);
  for (const BufferDesc &buffer : meta.buffers) {
    if (buffer.relayout == kNoRelayout || buffer.size == 0)
      continue;
    const format::RelayoutShape &relayout = meta.relayouts[buffer.relayout];
    uint64_t bytes = (buffer.size + format::kAlignment - 1) /
                     format::kAlignment * format::kAlignment;
    std::unique_ptr<uint8_t, void (*)(void *)> host(
        static_cast<uint8_t *>(std::aligned_alloc(format::kAlignment, bytes)),
        std::free);
    if (!host)
      return Status::error(MS_UNAVAILABLE,
                           path + ": cannot allocate " +
                               std::to_string(buffer.size) +
                               " bytes for a weight laid out from file '" +
                               meta.weightFiles[buffer.file].path + "'");
    const char *source = reinterpret_cast<const char *>(
        weightFiles[buffer.file]->data() + buffer.offset);
    format::relayoutRows(source, relayout, 0, relayout.rows(),
                         reinterpret_cast<char *>(host.get()));
    // The source's whole pages, read once, are given back, so that a
    // laid-out weight is held once.
    format::releaseMappedPages(source,
                               relayout.elements() * relayout.elementBytes);
    if (!device->hostVisible()) {
      void *copy = nullptr;
      MS_RETURN_IF_ERROR(device->allocate(buffer.size, &copy));
      deviceRelaid.push_back(copy);
      MS_RETURN_IF_ERROR(device->copyToDevice(copy, host.get(), buffer.size));
      relaidWeights[buffer.relayout] = static_cast<uint8_t *>(copy);
      continue;
    }
    relaidWeights[buffer.relayout] = host.get();
    relaidHost.push_back(std::move(host));
  }
  return Status();
}

Module::~Module() {
  executable.reset();
  if (deviceWeights)
    device->deallocate(deviceWeights);
  for (void *copy : deviceFileWeights)
    device->deallocate(copy);
  for (void *copy : deviceRelaid)
    device->deallocate(copy);
}
