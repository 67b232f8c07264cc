//===- Device.h - the device interface every backend implements -*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The seam between the device-independent runtime (module loader, executor,
// C API) and a backend. A backend implements Device (memory, streams, code
// loading, plan execution) and KernelLibrary (the kernels of one module).
// The CPU backend is src/cpu/CpuDevice.cpp; see docs/Runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_DEVICE_H
#define MS_RUNTIME_CORE_DEVICE_H

#include "ms/runtime/ModuleFormat.h"
#include "ms/runtime/Runtime.h"

#include <cstdint>
#include <functional>
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
  /// Run the runtime's own operation `host` (core/HostOps.h).
  Host,
  /// Call the offloaded graph `kernel` (O2): one generated function that runs
  /// a whole part of the plan; same ABI as a launch.
  Graph,
};

class HostOp;

/// One step of a module's plan, with its arguments resolved to positions in a
/// flat argument array (`args[argBegin .. argBegin + argCount)`).
struct Step {
  /// The step kind.
  StepKind kind = StepKind::Launch;
  /// The kernel index (Launch, Graph).
  uint32_t kernel = 0;
  /// First argument slot.
  uint32_t argBegin = 0;
  /// Number of argument slots (2 for Copy).
  uint32_t argCount = 0;
  /// Bytes to copy (Copy).
  uint64_t size = 0;
  /// The operation (Host); owned by the module's meta.
  const HostOp *host = nullptr;
};

/// An ordered queue of work; tasks run one at a time in submission order.
class Stream {
public:
  /// A unit of work; its failure is reported by synchronize().
  using Task = std::function<Status()>;

  virtual ~Stream() = default;
  /// Queues `task` after everything submitted before.
  virtual Status submit(Task task) = 0;
  /// Waits for all queued work; returns and clears the first failure.
  virtual Status synchronize() = 0;
};

/// The kernels of one module, loaded onto one device.
class KernelLibrary {
public:
  virtual ~KernelLibrary() = default;
};

/// A device: memory, streams, code loading and execution.
class Device {
public:
  virtual ~Device() = default;

  /// Returns the device kind.
  virtual ms_device_kind_t kind() const = 0;
  /// Returns a short name ("cpu").
  virtual const char *name() const = 0;
  /// Returns the section kind holding this device's code.
  virtual format::SectionKind codeSection() const = 0;

  /// Allocates `size` bytes (64-byte aligned, zeroed; never NULL on
  /// success, even for size 0).
  virtual Status allocate(size_t size, void **out) = 0;
  /// Frees memory from allocate() (NULL is fine).
  virtual void deallocate(void *ptr) = 0;
  /// Copies host memory into device memory.
  virtual Status copyToDevice(void *dst, const void *src, size_t size) = 0;
  /// Copies device memory into host memory.
  virtual Status copyToHost(void *dst, const void *src, size_t size) = 0;

  /// Creates a stream on this device.
  virtual Status createStream(std::unique_ptr<Stream> &out) = 0;
  /// Waits for work the device runs outside streams.
  virtual Status synchronize() = 0;

  /// Loads `size` bytes of code (this device's code section of the module
  /// `what`) and resolves `kernelNames`, in order. Failures name `what` and
  /// the missing kernel.
  virtual Status loadKernels(const std::string &what, const void *code,
                             size_t size,
                             const std::vector<std::string> &kernelNames,
                             std::unique_ptr<KernelLibrary> &out) = 0;

  /// Runs `steps` with buffer pointers `args`. With a null `stream`, runs to
  /// completion on the calling thread. Otherwise queues the run on `stream`
  /// (copying `args`) and returns; `keepAlive` (which owns `kernels` and
  /// `steps`) is released once the queued run has finished.
  virtual Status execute(const KernelLibrary *kernels,
                         const std::vector<Step> &steps,
                         const std::vector<void *> &args, Stream *stream,
                         std::shared_ptr<void> keepAlive) = 0;
};

/// Creates a device of `kind`; MS_UNAVAILABLE when not built or not present.
Status createDevice(ms_device_kind_t kind, std::shared_ptr<Device> &out);

/// Creates the CPU device (src/cpu/CpuDevice.cpp).
Status createCpuDevice(std::shared_ptr<Device> &out);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_DEVICE_H
