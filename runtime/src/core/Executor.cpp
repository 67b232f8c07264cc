//===- Executor.cpp - running a module's plan -----------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Executor.h"
#include "core/Collective.h"
#include "core/Util.h"

#include <algorithm>
#include <atomic>
#include <cstring>

using ms::rt::formatTensorType;
using ms::rt::Status;
using namespace ms::rt::impl;

namespace {
/// Rounds `bytes` up to a multiple of 64 (where a staged destination
/// starts after its source).
uint64_t alignStaging(uint64_t bytes) { return (bytes + 63) / 64 * 64; }

/// Returns the host bytes a collective on device memory stages through:
/// its source, then its destination.
uint64_t stagedBytes(const CollectiveOp &op) {
  return alignStaging(op.srcBytes) + op.dstBytes;
}

/// Runs `op` on `device` memory the host cannot read: the source copied to
/// `staging` (stagedBytes(op) bytes of host memory), the collective run
/// there, its result copied back.
Status runStagedCollective(Device &device, const CollectiveOp &op,
                           const void *src, void *dst, CommGroup *group,
                           uint32_t position, uint8_t *scratch,
                           uint8_t *staging) {
  uint8_t *hostSrc = staging, *hostDst = staging + alignStaging(op.srcBytes);
  MS_RETURN_IF_ERROR(device.copyToHost(hostSrc, src, op.srcBytes));
  MS_RETURN_IF_ERROR(
      runCollective(op, hostSrc, hostDst, group, position, scratch));
  return device.copyToDevice(dst, hostDst, op.dstBytes);
}

/// Runs host step `op` (signature `signature`, tensor bytes `bytes`) on
/// device memory the host cannot read: the operands copied to `staging`
/// (hostStagedBytes(bytes) bytes of host memory), the op run there, its
/// results copied back (a result with data-dependent extents only as large
/// as the shape it computed). `args` are the step's argument slots; `where`
/// names the step in a failed copy's message.
Status runStagedHostOp(Device &device, const HostOp &op,
                       const HostSignature &signature,
                       const std::vector<uint64_t> &bytes, void *const *args,
                       size_t argCount, uint8_t *staging,
                       const std::string &where) {
  auto copyFailed = [&](const Status &status) {
    return Status::error(status.code(), where + ": " + status.message());
  };
  std::vector<void *> hostArgs(args, args + argCount);
  for (size_t j = 0; j < bytes.size(); ++j) {
    hostArgs[j] = staging;
    if (j < signature.operandCount)
      if (Status status = device.copyToHost(staging, args[j], bytes[j]);
          !status.ok())
        return copyFailed(status);
    staging += alignStaging(bytes[j]);
  }
  MS_RETURN_IF_ERROR(op.run(hostArgs.data()));
  // The computed shapes follow the tensors, one per dynamic result.
  size_t shapeSlot = bytes.size();
  for (size_t j = signature.operandCount; j < bytes.size(); ++j) {
    uint64_t size = bytes[j];
    if (hasDynamicExtent(signature.shapes[j])) {
      const auto *shape = static_cast<const int64_t *>(args[shapeSlot++]);
      size = ms_dtype_size(signature.dtypes[j]);
      bool fits = true;
      for (size_t d = 0; d < signature.shapes[j].size() && fits; ++d)
        fits = shape[d] >= 0 && !mulOverflows(size, uint64_t(shape[d]), size);
      if (!fits || size > bytes[j])
        return Status::error(MS_INTERNAL,
                             where +
                                 ": computed a result shape larger than "
                                 "its capacity of " +
                                 std::to_string(bytes[j]) + " bytes");
    }
    if (Status status = device.copyToDevice(args[j], hostArgs[j], size);
        !status.ok())
      return copyFailed(status);
  }
  return Status();
}

/// Returns the host bytes a host step with tensors of `bytes` stages
/// through.
uint64_t hostStagedBytes(const std::vector<uint64_t> &bytes) {
  uint64_t total = 0;
  for (uint64_t size : bytes)
    total += alignStaging(size);
  return total;
}
} // namespace

/// The state one run shares with the work it queues.
struct ms::rt::impl::RunState {
  /// Records `status` when it is the run's first failure.
  void fail(Status status) {
    if (status.ok())
      return;
    std::lock_guard<std::mutex> lock(mutex);
    if (firstError.ok())
      firstError = std::move(status);
    failed = true;
  }
  /// Returns and clears the run's first failure.
  Status takeError() {
    std::lock_guard<std::mutex> lock(mutex);
    return std::move(firstError);
  }

  /// Set once a host step failed: the run's later host steps are skipped
  /// (their inputs may be incomplete); device work still runs.
  std::atomic<bool> failed{false};
  /// Guards `firstError`.
  std::mutex mutex;
  /// The first failure.
  Status firstError;
  /// For a queued run: its own copy of the argument pointers (the caller
  /// may bind the next run before this one has started).
  std::vector<void *> args;
  /// For a queued run: keeps the context alive and marks the run finished
  /// when released.
  std::shared_ptr<void> token;
  /// Set to the run itself when queueing failed halfway: the work already
  /// queued may still use the context, so the run is never released.
  std::shared_ptr<RunState> leak;
};

Context::Context(std::shared_ptr<Module> module) : owner(std::move(module)) {}

Context::~Context() {
  // Queues first: their destructors wait for work that may use the memory.
  asyncQueues.clear();
  inlineQueue.reset();
  // The device's communicators before the memory their operations use.
  deviceGroups.clear();
  Device &device = *owner->device;
  device.deallocate(arena);
  device.deallocate(deviceScratch);
  for (void *output : ownedOutputs)
    device.deallocate(output);
}

/// Connects `context`'s groups: for each partition of the plan, finds this
/// rank's position and, where a step of it communicates, creates its group
/// of `comm`. Every rank does this in partition order.
static Status connectGroups(const Module &module,
                            const std::shared_ptr<Communicator> &comm,
                            std::vector<std::unique_ptr<CommGroup>> &groups,
                            std::vector<uint32_t> &positions) {
  const ModuleMeta &meta = module.image.meta;
  int32_t world = comm ? comm->size() : 1;
  if (meta.ranks > 1 && uint32_t(world) != meta.ranks) {
    std::string ranks = std::to_string(meta.ranks);
    return Status::error(MS_INVALID_ARGUMENT,
                         "module '" + module.path + "' was compiled for " +
                             ranks + " ranks but runs in a world of " +
                             std::to_string(world) +
                             (world == 1 ? " process" : " processes") +
                             "; launch it with ms-run --nproc " + ranks +
                             ", python3 -m ms.launch --nproc " + ranks +
                             " or mpirun -np " + ranks);
  }
  // A module of one rank runs alone, whatever the world.
  int32_t rank = meta.ranks > 1 ? comm->rank() : 0;
  groups.resize(meta.partitions.size());
  positions.assign(meta.partitions.size(), 0);
  std::vector<bool> communicates(meta.partitions.size(), false);
  std::vector<uint32_t> firstStep(meta.partitions.size(), 0);
  for (auto it = meta.collectives.rbegin(); it != meta.collectives.rend();
       ++it) {
    communicates[(*it)->partition] =
        communicates[(*it)->partition] || collectiveCommunicates(**it);
    firstStep[(*it)->partition] = (*it)->stepIndex;
  }
  for (size_t p = 0; p < meta.partitions.size(); ++p) {
    for (const std::vector<int32_t> &group : meta.partitions[p])
      for (size_t i = 0; i < group.size(); ++i)
        if (group[i] == rank)
          positions[p] = static_cast<uint32_t>(i);
    if (!communicates[p])
      continue;
    if (Status status = comm->createGroup(meta.partitions[p], groups[p]);
        !status.ok())
      return Status::error(
          status.code(),
          "module '" + module.path + "': cannot connect the groups of steps[" +
              std::to_string(firstStep[p]) + "]: " + status.message());
  }
  return Status();
}

Status Context::create(std::shared_ptr<Module> module,
                       std::shared_ptr<Communicator> comm,
                       std::shared_ptr<Context> &out) {
  out.reset();
  std::shared_ptr<Context> context(new Context(std::move(module)));
  const ModuleImage &image = context->owner->image;
  const ModuleMeta &meta = image.meta;
  Device &device = *context->owner->device;
  if (meta.ranks > 1)
    context->comm = std::move(comm);
  MS_RETURN_IF_ERROR(connectGroups(*context->owner, context->comm,
                                   context->groups, context->groupPositions));
  uint64_t scratchBytes = 0;
  for (const auto &collective : meta.collectives)
    scratchBytes = std::max(scratchBytes, collectiveScratchBytes(*collective));
  context->collectiveScratch.resize(scratchBytes);
  if (!device.hostVisible()) {
    // The device's own communicator for each group, where it has one
    // (created in plan order on every rank, as the groups are).
    context->deviceGroups.resize(context->groups.size());
    bool anyDeviceGroup = false;
    for (size_t p = 0; p < context->groups.size(); ++p) {
      if (!context->groups[p])
        continue;
      if (Status status = device.createDeviceGroup(*context->groups[p],
                                                   context->deviceGroups[p]);
          !status.ok())
        return Status::error(status.code(),
                             "module '" + context->owner->path +
                                 "': cannot connect the " + device.name() +
                                 " device's groups: " + status.message());
      anyDeviceGroup |= context->deviceGroups[p] != nullptr;
    }
    if (anyDeviceGroup && scratchBytes > 0)
      MS_RETURN_IF_ERROR(
          device.allocate(scratchBytes, &context->deviceScratch));
    uint64_t stagingBytes = 0;
    for (const auto &collective : meta.collectives)
      stagingBytes = std::max(stagingBytes, stagedBytes(*collective));
    context->collectiveStaging.resize(stagingBytes);
    for (const std::vector<uint64_t> &bytes : meta.hostTensorBytes)
      context->hostStaging.emplace_back(hostStagedBytes(bytes));
  }
  if (!meta.collectives.empty() && meta.queueCount > 1)
    MS_RETURN_IF_ERROR(device.createEvent(context->collectiveOrder));
  MS_RETURN_IF_ERROR(device.allocate(meta.arenaSize, &context->arena));
  context->events.resize(meta.eventCount);
  for (std::unique_ptr<Event> &event : context->events)
    MS_RETURN_IF_ERROR(device.createEvent(event));
  MS_RETURN_IF_ERROR(
      device.createQueue(QueueMode::Inline, context->inlineQueue));
  context->ownedOutputs.assign(meta.outputs.size(), nullptr);
  context->slots.resize(meta.inputs.size() + meta.outputs.size());
  context->args.resize(meta.stepArgs.size());
  for (const TensorDesc &output : meta.outputs)
    context->outputShapes.push_back(output.shape);
  context->scratch.resize(meta.hostOps.size());
  for (size_t slot = 0; slot < meta.stepArgs.size(); ++slot) {
    uint32_t arg = meta.stepArgs[slot];
    if (arg & kShapeSlot) {
      context->args[slot] =
          context->outputShapes[arg & kSlotIndexMask].data();
      continue;
    }
    if (arg & kScratchSlot) {
      context->args[slot] = &context->scratch[arg & kSlotIndexMask];
      continue;
    }
    const BufferDesc &buffer = meta.buffers[arg];
    switch (buffer.kind) {
    case BufferKind::Weight:
      // Weights with one block per rank give each rank its own.
      if (buffer.relayout != kNoRelayout) {
        context->args[slot] = context->owner->relaidWeights[buffer.relayout];
        break;
      }
      if (buffer.file != kInSection) {
        context->args[slot] =
            context->owner->fileWeights[buffer.file] + buffer.offset;
        break;
      }
      context->args[slot] =
          context->owner->weights
              ? context->owner->weights + buffer.offset +
                    (meta.ranks > 1 ? uint64_t(context->comm->rank()) : 0) *
                        buffer.rankStride
              : nullptr;
      break;
    case BufferKind::Arena:
      context->args[slot] =
          static_cast<uint8_t *>(context->arena) + buffer.offset;
      break;
    case BufferKind::Input:
      context->slots[buffer.index].push_back(static_cast<uint32_t>(slot));
      break;
    case BufferKind::Output:
      context->slots[meta.inputs.size() + buffer.index].push_back(
          static_cast<uint32_t>(slot));
      break;
    }
  }
  out = std::move(context);
  return Status();
}

/// Checks caller tensor `given` against `expected` and the device's
/// `alignment`; `role` is "input" or "output".
static Status checkTensor(const char *role, const TensorDesc &expected,
                          const ms_tensor_t &given, uint64_t alignment) {
  std::string what = std::string(role) + " '" + expected.name + "': ";
  std::string type = formatTensorType(expected.dtype, expected.shape.data(),
                                      expected.shape.size());
  if (given.rank > 0 && !given.shape)
    return Status::error(MS_INVALID_ARGUMENT, what + "shape is NULL for rank " +
                                                  std::to_string(given.rank));
  bool same =
      given.dtype == expected.dtype && given.rank == expected.shape.size() &&
      (given.rank == 0 || std::memcmp(given.shape, expected.shape.data(),
                                      given.rank * sizeof(int64_t)) == 0);
  if (!same) {
    std::string found =
        ms_dtype_size(given.dtype)
            ? formatTensorType(given.dtype, given.shape, given.rank)
            : "dtype " + std::to_string(int(given.dtype)) + " (invalid)";
    return Status::error(MS_INVALID_ARGUMENT,
                         what + "expected " + type + ", got " + found);
  }
  if (given.size != expected.size)
    return Status::error(MS_INVALID_ARGUMENT,
                         what + "size is " + std::to_string(given.size) +
                             " bytes, expected " +
                             std::to_string(expected.size) + " for " + type);
  if (!given.data && expected.size > 0)
    return Status::error(MS_INVALID_ARGUMENT, what + "data is NULL");
  if (reinterpret_cast<uintptr_t>(given.data) % alignment != 0)
    return Status::error(
        MS_INVALID_ARGUMENT,
        what + "expected data aligned to " + std::to_string(alignment) +
            " bytes on this device, but its address is " +
            std::to_string(reinterpret_cast<uintptr_t>(given.data) %
                           alignment) +
            " past a multiple");
  return Status();
}

Status Context::bind(const ms_tensor_t *inputs, size_t inputCount,
                     ms_tensor_t *outputs, size_t outputCount) {
  const ModuleMeta &meta = owner->image.meta;
  if (inputCount != meta.inputs.size() || (inputCount && !inputs))
    return Status::error(MS_INVALID_ARGUMENT,
                         "expected " + std::to_string(meta.inputs.size()) +
                             " inputs, got " +
                             std::to_string(inputs ? inputCount : 0));
  if (outputCount != meta.outputs.size() || (outputCount && !outputs))
    return Status::error(MS_INVALID_ARGUMENT,
                         "expected " + std::to_string(meta.outputs.size()) +
                             " outputs, got " +
                             std::to_string(outputs ? outputCount : 0));
  for (size_t i = 0; i < inputCount; ++i)
    MS_RETURN_IF_ERROR(checkTensor("input", meta.inputs[i], inputs[i],
                                   owner->device->tensorAlignment()));
  for (size_t i = 0; i < outputCount; ++i) {
    if (!outputs[i].data)
      continue;
    if (hasDynamicExtent(meta.outputs[i].shape))
      return Status::error(
          MS_INVALID_ARGUMENT,
          "output '" + meta.outputs[i].name +
              "' has data-dependent extents; pass NULL data so that the "
              "runtime allocates it");
    MS_RETURN_IF_ERROR(checkTensor("output", meta.outputs[i], outputs[i],
                                   owner->device->tensorAlignment()));
  }

  // Everything is valid: bind.
  for (size_t i = 0; i < outputCount; ++i) {
    if (outputs[i].data)
      continue;
    const TensorDesc &desc = meta.outputs[i];
    if (!ownedOutputs[i])
      MS_RETURN_IF_ERROR(owner->device->allocate(desc.size, &ownedOutputs[i]));
    outputs[i] = ms_tensor_t{ownedOutputs[i], desc.size, desc.dtype,
                             static_cast<uint32_t>(desc.shape.size()),
                             outputShapes[i].data()};
  }
  for (size_t i = 0; i < inputCount; ++i)
    for (uint32_t slot : slots[i])
      args[slot] = inputs[i].data;
  for (size_t i = 0; i < outputCount; ++i)
    for (uint32_t slot : slots[inputCount + i])
      args[slot] = outputs[i].data;
  return Status();
}

Status Context::issue(Queue *const *queues, void **stepArgs,
                      const std::shared_ptr<RunState> &run, bool stopOnFailure,
                      int64_t traceRun) {
  const Executable *executable = owner->executable.get();
  const std::vector<Step> &steps = owner->image.meta.steps;
  Device *device = owner->device.get();
  bool traced = traceRun >= 0;
  uint64_t traceIndex = traced ? uint64_t(traceRun) : 0;
  RunTrace *timeline = &trace;
  // The queue of the latest collective step issued (-1: none yet).
  int64_t lastCollectiveQueue = -1;
  for (uint32_t index = 0; index < steps.size(); ++index) {
    const Step &step = steps[index];
    if (stopOnFailure && run->failed)
      break;
    Queue &queue = *queues[step.queue];
    void **at = stepArgs + step.argBegin;
    switch (step.kind) {
    case StepKind::Launch:
    case StepKind::Graph: {
      Function function = executable->functions()[step.kernel];
      if (!traced) {
        MS_RETURN_IF_ERROR(queue.launch(function, at, step.argCount));
        break;
      }
      // Traced: the launch runs inside a host callback that times it.
      MS_RETURN_IF_ERROR(
          queue.hostCallback([device, function, at, count = step.argCount,
                              timeline, index, traceIndex] {
            int64_t start = RunTrace::now();
            Status status = device->callOnHost(function, at, count);
            timeline->record(index, traceIndex, start, RunTrace::now());
            return status;
          }));
      break;
    }
    case StepKind::Copy:
      if (!traced) {
        MS_RETURN_IF_ERROR(queue.copy(at[1], at[0], step.size));
        break;
      }
      MS_RETURN_IF_ERROR(queue.hostCallback(
          [device, at, size = step.size, timeline, index, traceIndex] {
            int64_t start = RunTrace::now();
            Status status = device->copyOnDevice(at[1], at[0], size);
            timeline->record(index, traceIndex, start, RunTrace::now());
            return status;
          }));
      break;
    case StepKind::Host: {
      // On device memory the host cannot read, the op runs on host copies
      // in the step's own staging buffer.
      const ModuleMeta &meta = owner->image.meta;
      bool staged = !device->hostVisible();
      uint8_t *staging = staged ? hostStaging[step.hostIndex].data() : nullptr;
      const HostSignature *signature = &meta.hostSignatures[step.hostIndex];
      const std::vector<uint64_t> *bytes =
          &meta.hostTensorBytes[step.hostIndex];
      const std::string *name = &meta.hostOpNames[step.hostIndex];
      MS_RETURN_IF_ERROR(
          queue.hostCallback([run, host = step.host, at, count = step.argCount,
                              device, staged, staging, signature, bytes, name,
                              traced, timeline, index, traceIndex] {
            if (run->failed)
              return Status();
            int64_t start = traced ? RunTrace::now() : 0;
            run->fail(staged
                          ? runStagedHostOp(*device, *host, *signature, *bytes,
                                            at, count, staging,
                                            "steps[" + std::to_string(index) +
                                                "] (" + *name + ")")
                          : host->run(at));
            if (traced)
              timeline->record(index, traceIndex, start, RunTrace::now());
            return Status();
          }));
      break;
    }
    case StepKind::Signal:
      MS_RETURN_IF_ERROR(queue.signal(*events[step.event]));
      break;
    case StepKind::Wait:
      MS_RETURN_IF_ERROR(queue.wait(*events[step.event]));
      break;
    case StepKind::Collective: {
      // Every rank runs its collectives in plan order, whatever queues
      // they are on: the ranks then meet in the same order. An all_slice
      // meets no one (a local copy) and keeps out of that order.
      const CollectiveOp *op = step.collective;
      bool ordered = op->kind != CollectiveKind::AllSlice;
      if (ordered && lastCollectiveQueue >= 0 &&
          lastCollectiveQueue != step.queue)
        MS_RETURN_IF_ERROR(queue.wait(*collectiveOrder));
      if (ordered)
        lastCollectiveQueue = step.queue;
      CommGroup *group = groups[op->partition].get();
      uint32_t position = groupPositions[op->partition];
      uint8_t *scratchData = collectiveScratch.data();
      // On device memory the host cannot read, the collective runs on the
      // device's own communicator when it has one that takes the op, and
      // copies within the device when it communicates with no one; else it
      // runs on host copies in the context's staging buffer (such a
      // collective communicates, so it is ordered: one at a time).
      DeviceCommGroup *deviceGroup =
          deviceGroups.empty() ? nullptr : deviceGroups[op->partition].get();
      bool onDevice = false, staged = false;
      if (!device->hostVisible()) {
        bool reduces = op->kind == CollectiveKind::AllReduce ||
                       op->kind == CollectiveKind::ReduceScatter;
        onDevice = !collectiveCommunicates(*op) ||
                   (deviceGroup && (!reduces || deviceGroup->reduces(op->dtype)));
        staged = !onDevice;
      }
      uint8_t *staging = staged ? collectiveStaging.data() : nullptr;
      auto *onDeviceScratch = static_cast<uint8_t *>(deviceScratch);
      MS_RETURN_IF_ERROR(queue.hostCallback([run, op, at, group, position,
                                             scratchData, staged, staging,
                                             onDevice, deviceGroup,
                                             onDeviceScratch, device, traced,
                                             timeline, index, traceIndex] {
        // After a failure the rank stops meeting the others: they fail
        // (a timeout, or the connection closing) instead of running on
        // inputs this rank never produced.
        if (run->failed)
          return Status();
        int64_t start = traced ? RunTrace::now() : 0;
        Status status;
        if (onDevice)
          status = runCollective(*op, at[0], at[1], deviceGroup, position,
                                 onDeviceScratch, DeviceRowCopier(*device));
        else if (staged)
          status = runStagedCollective(*device, *op, at[0], at[1], group,
                                       position, scratchData, staging);
        else
          status = runCollective(*op, at[0], at[1], group, position,
                                 scratchData);
        if (traced)
          timeline->record(index, traceIndex, start, RunTrace::now());
        if (!status.ok())
          run->fail(Status::error(
              status.code(), "steps[" + std::to_string(op->stepIndex) + "] (" +
                                 op->name + "): " + status.message()));
        return Status();
      }));
      if (collectiveOrder && ordered)
        MS_RETURN_IF_ERROR(queue.signal(*collectiveOrder));
      break;
    }
    }
  }
  return Status();
}

Status Context::ensureAsyncQueues() {
  Device &device = *owner->device;
  uint32_t queueCount = owner->image.meta.queueCount;
  if (asyncQueues.size() + 1 >= queueCount)
    return Status();
  std::vector<std::unique_ptr<Queue>> newQueues(queueCount - 1);
  std::vector<std::unique_ptr<Event>> newJoins(queueCount);
  for (std::unique_ptr<Queue> &queue : newQueues)
    MS_RETURN_IF_ERROR(device.createQueue(QueueMode::Async, queue));
  for (std::unique_ptr<Event> &event : newJoins)
    MS_RETURN_IF_ERROR(device.createEvent(event));
  asyncQueues = std::move(newQueues);
  joins = std::move(newJoins);
  return Status();
}

Status Context::runInline(int64_t traceRun) {
  // Plan queue 0 runs on the calling thread; plan queues 1.. run on
  // asynchronous queues (the device's pool), so that a collective on a
  // communication queue overlaps the kernels of queue 0 instead of running
  // between them.
  //
  // This cannot starve queue 0. The caller's thread drains it and needs no
  // worker, and the compiled CPU kernels parallelize through OpenMP
  // (libomp's own threads, which the pool does not share), not through the
  // pool. A worker blocked in a collective waits only for the other ranks
  // to reach the same collective, which depends on their own progress, not
  // on this pool; and since collectives run in plan order (collectiveOrder),
  // at most one worker per context is ever blocked in one, while waits park
  // their queue without holding a worker (CpuQueue).
  MS_RETURN_IF_ERROR(ensureAsyncQueues());
  std::vector<Queue *> queues = {inlineQueue.get()};
  for (std::unique_ptr<Queue> &queue : asyncQueues)
    queues.push_back(queue.get());
  auto run = std::make_shared<RunState>();
  Status issued = issue(queues.data(), args.data(), run, true, traceRun);
  // Wait for every queue, even after a failure: nothing may still run when
  // this returns.
  Status synced;
  for (Queue *queue : queues)
    if (Status status = queue->synchronize(); synced.ok())
      synced = std::move(status);
  if (!issued.ok())
    return issued;
  if (Status failure = run->takeError(); !failure.ok())
    return failure;
  return synced;
}

Status Context::enqueue(Queue &stream, int64_t traceRun) {
  uint32_t queueCount = owner->image.meta.queueCount;
  MS_RETURN_IF_ERROR(ensureAsyncQueues());
  std::vector<Queue *> queues = {&stream};
  for (std::unique_ptr<Queue> &queue : asyncQueues)
    queues.push_back(queue.get());

  // The run's state keeps this context (and so the module, its code and its
  // plan) alive until the run has finished, then marks it done.
  auto run = std::make_shared<RunState>();
  run->args = args;
  run->token =
      std::shared_ptr<void>(nullptr, [self = shared_from_this()](void *) {
        std::lock_guard<std::mutex> lock(self->mutex);
        --self->inFlight;
      });
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++inFlight;
    inFlightStream = &stream;
  }
  auto queueAll = [&]() -> Status {
    // Plan queues 1.. start after the stream's earlier work, and the stream
    // goes on once they have all finished the run.
    if (queueCount > 1)
      MS_RETURN_IF_ERROR(stream.signal(*joins[0]));
    for (uint32_t q = 1; q < queueCount; ++q)
      MS_RETURN_IF_ERROR(queues[q]->wait(*joins[0]));
    MS_RETURN_IF_ERROR(
        issue(queues.data(), run->args.data(), run, false, traceRun));
    for (uint32_t q = 1; q < queueCount; ++q) {
      MS_RETURN_IF_ERROR(queues[q]->signal(*joins[q]));
      MS_RETURN_IF_ERROR(stream.wait(*joins[q]));
    }
    // The run's failure is the stream's; releasing the callback releases
    // the run.
    return stream.hostCallback([run] { return run->takeError(); });
  };
  Status status = queueAll();
  if (!status.ok())
    run->leak = run;
  return status;
}

Status Context::run(const ms_tensor_t *inputs, size_t inputCount,
                    ms_tensor_t *outputs, size_t outputCount, Queue *stream) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (inFlight > 0 && stream != inFlightStream)
      return Status::error(
          MS_UNAVAILABLE,
          stream ? "the context has runs queued on another stream; "
                   "synchronize it first"
                 : "the context has runs queued on a stream; synchronize it "
                   "first");
  }
  MS_RETURN_IF_ERROR(bind(inputs, inputCount, outputs, outputCount));
  int64_t traceRun = trace.startRun();
  if (stream)
    return enqueue(*stream, traceRun);
  MS_RETURN_IF_ERROR(runInline(traceRun));
  // Outputs with data-dependent extents: report the computed size.
  const std::vector<TensorDesc> &descs = owner->image.meta.outputs;
  for (size_t i = 0; i < outputCount; ++i) {
    if (!hasDynamicExtent(descs[i].shape))
      continue;
    uint64_t size = ms_dtype_size(descs[i].dtype);
    for (int64_t d : outputShapes[i])
      size *= static_cast<uint64_t>(d);
    outputs[i].size = size;
  }
  return Status();
}

Status Context::setTrace(bool enable) {
  if (!enable) {
    trace.disable();
    return Status();
  }
  const Device &device = *owner->device;
  if (!device.callsOnHost())
    return Status::error(MS_UNIMPLEMENTED,
                         std::string("tracing runs is supported on the cpu "
                                     "device only, not the ") +
                             device.name() + " device");
  trace.enable();
  return Status();
}

Status Context::writeTrace(const std::string &path, int64_t pid) const {
  if (pid < 0)
    return Status::error(MS_INVALID_ARGUMENT,
                         "expected a non-negative pid, found " +
                             std::to_string(pid));
  return trace.write(path, pid, owner->image.meta);
}
