//===- Module.h - module file loading and validation ------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Parses and validates a .msm module file (docs/ModuleFormat.md) and loads
// its code onto a device. parseModule() is pure: it checks the binary layout
// and the meta JSON of bytes already in memory, so every rejection can be
// tested without a device.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_MODULE_H
#define MS_RUNTIME_CORE_MODULE_H

#include "core/Communicator.h"
#include "core/HAL.h"
#include "core/HostOps.h"
#include "ms/runtime/Relayout.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ms::rt::impl {
/// What a plan step does.
enum class StepKind : uint8_t {
  /// Call kernel `kernel` with the step's argument pointers.
  Launch,
  /// Copy `size` bytes from argument 0 to argument 1.
  Copy,
  /// Run the runtime's own operation `host` (core/HostOps.h) on the host.
  Host,
  /// Call the offloaded graph `kernel` (O2): one generated function that runs
  /// a whole part of the plan; same ABI as a launch.
  Graph,
  /// Signal event `event` on the step's queue.
  Signal,
  /// Make the step's queue wait for the signals of `event` issued so far.
  Wait,
  /// Exchange data with the other ranks (or rearrange it): `collective`.
  Collective,
};

/// The operation of a collective step (docs/ModuleFormat.md).
enum class CollectiveKind : uint8_t {
  AllReduce,
  AllGather,
  ReduceScatter,
  AllToAll,
  AllSlice,
  Broadcast,
};

/// A validated collective step: the operation, its source tensor and the
/// groups of ranks it runs over. Its argument slots are the source buffer,
/// then the destination buffer.
struct CollectiveOp {
  /// The operation.
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// Its name in the plan ("all_reduce").
  std::string name;
  /// How elements combine (AllReduce, ReduceScatter).
  Reduction reduction = Reduction::Sum;
  /// The element type.
  ms_dtype_t dtype = MS_DTYPE_INVALID;
  /// The source tensor's shape on this rank, and the destination's.
  std::vector<int64_t> shape, dstShape;
  /// The gather, scatter or slice axis; for AllToAll the split axis.
  uint32_t axis = 0;
  /// The concatenation axis (AllToAll).
  uint32_t concatAxis = 0;
  /// The position in the group of the member whose source is broadcast.
  uint32_t root = 0;
  /// The groups: an index into ModuleMeta::partitions.
  uint32_t partition = 0;
  /// The number of members of each group.
  uint32_t groupSize = 1;
  /// Bytes of the source and destination tensors.
  uint64_t srcBytes = 0, dstBytes = 0;
  /// The step's index in the plan (for messages).
  uint32_t stepIndex = 0;
};

/// One step of a module's plan, with its arguments resolved to positions in a
/// flat argument array (`args[argBegin .. argBegin + argCount)`).
struct Step {
  /// The step kind.
  StepKind kind = StepKind::Launch;
  /// The plan queue the step is issued to.
  uint32_t queue = 0;
  /// The kernel index (Launch, Graph).
  uint32_t kernel = 0;
  /// The event index (Signal, Wait).
  uint32_t event = 0;
  /// First argument slot.
  uint32_t argBegin = 0;
  /// Number of argument slots (2 for Copy).
  uint32_t argCount = 0;
  /// Bytes to copy (Copy).
  uint64_t size = 0;
  /// The operation (Host); owned by the module's meta.
  const HostOp *host = nullptr;
  /// Its index in ModuleMeta::hostOps (Host).
  uint32_t hostIndex = 0;
  /// The operation (Collective); owned by the module's meta.
  const CollectiveOp *collective = nullptr;
};

/// The most queues and events a plan may ask for.
constexpr uint64_t kMaxQueues = 64;
constexpr uint64_t kMaxEvents = 1u << 16;
/// The most steps a plan may run, and the most buffer arguments they may take
/// in all, its calls' body steps counted once per call.
constexpr uint64_t kMaxSteps = 1u << 22;
constexpr uint64_t kMaxStepArgs = 1u << 24;

/// Where a buffer's memory comes from.
enum class BufferKind : uint8_t { Input, Output, Weight, Arena };

/// The most weight files a module may refer to.
constexpr uint64_t kMaxWeightFiles = 1024;
/// The most dims a weight relayout (BufferDesc::relayout) may have.
constexpr uint64_t kMaxRelayoutRank = 16;

/// BufferDesc::file of a weight in the module's weights section.
constexpr uint32_t kInSection = 0xFFFFFFFFu;
/// BufferDesc::relayout of a weight used as it lies.
constexpr uint32_t kNoRelayout = 0xFFFFFFFFu;

/// One entry of the meta "buffers" list.
struct BufferDesc {
  /// The id steps refer to.
  uint64_t id = 0;
  /// Where the memory comes from.
  BufferKind kind = BufferKind::Arena;
  /// Input or output index (Input, Output).
  uint64_t index = 0;
  /// Offset into the weights section, its weight file or the arena (Weight,
  /// Arena).
  uint64_t offset = 0;
  /// The weight file a weight lies in, an index into ModuleMeta::weightFiles,
  /// or kInSection (Weight).
  uint32_t file = kInSection;
  /// Size in bytes.
  uint64_t size = 0;
  /// A weight that holds one block per rank (Weight): rank r's buffer starts
  /// at offset + r * rankStride. 0: one block for every rank.
  uint64_t rankStride = 0;
  /// A weight in a file whose buffer is a relayout of the bytes at `offset`
  /// (computed as the module loads): an index into ModuleMeta::relayouts,
  /// else kNoRelayout.
  uint32_t relayout = kNoRelayout;
};

/// One entry of the meta "inputs" or "outputs" list.
struct TensorDesc {
  /// The signature name.
  std::string name;
  /// The element type.
  ms_dtype_t dtype = MS_DTYPE_INVALID;
  /// The static shape.
  std::vector<int64_t> shape;
  /// dtype size times the element count; for an output with data-dependent
  /// extents (-1 in `shape`), the capacity of its buffer.
  uint64_t size = 0;
  /// Position in ModuleMeta::buffers of the bound buffer.
  uint32_t buffer = 0;
};

/// A file outside the module that holds some of its weights
/// (`ms-compile --external-weights`).
struct WeightFileDesc {
  /// The path as recorded: relative to the module file's directory, or
  /// absolute.
  std::string path;
  /// The file's size in bytes.
  uint64_t size = 0;
  /// Its fnv1a64Words checksum.
  uint64_t checksum = 0;
};

/// The validated content of the meta section.
struct ModuleMeta {
  /// The raw JSON text.
  std::string json;
  /// Informational fields.
  std::string producer, target, entry;
  /// The signature.
  std::vector<TensorDesc> inputs, outputs;
  /// Every buffer; steps refer to positions in this list.
  std::vector<BufferDesc> buffers;
  /// The files holding the weights that are not in the weights section.
  std::vector<WeightFileDesc> weightFiles;
  /// The layouts of the weights in files that are relaid as the module
  /// loads (BufferDesc::relayout).
  std::vector<format::RelayoutShape> relayouts;
  /// Size of the scratch arena in bytes.
  uint64_t arenaSize = 0;
  /// Kernel symbol names, indexed by a launch step's `kernel`.
  std::vector<std::string> kernels;
  /// Each kernel's signature: the bytes of each buffer argument. Every step
  /// that launches the kernel passes that many buffers, each at least that
  /// large.
  std::vector<std::vector<uint64_t>> kernelArgBytes;
  /// The number of queues the plan issues to (at least 1).
  uint32_t queueCount = 1;
  /// The number of events its signal and wait steps use.
  uint32_t eventCount = 0;
  /// The plan.
  std::vector<Step> steps;
  /// For each argument slot of the plan, a position in `buffers`, or one of
  /// the host-step slots kShapeSlot | output index (the computed shape of an
  /// output with data-dependent extents) and kScratchSlot | host op index.
  std::vector<uint32_t> stepArgs;
  /// The operations of the host steps, in step order.
  std::vector<std::shared_ptr<const HostOp>> hostOps;
  /// The name of each of them ("msgraph.string_concat").
  std::vector<std::string> hostOpNames;
  /// The tensors of each of them, and the bytes of each tensor: an
  /// operand's size, the most a result can take (a device whose memory the
  /// host cannot read stages them through host copies).
  std::vector<HostSignature> hostSignatures;
  std::vector<std::vector<uint64_t>> hostTensorBytes;
  /// The number of processes (ranks) the module was compiled for.
  uint32_t ranks = 1;
  /// The distinct "groups" lists of the collective steps: each a partition
  /// of the ranks into groups of one size, members in position order.
  std::vector<std::vector<std::vector<int32_t>>> partitions;
  /// The operations of the collective steps, in step order.
  std::vector<std::shared_ptr<const CollectiveOp>> collectives;
};

/// Tags of ModuleMeta::stepArgs entries that are not buffer positions.
constexpr uint32_t kShapeSlot = 0x80000000u;
constexpr uint32_t kScratchSlot = 0x40000000u;
constexpr uint32_t kSlotIndexMask = 0x3FFFFFFFu;

/// A section of a mapped module file.
struct SectionView {
  /// The section bytes (inside the mapping).
  const uint8_t *data = nullptr;
  /// Size in bytes.
  uint64_t size = 0;
  /// True when the file has this section.
  bool present = false;
  /// What the device must have to run a code section (the entry's
  /// requirements).
  uint64_t requirements = 0;
};

/// A parsed and validated module file.
struct ModuleImage {
  /// The meta section's content.
  ModuleMeta meta;
  /// The weights section (empty when absent).
  SectionView weights;
  /// Code sections by format::SectionKind, in file order: variants of the
  /// same kernels for devices with different features, best first.
  std::vector<SectionView> code[6];
};

/// Validates the module file bytes `data[0..size)` and fills `out`. `name`
/// (the file path) starts every error message.
Status parseModule(const uint8_t *data, size_t size, const std::string &name,
                   ModuleImage &out);

/// A file mapped read-only into memory.
class MappedFile {
public:
  /// Maps the file at `path`.
  static Status open(const std::string &path, std::unique_ptr<MappedFile> &out);
  ~MappedFile();
  MappedFile(const MappedFile &) = delete;
  MappedFile &operator=(const MappedFile &) = delete;

  /// The mapped bytes (NULL for an empty file).
  const uint8_t *data() const { return bytes; }
  /// The file size.
  size_t size() const { return length; }

private:
  MappedFile() = default;
  /// The mapping.
  const uint8_t *bytes = nullptr;
  /// Its length.
  size_t length = 0;
};

/// A module loaded onto a device.
struct Module {
  /// Maps, validates and loads the module file at `path` onto `device`.
  static Status load(std::shared_ptr<Device> device, const std::string &path,
                     std::shared_ptr<Module> &out);

  /// The device the module's code is loaded on.
  std::shared_ptr<Device> device;
  /// The file path.
  std::string path;
  /// The mapped file; weights point into it.
  std::unique_ptr<MappedFile> file;
  /// The validated content.
  ModuleImage image;
  /// The weights as the device sees them: inside the mapping for a
  /// host-visible device, else a device copy (`deviceWeights`). NULL when
  /// the module has no weights.
  uint8_t *weights = nullptr;
  /// The device copy of the weights, owned (NULL when not needed).
  void *deviceWeights = nullptr;
  /// The mapped weight files, by index in ModuleMeta::weightFiles.
  std::vector<std::unique_ptr<MappedFile>> weightFiles;
  /// Each weight file as the device sees it, like `weights`.
  std::vector<uint8_t *> fileWeights;
  /// The device copies of the weight files, owned (NULL when not needed).
  std::vector<void *> deviceFileWeights;
  /// The relaid weights by index in ModuleMeta::relayouts, as the device
  /// sees them: host memory (`relaidHost`) or a device copy
  /// (`deviceRelaid`).
  std::vector<uint8_t *> relaidWeights;
  std::vector<std::unique_ptr<uint8_t, void (*)(void *)>> relaidHost;
  std::vector<void *> deviceRelaid;
  /// The loaded kernels (NULL when the module has none). Declared last so
  /// it is released before the mapping and the device.
  std::unique_ptr<Executable> executable;

  /// Maps the weight file `desc` (the next of ModuleMeta::weightFiles),
  /// checks its size and checksum, and copies it to a device without
  /// host-visible memory.
  Status mapWeightFile(const WeightFileDesc &desc);

  /// Computes the weights that are relayouts of bytes in the mapped weight
  /// files (ModuleMeta::relayouts) into `relaidWeights`.
  Status relayWeights();

  Module() = default;
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_MODULE_H
