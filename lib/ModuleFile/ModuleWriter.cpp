//===- ModuleWriter.cpp - serialize a compiled module ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/ModuleFile/ModuleWriter.h"

#include "ms/Dialect/Exec/IR/ExecOps.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"

#include "ms/runtime/MappedPages.h"
#include "ms/runtime/ModuleFormat.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <functional>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;
namespace fmt = ::ms::format;

/// Converts a host op attribute to JSON; fails on kinds the runtime does not
/// read.
static std::optional<llvm::json::Value> attrToJson(Attribute attr) {
  if (auto str = dyn_cast<StringAttr>(attr))
    return llvm::json::Value(str.str());
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return llvm::json::Value(boolean.getValue());
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return llvm::json::Value(integer.getInt());
  if (auto real = dyn_cast<FloatAttr>(attr))
    return llvm::json::Value(real.getValueAsDouble());
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr))
    return llvm::json::Value(llvm::json::Array(ints.asArrayRef()));
  if (auto list = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute element : list) {
      std::optional<llvm::json::Value> value = attrToJson(element);
      if (!value)
        return std::nullopt;
      array.push_back(std::move(*value));
    }
    return llvm::json::Value(std::move(array));
  }
  return std::nullopt;
}

namespace {
/// Writes one section's bytes to a stream and keeps their fnv1a64.
struct SectionSink {
  explicit SectionSink(llvm::raw_ostream &os) : os(os) {}
  void write(const void *data, size_t size) {
    checksum.update(data, size);
    os.write(static_cast<const char *>(data), size);
    written += size;
  }
  void zeros(uint64_t count) {
    static const char zero[4096] = {};
    for (; count > 0; count -= std::min<uint64_t>(count, sizeof(zero)))
      write(zero, std::min<uint64_t>(count, sizeof(zero)));
  }

  llvm::raw_ostream &os;
  fmt::WordChecksum checksum;
  uint64_t written = 0;
};

/// A weight and where it goes in the weights section (or its file).
struct PlacedWeight {
  uint64_t offset;
  /// Dense elements, or (in the weights section) a layout of them.
  ElementsAttr value;
};

/// A file outside the module that weights refer to.
struct WeightFile {
  /// Its real path.
  std::string path;
  /// The weights that lie in it, by offset.
  std::vector<PlacedWeight> weights;
};
} // namespace

/// Writes the little-endian bytes of `elements` (bools as bytes, a splat
/// repeated, a relayout computed piece by piece) without copying it whole.
static void writeElements(ElementsAttr elements, SectionSink &sink) {
  // (The pages of a mapped constant are given back once written: the
  // compiler's resident memory does not grow by the weights it writes.)
  if (auto relayout = dyn_cast<graph::RelayoutElementsAttr>(elements)) {
    relayout.writeBytes(
        [&](ArrayRef<char> piece) { sink.write(piece.data(), piece.size()); });
    if (auto mapped = dyn_cast<graph::MappedElementsAttr>(relayout.getSource()))
      ::ms::format::releaseMappedPages(mapped.getRawData().data(),
                                       mapped.getRawData().size());
    return;
  }
  auto type = cast<ShapedType>(elements.getType());
  int64_t n = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    SmallVector<char> bytes;
    for (bool v : cast<DenseElementsAttr>(elements).getValues<bool>())
      bytes.push_back(v ? 1 : 0);
    sink.write(bytes.data(), bytes.size());
    return;
  }
  graph::StoredBytes stored = *graph::getStoredBytes(elements);
  ArrayRef<char> raw = stored.data;
  if (!stored.splat) {
    sink.write(raw.data(), raw.size());
    if (isa<graph::MappedElementsAttr>(elements))
      ::ms::format::releaseMappedPages(raw.data(), raw.size());
    return;
  }
  // A splat in chunks of whole elements.
  SmallVector<char> chunk;
  int64_t perChunk = std::max<int64_t>(1, 65536 / raw.size());
  for (int64_t i = 0; i < std::min(perChunk, n); ++i)
    chunk.append(raw.begin(), raw.end());
  for (int64_t done = 0; done < n; done += perChunk)
    sink.write(chunk.data(), std::min(perChunk, n - done) * raw.size());
}

static std::string locationString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return s;
}

/// A tensor's shape with -1 for a data-dependent extent.
static llvm::json::Array shapeJson(RankedTensorType type) {
  llvm::json::Array shape;
  for (int64_t d : type.getShape())
    shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return shape;
}

/// Returns the section kind of binary format `format`, or nullopt.
static std::optional<fmt::SectionKind> sectionKind(StringRef format) {
  if (format == "cpu-elf")
    return fmt::SectionKind::CpuElf;
  if (format == "cuda-ptx")
    return fmt::SectionKind::CudaPtx;
  if (format == "npu-program")
    return fmt::SectionKind::NpuProgram;
  return std::nullopt;
}

namespace {
/// Serializes one plan into the meta JSON and the weights section.
class PlanWriter {
public:
  explicit PlanWriter(PlanOp plan) : plan(plan) {}
  /// Fills `meta` and lists the weights by offset in `weights`, whose
  /// section is `weightsSize` bytes, and the files that the others lie in
  /// (by index) in `files`.
  LogicalResult write(llvm::json::Object &meta,
                      std::vector<PlacedWeight> &weights, uint64_t &weightsSize,
                      std::vector<WeightFile> &files);

private:
  /// Adds a buffer entry; returns its id.
  int64_t addBuffer(Value value, StringRef kind, StringRef key, int64_t index,
                    uint64_t size);
  /// Returns the kernel index of runtime function `name`, recording at its
  /// first launch its signature: the bytes of each buffer argument.
  int64_t kernelIndex(StringRef name, StringRef op, Location loc,
                      ArrayRef<uint64_t> argBytes);
  /// Returns the index of the body `call` runs, writing it at its first
  /// call, or a failure.
  FailureOr<int64_t> bodyIndex(CallOp call);
  /// Appends `op` (when it is a step) to `steps`, naming its queue when it
  /// is not the first.
  LogicalResult writeStep(Operation &op, llvm::json::Array &steps);
  LogicalResult writeStepOnQueue(Operation &op, llvm::json::Array &steps);
  /// The id a step refers to buffer `v` by: its parameter index in the body
  /// being written, else its buffer id.
  int64_t idOf(Value v) const {
    auto it = paramIds.find(v);
    return it != paramIds.end() ? it->second : bufferIds.lookup(v);
  }
  /// The bytes of buffer `v`.
  uint64_t bytesOf(Value v) const {
    if (paramIds.count(v))
      return cast<BufferType>(v.getType()).getStaticByteSize();
    return bufferBytes[bufferIds.lookup(v)];
  }

  PlanOp plan;
  llvm::json::Array buffers, kernels, inputs, outputs;
  DenseMap<Value, int64_t> bufferIds;
  /// Event ids: signals numbered in plan order.
  DenseMap<Value, int64_t> eventIds;
  /// Bytes of each buffer, by id.
  std::vector<uint64_t> bufferBytes;
  llvm::StringMap<int64_t> kernelIds;
  /// The bodies calls run, written at their first call.
  llvm::json::Array bodies;
  DenseMap<Operation *, int64_t> bodyIds;
  /// The arguments of the body being written: parameter indices.
  DenseMap<Value, int64_t> paramIds;
  /// Pseudo-buffers spanning the weights section and the arena, passed to
  /// offloaded graphs.
  int64_t weightsBase = -1, arenaBase = -1;
};
} // namespace

int64_t PlanWriter::addBuffer(Value value, StringRef kind, StringRef key,
                              int64_t index, uint64_t size) {
  int64_t id = buffers.size();
  bufferBytes.push_back(size);
  buffers.push_back(llvm::json::Object{{"id", id},
                                       {"kind", kind.str()},
                                       {key.str(), index},
                                       {"size", (int64_t)size}});
  if (value)
    bufferIds[value] = id;
  return id;
}

int64_t PlanWriter::kernelIndex(StringRef name, StringRef op, Location loc,
                                ArrayRef<uint64_t> argBytes) {
  auto [it, inserted] = kernelIds.try_emplace(name, kernels.size());
  if (inserted) {
    // The loader checks every step against this (count and sizes).
    llvm::json::Array args;
    for (uint64_t bytes : argBytes)
      args.push_back((int64_t)bytes);
    kernels.push_back(llvm::json::Object{{"name", name.str()},
                                         {"op", op.str()},
                                         {"loc", locationString(loc)},
                                         {"args", std::move(args)}});
  }
  return it->second;
}

LogicalResult PlanWriter::write(llvm::json::Object &meta,
                                std::vector<PlacedWeight> &weights,
                                uint64_t &weightsSize,
                                std::vector<WeightFile> &files) {
  weightsSize = 0;
  if (!plan.getArenaSize())
    return plan.emitError("expected a memory-planned plan (run "
                          "msexec-plan-memory first)");
  llvm::StringMap<int64_t> fileIds;
  // Buffers in declaration order; inputs and outputs by index.
  std::map<int64_t, llvm::json::Object> inputByIndex, outputByIndex;
  for (Operation &op : plan.getBody().front()) {
    auto tensorType = [&](Value v) {
      return cast<BufferType>(v.getType()).getTensorType();
    };
    if (auto input = dyn_cast<InputOp>(op)) {
      RankedTensorType type = tensorType(input);
      int64_t id = addBuffer(input, "input", "index", input.getIndex(),
                             cast<BufferType>(input.getType()).getStaticByteSize());
      inputByIndex[input.getIndex()] = llvm::json::Object{
          {"name", input.getName().str()},
          {"dtype", dtypeName(type.getElementType())},
          {"shape", shapeJson(type)},
          {"buffer", id}};
    } else if (auto output = dyn_cast<OutputOp>(op)) {
      RankedTensorType type = tensorType(output);
      int64_t id = addBuffer(output, "output", "index", output.getIndex(),
                             output.getByteSize());
      outputByIndex[output.getIndex()] = llvm::json::Object{
          {"name", output.getName().str()},
          {"dtype", dtypeName(type.getElementType())},
          {"shape", shapeJson(type)},
          {"buffer", id}};
    } else if (auto weight = dyn_cast<WeightOp>(op)) {
      ElementsAttr value = weight.getValue();
      if (!graph::isWeightElements(value) ||
          (!weight.getOffset() && !weight.getFile()))
        return weight.emitError("expected a placed dense weight");
      uint64_t size = cast<BufferType>(weight.getType()).getStaticByteSize();
      if (std::optional<StringRef> path = weight.getFile()) {
        // The file holds the elements, or a relayout's source, which the
        // runtime lays out as it loads the module.
        auto relayout = dyn_cast<graph::RelayoutElementsAttr>(value);
        ElementsAttr bytes = relayout ? relayout.getSource() : value;
        auto offset = static_cast<uint64_t>(*weight.getFileOffset());
        auto [file, added] = fileIds.try_emplace(*path, files.size());
        if (added)
          files.push_back({path->str(), {}});
        files[file->second].weights.push_back({offset, bytes});
        addBuffer(weight, "weight", "offset", offset, size);
        llvm::json::Object &buffer = *buffers.back().getAsObject();
        buffer["file"] = file->second;
        if (relayout) {
          Type from = bytes.getElementType(),
               to = relayout.getType().getElementType();
          llvm::json::Object meta{
              {"shape", llvm::json::Array(relayout.getShape())},
              {"permutation", llvm::json::Array(relayout.getPermutation())},
              {"element_bytes", from.getIntOrFloatBitWidth() / 8},
              {"to_bf16", to.isBF16() && from != to}};
          if (to.isF16() && from != to)
            meta["to_f16"] = true;
          buffer["relayout"] = std::move(meta);
        }
        continue;
      }
      int64_t offset = *weight.getOffset();
      weights.push_back({static_cast<uint64_t>(offset), value});
      weightsSize =
          std::max<uint64_t>(weightsSize, offset + weight.getStorageBytes());
      addBuffer(weight, "weight", "offset", offset, size);
      if (int64_t stride = weight.getRankStride())
        (*buffers.back().getAsObject())["rank_stride"] = stride;
    } else if (auto alloc = dyn_cast<AllocOp>(op)) {
      if (!alloc.getOffset())
        return alloc.emitError("expected a placed buffer (run "
                               "msexec-plan-memory first)");
      addBuffer(alloc, "arena", "offset", *alloc.getOffset(),
                alloc.getByteSize());
    }
  }
  for (auto &entry : inputByIndex)
    inputs.push_back(std::move(entry.second));
  for (auto &entry : outputByIndex)
    outputs.push_back(std::move(entry.second));
  if (!plan.getBody().getOps<OffloadOp>().empty()) {
    weightsBase = addBuffer(Value(), "weight", "offset", 0, weightsSize);
    arenaBase = addBuffer(Value(), "arena", "offset", 0, *plan.getArenaSize());
  }

  int64_t queues = 1;
  for (Operation &op : plan.getBody().front()) {
    queues = std::max(queues, getStepQueue(&op) + 1);
    if (auto call = dyn_cast<CallOp>(op))
      if (BodyOp body = call.getBodyOp())
        for (Operation &step : body.getBody().front())
          queues = std::max(queues, getStepQueue(&step) + 1);
    if (auto signal = dyn_cast<SignalOp>(op))
      eventIds.try_emplace(signal.getEvent(), eventIds.size());
  }
  llvm::json::Array steps;
  for (Operation &op : plan.getBody().front())
    if (failed(writeStepOnQueue(op, steps)))
      return failure();
  if (queues > 1)
    meta["queues"] = queues;
  if (!eventIds.empty())
    meta["events"] = (int64_t)eventIds.size();

  meta["producer"] = "ms-compile 0.1.0";
  meta["target"] = plan.getTarget().str();
  meta["opt_level"] = plan.getOptLevel();
  meta["entry"] = plan.getSymName().str();
  meta["inputs"] = std::move(inputs);
  meta["outputs"] = std::move(outputs);
  meta["buffers"] = std::move(buffers);
  meta["arena_size"] = *plan.getArenaSize();
  meta["kernels"] = std::move(kernels);
  meta["steps"] = std::move(steps);
  if (!bodies.empty())
    meta["bodies"] = std::move(bodies);
  if (std::optional<int64_t> ranks = plan.getRanks())
    meta["ranks"] = *ranks;
  return success();
}

LogicalResult PlanWriter::writeStepOnQueue(Operation &op,
                                           llvm::json::Array &steps) {
  size_t before = steps.size();
  if (failed(writeStep(op, steps)))
    return failure();
  if (int64_t queue = getStepQueue(&op); queue != 0 && steps.size() > before)
    steps.back().getAsObject()->try_emplace("queue", queue);
  return success();
}

FailureOr<int64_t> PlanWriter::bodyIndex(CallOp call) {
  BodyOp body = call.getBodyOp();
  if (!body)
    return call.emitError("expected a body, but found ")
           << call.getCalleeAttr() << ", which names none";
  auto [it, inserted] = bodyIds.try_emplace(body, bodies.size());
  if (!inserted)
    return it->second;
  Block &block = body.getBody().front();
  for (BlockArgument arg : block.getArguments())
    paramIds[arg] = arg.getArgNumber();
  llvm::json::Array steps;
  for (Operation &op : block)
    if (failed(writeStepOnQueue(op, steps)))
      return failure();
  paramIds.clear();
  bodies.push_back(
      llvm::json::Object{{"name", body.getSymName().str()},
                         {"params", (int64_t)block.getNumArguments()},
                         {"steps", std::move(steps)}});
  return it->second;
}

LogicalResult PlanWriter::writeStep(Operation &op, llvm::json::Array &steps) {
  auto ids = [&](ValueRange values) {
    llvm::json::Array array;
    for (Value v : values)
      array.push_back(idOf(v));
    return array;
  };
  if (isBufferDeclaration(&op))
    return success();
  if (auto launch = dyn_cast<LaunchOp>(op)) {
    std::string name =
        (fmt::kKernelPrefix + launch.getKernel().getLeafReference().getValue())
            .str();
    SmallVector<uint64_t> bytes;
    for (Value v : launch.getArgs())
      bytes.push_back(bytesOf(v));
    steps.push_back(llvm::json::Object{
        {"kind", "launch"},
        {"kernel", kernelIndex(name, launch.getSourceOp().value_or(""),
                               launch.getLoc(), bytes)},
        {"args", ids(launch.getArgs())}});
    return success();
  }
  if (auto copy = dyn_cast<CopyOp>(op)) {
    steps.push_back(llvm::json::Object{
        {"kind", "copy"},
        {"src", idOf(copy.getSource())},
        {"dst", idOf(copy.getTarget())},
        {"size", (int64_t)cast<BufferType>(copy.getSource().getType())
                     .getStaticByteSize()}});
    return success();
  }
  if (auto collective = dyn_cast<CollectiveOp>(op)) {
    RankedTensorType type =
        cast<BufferType>(collective.getSource().getType()).getTensorType();
    llvm::json::Object step{{"kind", "collective"},
                            {"op", collective.getOp().str()},
                            {"src", bufferIds.lookup(collective.getSource())},
                            {"dst", bufferIds.lookup(collective.getTarget())},
                            {"dtype", dtypeName(type.getElementType())},
                            {"shape", shapeJson(type)}};
    llvm::json::Array groups;
    for (auto group : collective.getGroups().getAsRange<DenseI64ArrayAttr>())
      groups.push_back(llvm::json::Array(group.asArrayRef()));
    step["groups"] = std::move(groups);
    for (NamedAttribute attr : collective.getOpAttrs()) {
      std::optional<llvm::json::Value> value = attrToJson(attr.getValue());
      if (!value)
        return collective.emitError("attribute '")
               << attr.getName().getValue()
               << "' has a kind the runtime cannot read: " << attr.getValue();
      step[attr.getName().str()] = std::move(*value);
    }
    steps.push_back(std::move(step));
    return success();
  }
  if (auto host = dyn_cast<HostOp>(op)) {
    llvm::json::Array dtypes, shapes;
    for (Value v : llvm::concat<Value>(host.getIns(), host.getOuts())) {
      RankedTensorType type = cast<BufferType>(v.getType()).getTensorType();
      dtypes.push_back(dtypeName(type.getElementType()));
      shapes.push_back(shapeJson(type));
    }
    llvm::json::Object attrs;
    for (NamedAttribute attr : host.getOpAttrs()) {
      std::optional<llvm::json::Value> value = attrToJson(attr.getValue());
      if (!value)
        return host.emitError("attribute '")
               << attr.getName().getValue()
               << "' has a kind the runtime cannot read: " << attr.getValue();
      attrs[attr.getName().str()] = std::move(*value);
    }
    llvm::json::Array args = ids(host.getIns());
    for (Value v : host.getOuts())
      args.push_back(bufferIds.lookup(v));
    steps.push_back(llvm::json::Object{
        {"kind", "host"},
        {"op", host.getOp().str()},
        {"operands", (int64_t)host.getIns().size()},
        {"args", std::move(args)},
        {"dtypes", std::move(dtypes)},
        {"shapes", std::move(shapes)},
        {"attrs", std::move(attrs)}});
    return success();
  }
  if (auto call = dyn_cast<CallOp>(op)) {
    FailureOr<int64_t> body = bodyIndex(call);
    if (failed(body))
      return failure();
    steps.push_back(llvm::json::Object{
        {"kind", "call"}, {"body", *body}, {"args", ids(call.getArgs())}});
    return success();
  }
  if (auto signal = dyn_cast<SignalOp>(op)) {
    steps.push_back(llvm::json::Object{
        {"kind", "signal"}, {"event", eventIds.lookup(signal.getEvent())}});
    return success();
  }
  if (auto wait = dyn_cast<WaitOp>(op)) {
    auto it = eventIds.find(wait.getEvent());
    if (it == eventIds.end())
      return wait.emitError("expected an event signalled by a step of the "
                            "plan, found one signalled elsewhere");
    steps.push_back(
        llvm::json::Object{{"kind", "wait"}, {"event", it->second}});
    return success();
  }
  if (auto offload = dyn_cast<OffloadOp>(op)) {
    if (!offload.getEntry())
      return offload.emitError("expected an offloaded graph compiled by its "
                               "target (no entry function)");
    SmallVector<int64_t> args{weightsBase, arenaBase};
    for (Value v : offload.getCallerBuffers())
      args.push_back(bufferIds.lookup(v));
    SmallVector<uint64_t> bytes =
        llvm::map_to_vector(args, [&](int64_t id) { return bufferBytes[id]; });
    steps.push_back(
        llvm::json::Object{{"kind", "graph"},
                           {"kernel", kernelIndex(*offload.getEntry(), "graph",
                                                  offload.getLoc(), bytes)},
                           {"args", llvm::json::Array(args)}});
    return success();
  }
  return op.emitError("the module file cannot hold this step yet: ")
         << op.getName();
}

/// The name a module in `moduleDirectory` records for file `path`: relative
/// to the directory if it lies inside it, else absolute.
static std::string recordedPath(StringRef path, StringRef moduleDirectory) {
  SmallString<256> directory;
  if (moduleDirectory.empty() ||
      llvm::sys::fs::real_path(moduleDirectory, directory))
    return path.str();
  directory += llvm::sys::path::get_separator();
  if (path.starts_with(directory))
    return path.drop_front(directory.size()).str();
  return path.str();
}

/// The bytes `weight`, dense or mapped, takes in its file (a splat's
/// element repeated).
static uint64_t fileBytes(const PlacedWeight &weight) {
  graph::StoredBytes stored = *graph::getStoredBytes(weight.value);
  uint64_t raw = stored.data.size();
  return stored.splat ? raw * weight.value.getNumElements() : raw;
}

/// Compares the bytes `piece[0..size)` at offset `at` of weight file
/// `path` with the weights that overlap them; returns the first weight that
/// differs, or null. (A weight mapped from that file is its bytes: it is
/// not compared, nor its pages read.)
static const PlacedWeight *findChanged(ArrayRef<PlacedWeight> weights,
                                       StringRef path, uint64_t at,
                                       const char *piece, uint64_t size) {
  for (const PlacedWeight &weight : weights) {
    if (auto mapped = dyn_cast<graph::MappedElementsAttr>(weight.value))
      if (mapped.getPath() == path)
        continue;
    graph::StoredBytes stored = *graph::getStoredBytes(weight.value);
    ArrayRef<char> raw = stored.data;
    uint64_t begin = std::max(at, weight.offset);
    uint64_t end = std::min(at + size, weight.offset + fileBytes(weight));
    if (begin >= end)
      continue;
    if (!stored.splat) {
      if (std::memcmp(piece + (begin - at),
                      raw.data() + (begin - weight.offset), end - begin) != 0)
        return &weight;
      continue;
    }
    for (uint64_t i = begin; i < end; ++i)
      if (piece[i - at] != raw[(i - weight.offset) % raw.size()])
        return &weight;
  }
  return nullptr;
}

/// Describes the external weight files `files` for the meta section: each
/// one's recorded path, size and word checksum (the loader checks both),
/// checking that each weight the module refers to still has the bytes the
/// compiler read.
static FailureOr<llvm::json::Array> describeFiles(ModuleOp module,
                                                  ArrayRef<WeightFile> files,
                                                  StringRef moduleDirectory) {
  llvm::json::Array list;
  // Read in pieces, not mapped: the compiler's resident memory does not
  // grow by the files' size.
  std::vector<char> piece(1 << 20);
  for (const WeightFile &weightFile : files) {
    const std::string &path = weightFile.path;
    auto fail = [&](std::error_code error) {
      return module.emitError("cannot read weight file '")
             << path << "': " << error.message();
    };
    auto file = llvm::sys::fs::openNativeFileForRead(path);
    if (!file)
      return fail(llvm::errorToErrorCode(file.takeError()));
    fmt::WordChecksum checksum;
    uint64_t size = 0;
    while (true) {
      auto read = llvm::sys::fs::readNativeFile(
          *file, llvm::MutableArrayRef<char>(piece.data(), piece.size()));
      if (!read) {
        llvm::sys::fs::closeFile(*file);
        return fail(llvm::errorToErrorCode(read.takeError()));
      }
      if (*read == 0)
        break;
      if (const PlacedWeight *changed = findChanged(
              weightFile.weights, path, size, piece.data(), *read)) {
        llvm::sys::fs::closeFile(*file);
        return module.emitError("weight file '")
               << path << "' changed during the compilation (the "
               << changed->value.getType() << " at offset " << changed->offset
               << " differs from what was read)";
      }
      checksum.update(piece.data(), *read);
      size += *read;
    }
    llvm::sys::fs::closeFile(*file);
    for (const PlacedWeight &weight : weightFile.weights)
      if (weight.offset + fileBytes(weight) > size)
        return module.emitError("weight file '")
               << path << "' changed during the compilation (it is " << size
               << " bytes, shorter than the weights read from it)";
    list.push_back(llvm::json::Object{
        {"path", recordedPath(path, moduleDirectory)},
        {"size", int64_t(size)},
        {"checksum", llvm::formatv("{0:x16}", checksum.finish()).str()}});
  }
  return list;
}

LogicalResult mlir::ms::writeModuleFile(ModuleOp module,
                                        llvm::raw_pwrite_stream &os,
                                        const ModuleWriteOptions &options) {
  auto plans = module.getOps<PlanOp>();
  if (!llvm::hasSingleElement(plans))
    return module.emitError("expected exactly one msexec.plan");
  if (!module.getOps<ExecutableOp>().empty())
    return module.emitError("expected serialized executables (run "
                            "ms-serialize-executables first)");
  llvm::json::Object meta;
  std::vector<PlacedWeight> weights;
  uint64_t weightsSize = 0;
  std::vector<WeightFile> files;
  if (failed(
          PlanWriter(*plans.begin()).write(meta, weights, weightsSize, files)))
    return failure();
  if (!files.empty()) {
    auto described = describeFiles(module, files, options.moduleDirectory);
    if (failed(described))
      return failure();
    meta["weight_files"] = std::move(*described);
  }
  llvm::sort(weights, [](const PlacedWeight &a, const PlacedWeight &b) {
    return a.offset < b.offset;
  });
  std::string metaText;
  {
    llvm::raw_string_ostream metaStream(metaText);
    metaStream << llvm::formatv("{0:1}", llvm::json::Value(std::move(meta)));
  }

  // Each section is written by a function of the sink; its size is known
  // before.
  struct Section {
    fmt::SectionKind kind;
    uint64_t size;
    std::function<void(SectionSink &)> write;
    uint64_t requirements = 0;
  };
  auto bytes = [](StringRef data) {
    return [data](SectionSink &sink) { sink.write(data.data(), data.size()); };
  };
  std::vector<Section> sections = {
      {fmt::SectionKind::Meta, metaText.size(), bytes(metaText)},
      {fmt::SectionKind::Weights, weightsSize, [&](SectionSink &sink) {
         for (const PlacedWeight &weight : weights) {
           sink.zeros(weight.offset - sink.written);
           writeElements(weight.value, sink);
         }
         sink.zeros(weightsSize - sink.written);
       }}};
  for (auto binary : module.getOps<BinaryOp>()) {
    std::optional<fmt::SectionKind> kind = sectionKind(binary.getFormat());
    if (!kind)
      return binary.emitError("expected a binary format the module file "
                              "holds (cpu-elf, cuda-ptx, npu-program), but "
                              "found '")
             << binary.getFormat() << "'";
    uint64_t requirements = 0;
    for (StringRef feature :
         binary.getRequirements().getAsValueRange<StringAttr>()) {
      const auto *bit = llvm::find(fmt::kCpuFeatures, feature);
      if (bit == std::end(fmt::kCpuFeatures))
        return binary.emitError("expected device features the module file "
                                "can record, but found '")
               << feature << "'";
      requirements |= uint64_t(1) << (bit - std::begin(fmt::kCpuFeatures));
    }
    sections.push_back({*kind, binary.getData().size(), bytes(binary.getData()),
                        requirements});
  }

  // Header and section table first with the checksums left out, the
  // sections after them, then the table again with their checksums.
  uint64_t tableEnd =
      sizeof(fmt::Header) + sections.size() * sizeof(fmt::SectionEntry);
  std::vector<fmt::SectionEntry> entries;
  uint64_t offset = fmt::alignUp(tableEnd);
  for (const Section &s : sections) {
    fmt::SectionEntry entry = {};
    entry.kind = static_cast<uint32_t>(s.kind);
    entry.flags = fmt::kWordChecksum;
    entry.offset = offset;
    entry.size = s.size;
    entry.requirements = s.requirements;
    entries.push_back(entry);
    offset = fmt::alignUp(offset + s.size);
  }
  uint64_t fileSize = entries.back().offset + entries.back().size;
  fmt::Header header = {};
  std::memcpy(header.magic, fmt::kMagic, sizeof(header.magic));
  header.version = fmt::kVersion;
  header.sectionCount = sections.size();
  header.fileSize = fileSize;
  header.sectionTableOffset = sizeof(fmt::Header);
  header.headerChecksum =
      fmt::fnv1a64(&header, offsetof(fmt::Header, headerChecksum));
  uint64_t start = os.tell();
  os.write(reinterpret_cast<const char *>(&header), sizeof(header));
  os.write(reinterpret_cast<const char *>(entries.data()),
           entries.size() * sizeof(fmt::SectionEntry));
  uint64_t position = tableEnd;
  for (auto [s, entry] : llvm::zip_equal(sections, entries)) {
    os.write_zeros(entry.offset - position);
    SectionSink sink(os);
    s.write(sink);
    assert(sink.written == entry.size && "section size changed");
    entry.checksum = sink.checksum.finish();
    position = entry.offset + entry.size;
  }
  os.pwrite(reinterpret_cast<const char *>(entries.data()),
            entries.size() * sizeof(fmt::SectionEntry),
            start + sizeof(fmt::Header));
  // Weights read in place (#msgraph.mapped), and constants computed from
  // them, are the bytes of the files as they were mapped.
  if (auto *dialect =
          module.getContext()->getLoadedDialect<graph::GraphDialect>())
    if (std::string changed = dialect->findChangedMappedFile();
        !changed.empty())
      return module.emitError("file '")
             << changed
             << "' changed during the compilation (weights were read from it)";
  return success();
}

FailureOr<std::string>
mlir::ms::writeModuleFile(ModuleOp module, const ModuleWriteOptions &options) {
  SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  if (failed(writeModuleFile(module, os, options)))
    return failure();
  return std::string(bytes.begin(), bytes.end());
}
