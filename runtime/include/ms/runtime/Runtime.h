//===- Runtime.h - C++ wrapper over the ms runtime C API --------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Header-only RAII classes over ms_runtime.h: a Status that owns an
// ms_status_t, and move-only owners of devices, buffers, streams, modules and
// contexts. Nothing here throws on a runtime failure; calls return a Status.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_RUNTIME_H
#define MS_RUNTIME_RUNTIME_H

#include "ms/runtime/ms_runtime.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ms::rt {
/// Owns an ms_status_t: success when empty, otherwise a code and a message.
class [[nodiscard]] Status {
public:
  /// A success.
  Status() = default;
  /// Takes over `status` (NULL is success).
  explicit Status(ms_status_t status) : status(status) {}
  Status(Status &&other) noexcept : status(other.release()) {}
  Status &operator=(Status &&other) noexcept {
    if (this != &other) {
      ms_status_free(status);
      status = other.release();
    }
    return *this;
  }
  Status(const Status &) = delete;
  Status &operator=(const Status &) = delete;
  ~Status() { ms_status_free(status); }

  /// Returns a failure with `code` and `message`.
  static Status error(ms_status_code_t code, const std::string &message) {
    return Status(ms_status_create(code, message.c_str()));
  }

  /// Returns true for a success.
  bool ok() const { return status == nullptr; }
  /// Returns the status code (MS_OK for a success).
  ms_status_code_t code() const { return ms_status_code(status); }
  /// Returns the message ("" for a success).
  const char *message() const { return ms_status_message(status); }
  /// Gives up ownership of the underlying status.
  ms_status_t release() { return std::exchange(status, nullptr); }

private:
  /// The owned status; NULL for a success.
  ms_status_t status = nullptr;
};

/// A move-only owner of a C handle released by `Free`.
template <typename T, void (*Free)(T *)>
class Handle {
public:
  Handle() = default;
  /// Takes over `handle`.
  explicit Handle(T *handle) : handle(handle) {}
  Handle(Handle &&other) noexcept : handle(std::exchange(other.handle, {})) {}
  Handle &operator=(Handle &&other) noexcept {
    if (this != &other)
      reset(std::exchange(other.handle, {}));
    return *this;
  }
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  ~Handle() { reset(); }

  /// Releases the held handle and takes over `next`.
  void reset(T *next = nullptr) {
    if (handle)
      Free(handle);
    handle = next;
  }
  /// Returns the raw handle (still owned).
  T *get() const { return handle; }
  /// Returns true when a handle is held.
  explicit operator bool() const { return handle != nullptr; }

private:
  /// The owned handle.
  T *handle = nullptr;
};

/// Formats a tensor type as "f32[2,8]".
inline std::string formatTensorType(ms_dtype_t dtype, const int64_t *shape,
                                    size_t rank) {
  std::string text = ms_dtype_name(dtype);
  text += '[';
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      text += ',';
    text += std::to_string(shape[i]);
  }
  text += ']';
  return text;
}

/// A device (ms_device_t).
class Device {
public:
  /// Creates a device of `kind` into `out`.
  static Status create(ms_device_kind_t kind, Device &out) {
    ms_device_t raw = nullptr;
    Status status(ms_device_create(kind, &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Returns the raw handle.
  ms_device_t get() const { return handle.get(); }
  /// Returns the device kind.
  ms_device_kind_t kind() const { return ms_device_kind(get()); }
  /// Returns the device name.
  const char *name() const { return ms_device_name(get()); }
  /// Returns the hardware's architecture ("sm_90"; "" on cpu and npu); see
  /// ms_device_arch.
  const char *arch() const { return ms_device_arch(get()); }
  /// Returns what a simulated device measured, as JSON ("{}" otherwise);
  /// see ms_device_profile.
  std::string profile() const { return ms_device_profile(get()); }
  /// Starts recording a timeline (simulated devices only).
  Status traceBegin() { return Status(ms_device_trace_begin(get())); }
  /// Writes the timeline to `path` as Chrome trace-event JSON and stops
  /// recording.
  Status traceWrite(const std::string &path) {
    return Status(ms_device_trace_write(get(), path.c_str()));
  }

private:
  /// The owned device reference.
  Handle<ms_device, ms_device_free> handle;
};

/// A buffer of device memory, owned or borrowed (ms_buffer_t).
class Buffer {
public:
  /// Allocates `size` zeroed, 64-byte aligned bytes on `device`.
  static Status allocate(const Device &device, size_t size, Buffer &out) {
    ms_buffer_t raw = nullptr;
    Status status(ms_buffer_allocate(device.get(), size, &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Wraps caller memory without copying.
  static Status wrap(const Device &device, void *data, size_t size,
                     Buffer &out) {
    ms_buffer_t raw = nullptr;
    Status status(ms_buffer_wrap(device.get(), data, size, &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Returns the raw handle.
  ms_buffer_t get() const { return handle.get(); }
  /// Returns the data pointer.
  void *data() const { return ms_buffer_data(get()); }
  /// Returns the size in bytes.
  size_t size() const { return ms_buffer_size(get()); }
  /// Copies host memory into the buffer at `offset`.
  Status write(size_t offset, const void *src, size_t size) {
    return Status(ms_buffer_write(get(), offset, src, size));
  }
  /// Copies the buffer at `offset` into host memory.
  Status read(size_t offset, void *dst, size_t size) const {
    return Status(ms_buffer_read(get(), offset, dst, size));
  }

private:
  /// The owned buffer.
  Handle<ms_buffer, ms_buffer_free> handle;
};

/// An ordered work queue (ms_stream_t).
class Stream {
public:
  /// Creates a stream on `device`.
  static Status create(const Device &device, Stream &out) {
    ms_stream_t raw = nullptr;
    Status status(ms_stream_create(device.get(), &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Returns the raw handle.
  ms_stream_t get() const { return handle.get(); }
  /// Queues `fn(userData)`.
  Status submit(ms_host_fn_t fn, void *userData) {
    return Status(ms_stream_submit(get(), fn, userData));
  }
  /// Waits for all queued work; returns its first failure.
  Status synchronize() { return Status(ms_stream_synchronize(get())); }

private:
  /// The owned stream.
  Handle<ms_stream, ms_stream_free> handle;
};

/// The description of a module input or output.
struct TensorInfo {
  /// The name from the module's signature.
  std::string name;
  /// The element type.
  ms_dtype_t dtype = MS_DTYPE_INVALID;
  /// The static shape.
  std::vector<int64_t> shape;
  /// Size in bytes.
  uint64_t size = 0;
};

/// A loaded module (ms_module_t).
class Module {
public:
  /// Loads the module file at `path` onto `device`.
  static Status load(const Device &device, const std::string &path,
                     Module &out) {
    ms_module_t raw = nullptr;
    Status status(ms_module_load(device.get(), path.c_str(), &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Returns the raw handle.
  ms_module_t get() const { return handle.get(); }
  /// Returns the number of inputs.
  size_t inputCount() const { return ms_module_input_count(get()); }
  /// Returns the number of outputs.
  size_t outputCount() const { return ms_module_output_count(get()); }
  /// Describes input `index` (empty for an index out of range).
  TensorInfo input(size_t index) const {
    ms_tensor_info_t info{};
    return convert(Status(ms_module_input_info(get(), index, &info)), info);
  }
  /// Describes output `index` (empty for an index out of range).
  TensorInfo output(size_t index) const {
    ms_tensor_info_t info{};
    return convert(Status(ms_module_output_info(get(), index, &info)), info);
  }
  /// Returns the meta JSON text.
  const char *meta() const { return ms_module_meta(get()); }

private:
  static TensorInfo convert(const Status &status, const ms_tensor_info_t &raw) {
    TensorInfo info;
    if (!status.ok())
      return info;
    info.name = raw.name;
    info.dtype = raw.dtype;
    info.shape.assign(raw.shape, raw.shape + raw.rank);
    info.size = raw.size;
    return info;
  }

  /// The owned module reference.
  Handle<ms_module, ms_module_free> handle;
};

/// A tensor view with its own shape storage.
struct TensorView {
  /// The data; NULL for an output the runtime should allocate.
  void *data = nullptr;
  /// Size in bytes.
  uint64_t size = 0;
  /// The element type.
  ms_dtype_t dtype = MS_DTYPE_INVALID;
  /// The shape.
  std::vector<int64_t> shape;

  /// Returns the C view; valid while this object is unchanged.
  ms_tensor_t raw() const {
    return ms_tensor_t{data, size, dtype, static_cast<uint32_t>(shape.size()),
                       shape.data()};
  }
};

/// The world of processes running one sharded module (ms_comm_t).
class Comm {
public:
  /// Creates the communicator the launcher's environment describes (a
  /// world of one process when there is none); see ms_comm_create_from_env.
  static Status createFromEnv(Comm &out) {
    ms_comm_t raw = nullptr;
    Status status(ms_comm_create_from_env(&raw));
    out.handle.reset(raw);
    return status;
  }
  /// Returns the raw handle.
  ms_comm_t get() const { return handle.get(); }
  /// Returns this process's rank (0 without a communicator).
  int32_t rank() const {
    int32_t value = 0;
    ms_status_free(ms_comm_rank(get(), &value));
    return value;
  }
  /// Returns the number of processes (1 without a communicator).
  int32_t worldSize() const {
    int32_t value = 1;
    ms_status_free(ms_comm_world_size(get(), &value));
    return value;
  }
  /// Returns the backend's name ("local", "gloo" or "mpi").
  const char *backend() const { return ms_comm_backend(get()); }

private:
  /// The owned communicator reference.
  Handle<ms_comm, ms_comm_release> handle;
};

/// A run context for a module (ms_context_t).
class Context {
public:
  /// Creates a context for `module` in a world of one process.
  static Status create(const Module &module, Context &out) {
    ms_context_t raw = nullptr;
    Status status(ms_context_create(module.get(), &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Creates a context for `module` in the world of `comm`.
  static Status create(const Module &module, const Comm &comm, Context &out) {
    ms_context_t raw = nullptr;
    Status status(ms_context_create_with_comm(module.get(), comm.get(), &raw));
    out.handle.reset(raw);
    return status;
  }
  /// Returns the raw handle.
  ms_context_t get() const { return handle.get(); }
  /// Runs with C views (no allocation); see ms_context_run.
  Status run(const ms_tensor_t *inputs, size_t inputCount, ms_tensor_t *outputs,
             size_t outputCount) {
    return Status(
        ms_context_run(get(), inputs, inputCount, outputs, outputCount));
  }
  /// Runs synchronously; outputs with a NULL `data` are filled in.
  Status run(const std::vector<TensorView> &inputs,
             std::vector<TensorView> &outputs) {
    return call(nullptr, inputs, outputs);
  }
  /// Queues a run on `stream`; outputs with a NULL `data` are filled in.
  Status enqueue(Stream &stream, const std::vector<TensorView> &inputs,
                 std::vector<TensorView> &outputs) {
    return call(stream.get(), inputs, outputs);
  }
  /// Starts or stops recording a timeline of the runs (cpu only); see
  /// ms_context_set_trace.
  Status setTrace(bool enable) {
    return Status(ms_context_set_trace(get(), enable ? 1 : 0));
  }
  /// Writes the recorded timeline to `path` as Chrome trace-event JSON,
  /// process `pid`; see ms_context_write_trace.
  Status writeTrace(const std::string &path, int pid = 0) {
    return Status(ms_context_write_trace(get(), path.c_str(), pid));
  }

private:
  Status call(ms_stream_t stream, const std::vector<TensorView> &inputs,
              std::vector<TensorView> &outputs) {
    std::vector<ms_tensor_t> in, out;
    for (const TensorView &view : inputs)
      in.push_back(view.raw());
    for (const TensorView &view : outputs)
      out.push_back(view.raw());
    Status status(stream ? ms_context_enqueue(get(), stream, in.data(),
                                              in.size(), out.data(), out.size())
                         : ms_context_run(get(), in.data(), in.size(),
                                          out.data(), out.size()));
    if (!status.ok())
      return status;
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (outputs[i].data)
        continue;
      outputs[i].data = out[i].data;
      outputs[i].size = out[i].size;
      outputs[i].dtype = out[i].dtype;
      outputs[i].shape.assign(out[i].shape, out[i].shape + out[i].rank);
    }
    return status;
  }

  /// The owned context reference.
  Handle<ms_context, ms_context_free> handle;
};
} // namespace ms::rt

#endif // MS_RUNTIME_RUNTIME_H
