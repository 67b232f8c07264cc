//===- Api.cpp - the C API over the runtime's C++ core --------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Every entry point validates its arguments and converts C++ exceptions
// (out of memory, mostly) into status values: nothing escapes to C.
//
//===----------------------------------------------------------------------===//

#include "core/Communicator.h"
#include "core/Executor.h"
#include "core/HAL.h"
#include "core/Module.h"
#include "core/Util.h"

#include <cstring>
#include <mutex>
#include <new>

using ms::rt::Status;
using namespace ms::rt::impl;

struct ms_device {
  std::shared_ptr<Device> device;
  /// Guards `profile`.
  std::mutex mutex;
  /// The text ms_device_profile last returned.
  std::string profile;
};

struct ms_buffer {
  std::shared_ptr<Device> device;
  void *data = nullptr;
  size_t size = 0;
  bool owned = false;
  ~ms_buffer() {
    if (owned)
      device->deallocate(data);
  }
};

/// A stream is an asynchronous queue of its device.
struct ms_stream {
  std::shared_ptr<Device> device;
  // Destroyed before `device`: it waits for its work, which runs on the
  // device's workers.
  std::unique_ptr<Queue> queue;
};

struct ms_module {
  std::shared_ptr<Module> module;
};

struct ms_context {
  std::shared_ptr<Context> context;
};

struct ms_comm {
  std::shared_ptr<Communicator> comm;
};

/// Runs `body`, turning a thrown exception into a failed status.
template <typename Body>
static ms_status_t guard(Body &&body) {
  try {
    Status status = body();
    return status.release();
  } catch (const std::bad_alloc &) {
    return ms_status_create(MS_INTERNAL, "out of memory");
  } catch (const std::exception &e) {
    return ms_status_create(MS_INTERNAL, e.what());
  } catch (...) {
    return ms_status_create(MS_INTERNAL, "unexpected exception");
  }
}

/// Fails when a required handle or pointer argument is NULL.
static Status requireNonNull(const void *pointer, const char *what) {
  if (pointer)
    return Status();
  return Status::error(MS_INVALID_ARGUMENT, std::string(what) + " is NULL");
}

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace {
/// Name and size of each dtype, indexed by ms_dtype_t (DTypes.def).
struct DTypeInfo {
  const char *name;
  size_t size;
  ms_dtype_t dtype;
};
constexpr DTypeInfo dtypes[] = {
    {"invalid", 0, MS_DTYPE_INVALID},
#define MS_DTYPE(ENUM, NAME, SIZE, ...) {NAME, SIZE, MS_DTYPE_##ENUM},
#include "ms/runtime/DTypes.def"
};
constexpr size_t dtypeCount = sizeof(dtypes) / sizeof(dtypes[0]);

/// Whether the table lists the dtypes in ms_dtype_t order.
constexpr bool isIndexedByEnum() {
  for (size_t i = 0; i < dtypeCount; ++i)
    if (static_cast<size_t>(dtypes[i].dtype) != i)
      return false;
  return true;
}
static_assert(isIndexedByEnum(), "DTypes.def is out of ms_dtype_t order");
} // namespace

extern "C" size_t ms_dtype_size(ms_dtype_t dtype) {
  size_t index = static_cast<size_t>(dtype);
  return index < dtypeCount ? dtypes[index].size : 0;
}

extern "C" const char *ms_dtype_name(ms_dtype_t dtype) {
  size_t index = static_cast<size_t>(dtype);
  return index < dtypeCount ? dtypes[index].name : "invalid";
}

extern "C" ms_dtype_t ms_dtype_from_name(const char *name) {
  if (!name)
    return MS_DTYPE_INVALID;
  for (size_t i = 1; i < dtypeCount; ++i)
    if (std::strcmp(dtypes[i].name, name) == 0)
      return static_cast<ms_dtype_t>(i);
  return MS_DTYPE_INVALID;
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

Status ms::rt::impl::createDevice(ms_device_kind_t kind,
                                  std::shared_ptr<Device> &out) {
  out.reset();
  for (const Backend &backend : backends())
    if (backend.kind == kind)
      return backend.create(out);
  const char *name = kind == MS_DEVICE_CPU       ? "cpu"
                     : kind == MS_DEVICE_CUDA    ? "cuda"
                     : kind == MS_DEVICE_NPU_SIM ? "npu"
                                                 : nullptr;
  if (!name)
    return Status::error(MS_INVALID_ARGUMENT,
                         "unknown device kind " + std::to_string(int(kind)));
  return Status::error(MS_UNAVAILABLE,
                       std::string("the ") + name +
                           " device is not available: this runtime was built "
                           "without a " +
                           name + " backend");
}

extern "C" ms_status_t ms_device_create(ms_device_kind_t kind,
                                        ms_device_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    auto handle = std::make_unique<ms_device>();
    MS_RETURN_IF_ERROR(createDevice(kind, handle->device));
    *out = handle.release();
    return Status();
  });
}

extern "C" ms_device_kind_t ms_device_kind(ms_device_t device) {
  return device ? device->device->kind() : ms_device_kind_t(0);
}

extern "C" const char *ms_device_name(ms_device_t device) {
  return device ? device->device->name() : "";
}

extern "C" const char *ms_device_arch(ms_device_t device) {
  return device ? device->device->arch() : "";
}

extern "C" ms_status_t ms_device_synchronize(ms_device_t device) {
  return guard([&] {
    // Every piece of device work runs on a queue, and each stream
    // synchronizes its own: the device has nothing else outstanding.
    return requireNonNull(device, "device");
  });
}

extern "C" const char *ms_device_profile(ms_device_t device) {
  if (!device)
    return "{}";
  std::lock_guard<std::mutex> lock(device->mutex);
  try {
    device->profile = device->device->profile();
  } catch (...) {
    device->profile = "{}";
  }
  return device->profile.c_str();
}

extern "C" ms_status_t ms_device_trace_begin(ms_device_t device) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(device, "device"));
    return device->device->beginTrace();
  });
}

extern "C" ms_status_t ms_device_trace_write(ms_device_t device,
                                             const char *path) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(device, "device"));
    MS_RETURN_IF_ERROR(requireNonNull(path, "path"));
    return device->device->writeTrace(path);
  });
}

extern "C" void ms_device_free(ms_device_t device) { delete device; }

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

extern "C" ms_status_t ms_buffer_allocate(ms_device_t device, size_t size,
                                          ms_buffer_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    MS_RETURN_IF_ERROR(requireNonNull(device, "device"));
    auto buffer = std::make_unique<ms_buffer>();
    buffer->device = device->device;
    MS_RETURN_IF_ERROR(buffer->device->allocate(size, &buffer->data));
    buffer->size = size;
    buffer->owned = true;
    *out = buffer.release();
    return Status();
  });
}

extern "C" ms_status_t ms_buffer_wrap(ms_device_t device, void *data,
                                      size_t size, ms_buffer_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    MS_RETURN_IF_ERROR(requireNonNull(device, "device"));
    if (!data && size > 0)
      return Status::error(MS_INVALID_ARGUMENT, "cannot wrap NULL data of " +
                                                    std::to_string(size) +
                                                    " bytes");
    auto buffer = std::make_unique<ms_buffer>();
    buffer->device = device->device;
    buffer->data = data;
    buffer->size = size;
    *out = buffer.release();
    return Status();
  });
}

extern "C" void *ms_buffer_data(ms_buffer_t buffer) {
  return buffer ? buffer->data : nullptr;
}

extern "C" size_t ms_buffer_size(ms_buffer_t buffer) {
  return buffer ? buffer->size : 0;
}

/// Checks a read or write of [offset, offset + size) of `buffer`.
static Status checkAccess(ms_buffer_t buffer, size_t offset, const void *host,
                          size_t size) {
  MS_RETURN_IF_ERROR(requireNonNull(buffer, "buffer"));
  if (!host && size > 0)
    return Status::error(MS_INVALID_ARGUMENT, "host pointer is NULL");
  if (!inRange(offset, size, buffer->size))
    return Status::error(MS_INVALID_ARGUMENT,
                         "range [" + std::to_string(offset) + ", +" +
                             std::to_string(size) + ") lies outside the " +
                             std::to_string(buffer->size) + "-byte buffer");
  return Status();
}

extern "C" ms_status_t ms_buffer_write(ms_buffer_t buffer, size_t offset,
                                       const void *src, size_t size) {
  return guard([&] {
    MS_RETURN_IF_ERROR(checkAccess(buffer, offset, src, size));
    return buffer->device->copyToDevice(
        static_cast<uint8_t *>(buffer->data) + offset, src, size);
  });
}

extern "C" ms_status_t ms_buffer_read(ms_buffer_t buffer, size_t offset,
                                      void *dst, size_t size) {
  return guard([&] {
    MS_RETURN_IF_ERROR(checkAccess(buffer, offset, dst, size));
    return buffer->device->copyToHost(
        dst, static_cast<const uint8_t *>(buffer->data) + offset, size);
  });
}

extern "C" void ms_buffer_free(ms_buffer_t buffer) { delete buffer; }

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

extern "C" ms_status_t ms_stream_create(ms_device_t device, ms_stream_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    MS_RETURN_IF_ERROR(requireNonNull(device, "device"));
    auto stream = std::make_unique<ms_stream>();
    stream->device = device->device;
    MS_RETURN_IF_ERROR(
        stream->device->createQueue(QueueMode::Async, stream->queue));
    *out = stream.release();
    return Status();
  });
}

extern "C" ms_status_t ms_stream_submit(ms_stream_t stream, ms_host_fn_t fn,
                                        void *user_data) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(stream, "stream"));
    MS_RETURN_IF_ERROR(
        requireNonNull(reinterpret_cast<const void *>(fn), "fn"));
    return stream->queue->hostCallback(
        [fn, user_data] { return Status(fn(user_data)); });
  });
}

extern "C" ms_status_t ms_stream_synchronize(ms_stream_t stream) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(stream, "stream"));
    return stream->queue->synchronize();
  });
}

extern "C" void ms_stream_free(ms_stream_t stream) { delete stream; }

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

extern "C" ms_status_t ms_module_load(ms_device_t device, const char *path,
                                      ms_module_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    MS_RETURN_IF_ERROR(requireNonNull(device, "device"));
    MS_RETURN_IF_ERROR(requireNonNull(path, "path"));
    auto module = std::make_unique<ms_module>();
    MS_RETURN_IF_ERROR(Module::load(device->device, path, module->module));
    *out = module.release();
    return Status();
  });
}

extern "C" size_t ms_module_input_count(ms_module_t module) {
  return module ? module->module->image.meta.inputs.size() : 0;
}

extern "C" size_t ms_module_output_count(ms_module_t module) {
  return module ? module->module->image.meta.outputs.size() : 0;
}

/// Describes entry `index` of `tensors` into `out`.
static Status describe(const std::vector<TensorDesc> &tensors, size_t index,
                       const char *role, ms_tensor_info_t *out) {
  MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
  if (index >= tensors.size())
    return Status::error(MS_INVALID_ARGUMENT,
                         std::string(role) + " index " + std::to_string(index) +
                             " out of range (the module has " +
                             std::to_string(tensors.size()) + ")");
  const TensorDesc &tensor = tensors[index];
  *out = ms_tensor_info_t{tensor.name.c_str(), tensor.dtype,
                          static_cast<uint32_t>(tensor.shape.size()),
                          tensor.shape.data(), tensor.size};
  return Status();
}

extern "C" ms_status_t ms_module_input_info(ms_module_t module, size_t index,
                                            ms_tensor_info_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(module, "module"));
    return describe(module->module->image.meta.inputs, index, "input", out);
  });
}

extern "C" ms_status_t ms_module_output_info(ms_module_t module, size_t index,
                                             ms_tensor_info_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(module, "module"));
    return describe(module->module->image.meta.outputs, index, "output", out);
  });
}

extern "C" const char *ms_module_meta(ms_module_t module) {
  return module ? module->module->image.meta.json.c_str() : "";
}

extern "C" void ms_module_free(ms_module_t module) { delete module; }

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

extern "C" ms_status_t ms_context_create(ms_module_t module,
                                         ms_context_t *out) {
  return ms_context_create_with_comm(module, nullptr, out);
}

extern "C" ms_status_t ms_context_create_with_comm(ms_module_t module,
                                                   ms_comm_t comm,
                                                   ms_context_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    MS_RETURN_IF_ERROR(requireNonNull(module, "module"));
    auto context = std::make_unique<ms_context>();
    MS_RETURN_IF_ERROR(Context::create(
        module->module, comm ? comm->comm : nullptr, context->context));
    *out = context.release();
    return Status();
  });
}

extern "C" ms_status_t ms_context_run(ms_context_t context,
                                      const ms_tensor_t *inputs,
                                      size_t input_count, ms_tensor_t *outputs,
                                      size_t output_count) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(context, "context"));
    return context->context->run(inputs, input_count, outputs, output_count,
                                 nullptr);
  });
}

extern "C" ms_status_t
ms_context_enqueue(ms_context_t context, ms_stream_t stream,
                   const ms_tensor_t *inputs, size_t input_count,
                   ms_tensor_t *outputs, size_t output_count) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(context, "context"));
    MS_RETURN_IF_ERROR(requireNonNull(stream, "stream"));
    if (stream->device != context->context->module().device)
      return Status::error(MS_INVALID_ARGUMENT,
                           "the stream belongs to another device than the "
                           "context's module");
    return context->context->run(inputs, input_count, outputs, output_count,
                                 stream->queue.get());
  });
}

extern "C" ms_status_t ms_context_set_trace(ms_context_t context, int enable) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(context, "context"));
    return context->context->setTrace(enable != 0);
  });
}

extern "C" ms_status_t ms_context_write_trace(ms_context_t context,
                                              const char *path, int pid) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(context, "context"));
    MS_RETURN_IF_ERROR(requireNonNull(path, "path"));
    return context->context->writeTrace(path, pid);
  });
}

extern "C" void ms_context_free(ms_context_t context) { delete context; }

//===----------------------------------------------------------------------===//
// Communicators
//===----------------------------------------------------------------------===//

extern "C" ms_status_t ms_comm_create_from_env(ms_comm_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = nullptr;
    auto comm = std::make_unique<ms_comm>();
    MS_RETURN_IF_ERROR(createCommunicatorFromEnv(comm->comm));
    *out = comm.release();
    return Status();
  });
}

extern "C" ms_status_t ms_comm_rank(ms_comm_t comm, int32_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(comm, "comm"));
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = comm->comm->rank();
    return Status();
  });
}

extern "C" ms_status_t ms_comm_world_size(ms_comm_t comm, int32_t *out) {
  return guard([&] {
    MS_RETURN_IF_ERROR(requireNonNull(comm, "comm"));
    MS_RETURN_IF_ERROR(requireNonNull(out, "out"));
    *out = comm->comm->size();
    return Status();
  });
}

extern "C" const char *ms_comm_backend(ms_comm_t comm) {
  return comm ? comm->comm->backend() : "";
}

extern "C" void ms_comm_release(ms_comm_t comm) { delete comm; }
