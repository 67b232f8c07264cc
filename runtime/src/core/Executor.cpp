//===- Executor.cpp - running a module's plan -----------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Executor.h"
#include "core/Util.h"

#include <cstring>

using ms::rt::formatTensorType;
using ms::rt::Status;
using namespace ms::rt::impl;

Context::Context(std::shared_ptr<Module> module) : owner(std::move(module)) {}

Context::~Context() {
  Device &device = *owner->device;
  device.deallocate(arena);
  for (void *output : ownedOutputs)
    device.deallocate(output);
}

Status Context::create(std::shared_ptr<Module> module,
                       std::shared_ptr<Context> &out) {
  out.reset();
  std::shared_ptr<Context> context(new Context(std::move(module)));
  const ModuleImage &image = context->owner->image;
  const ModuleMeta &meta = image.meta;
  MS_RETURN_IF_ERROR(
      context->owner->device->allocate(meta.arenaSize, &context->arena));
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
      // Kernels receive `void **`; weights are mapped read-only and the
      // compiler never writes them.
      context->args[slot] =
          image.weights.data
              ? const_cast<uint8_t *>(image.weights.data) + buffer.offset
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

/// Checks caller tensor `given` against `expected`; `role` is "input" or
/// "output".
static Status checkTensor(const char *role, const TensorDesc &expected,
                          const ms_tensor_t &given) {
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
    MS_RETURN_IF_ERROR(checkTensor("input", meta.inputs[i], inputs[i]));
  for (size_t i = 0; i < outputCount; ++i) {
    if (!outputs[i].data)
      continue;
    if (hasDynamicExtent(meta.outputs[i].shape))
      return Status::error(
          MS_INVALID_ARGUMENT,
          "output '" + meta.outputs[i].name +
              "' has data-dependent extents; pass NULL data so that the "
              "runtime allocates it");
    MS_RETURN_IF_ERROR(checkTensor("output", meta.outputs[i], outputs[i]));
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

Status Context::run(const ms_tensor_t *inputs, size_t inputCount,
                    ms_tensor_t *outputs, size_t outputCount, Stream *stream) {
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
  Device &device = *owner->device;
  const std::vector<Step> &steps = owner->image.meta.steps;
  if (!stream) {
    MS_RETURN_IF_ERROR(
        device.execute(owner->kernels.get(), steps, args, nullptr, nullptr));
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

  // The token keeps this context (and so the module, its kernels and its
  // steps) alive until the queued run has finished, then marks it done.
  std::shared_ptr<void> token(nullptr, [self = shared_from_this()](void *) {
    std::lock_guard<std::mutex> lock(self->mutex);
    --self->inFlight;
  });
  {
    std::lock_guard<std::mutex> lock(mutex);
    ++inFlight;
    inFlightStream = stream;
  }
  return device.execute(owner->kernels.get(), steps, args, stream,
                        std::move(token));
}
