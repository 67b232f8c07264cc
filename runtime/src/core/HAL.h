//===- HAL.h - the device interface every backend implements --*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The seam between the device-independent runtime (module loader, executor,
// C API) and a backend, after IREE's HAL. A device is three things:
//
//   - an allocator: device memory, and copies between it and the host;
//   - executable loading: a module's code section becomes an Executable
//     whose functions are opaque handles;
//   - queues: ordered, asynchronous streams of launches, copies, host
//     callbacks and event signals and waits.
//
// A backend implements Device, Queue, Event and Executable and adds one line
// to the table in src/Backends.cpp. It never interprets a plan: the one
// executor (core/Executor.cpp) walks the plan and issues it to queues. The
// CPU backend is src/cpu/; see docs/Runtime.md.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_HAL_H
#define MS_RUNTIME_CORE_HAL_H

#include "ms/runtime/ModuleFormat.h"
#include "ms/runtime/Runtime.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ms::rt::impl {
class CommGroup;
class DeviceCommGroup;

/// A function of a loaded Executable. The handle means something only to the
/// backend that resolved it (on the CPU, the `void (*)(void **)` itself).
struct Function {
  /// The backend's handle.
  const void *handle = nullptr;
};

/// The code of one module loaded onto one device.
class Executable {
public:
  virtual ~Executable() = default;
  /// Returns the resolved functions, in the order their names were given to
  /// Device::loadExecutable.
  const std::vector<Function> &functions() const { return resolved; }

protected:
  /// Filled by the backend when it loads the code.
  std::vector<Function> resolved;
};

/// A synchronization point between queues. Each Queue::signal submitted on
/// the event counts once; a Queue::wait waits for every signal submitted
/// before it (on any queue of the device) to have run, so waits depend only
/// on earlier submissions and can never deadlock each other. An event may be
/// signalled and waited any number of times; it must outlive the queue
/// operations that use it.
class Event {
public:
  virtual ~Event() = default;
};

/// An ordered queue of device work. Operations run one after another in
/// submission order, asynchronously to the submitting thread; different
/// queues run concurrently unless events order them. Submitting fails only
/// when the operation cannot be queued (out of memory); a failure while
/// running is kept for synchronize(), and the operations after it still run.
/// Destroying a queue waits for its work.
class Queue {
public:
  virtual ~Queue() = default;

  /// Queues a call of `function` with `args` (`argCount` pointers, in device
  /// memory terms). `args` must stay valid until the call has run.
  virtual Status launch(Function function, void **args, size_t argCount) = 0;
  /// Queues a copy of `size` bytes of device memory from `src` to `dst`
  /// (memmove semantics).
  virtual Status copy(void *dst, const void *src, size_t size) = 0;
  /// Queues `callback` to run on the host, in queue order; its failure is
  /// reported by synchronize().
  virtual Status hostCallback(std::function<Status()> callback) = 0;
  /// Queues a signal of `event`: waits submitted after this call wait for it.
  virtual Status signal(Event &event) = 0;
  /// Makes the operations queued after this one wait until every signal of
  /// `event` submitted before this call has run (on any queue).
  virtual Status wait(Event &event) = 0;
  /// Waits until everything queued has run; returns the first failure since
  /// the previous synchronize (naming how many more followed) and forgets it.
  virtual Status synchronize() = 0;
};

/// How a queue is going to be used.
enum class QueueMode {
  /// Work is submitted and later synchronized (a C-API stream).
  Async,
  /// Every submission is followed by a synchronize before the submitter
  /// returns (a synchronous run). A backend may then run each operation on
  /// the submitting thread as it is submitted, or ignore the hint.
  Inline,
};

/// A device: an allocator, executable loading, and queues.
class Device {
public:
  virtual ~Device() = default;

  /// Returns the device kind.
  virtual ms_device_kind_t kind() const = 0;
  /// Returns a short name ("cpu").
  virtual const char *name() const = 0;
  /// Returns the architecture of the hardware (ms_device_arch): "sm_90"
  /// for a GPU of compute capability 9.0; "" where code does not depend
  /// on it.
  virtual const char *arch() const { return ""; }
  /// Returns the section kind holding this device's code.
  virtual format::SectionKind codeSection() const = 0;

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Allocates `size` bytes (64-byte aligned, zeroed; never NULL on
  /// success, even for size 0).
  virtual Status allocate(size_t size, void **out) = 0;
  /// Frees memory from allocate() (NULL is fine).
  virtual void deallocate(void *ptr) = 0;
  /// Returns true when the host can read and write device memory through
  /// its device pointers (host steps need this).
  virtual bool hostVisible() const = 0;
  /// The alignment (bytes) of every tensor a caller passes that the
  /// device's kernels need: they read and write vectors of up to this many
  /// bytes.
  virtual uint64_t tensorAlignment() const { return 1; }
  /// Copies host memory into device memory.
  virtual Status copyToDevice(void *dst, const void *src, size_t size) = 0;
  /// Copies device memory into host memory.
  virtual Status copyToHost(void *dst, const void *src, size_t size) = 0;
  /// Copies device memory to device memory (memmove semantics).
  virtual Status copyOnDevice(void *dst, const void *src, size_t size) = 0;
  /// Copies `rows` rows of `width` bytes, `srcPitch` bytes apart from
  /// `src`, to rows `dstPitch` bytes apart at `dst`, in device memory (the
  /// two do not overlap). The default copies each row with copyOnDevice.
  virtual Status copyRowsOnDevice(void *dst, uint64_t dstPitch,
                                  const void *src, uint64_t srcPitch,
                                  uint64_t width, uint64_t rows);

  //===--------------------------------------------------------------------===//
  // Executables
  //===--------------------------------------------------------------------===//

  /// Returns what this device lacks of `requirements` (a code section's
  /// format::SectionEntry::requirements) in words, or "" when it has it all.
  virtual std::string missingRequirements(uint64_t requirements) const {
    return requirements ? "unknown requirements " + std::to_string(requirements)
                        : std::string();
  }
  /// Loads `size` bytes of code (this device's code section of the module
  /// `what`) and resolves `functionNames`, in order. Failures name `what`
  /// and the missing function.
  virtual Status loadExecutable(const std::string &what, const void *code,
                                size_t size,
                                const std::vector<std::string> &functionNames,
                                std::unique_ptr<Executable> &out) = 0;

  //===--------------------------------------------------------------------===//
  // Queues
  //===--------------------------------------------------------------------===//

  /// Creates a queue used as `mode` says.
  virtual Status createQueue(QueueMode mode, std::unique_ptr<Queue> &out) = 0;
  /// Creates an event for this device's queues.
  virtual Status createEvent(std::unique_ptr<Event> &out) = 0;

  //===--------------------------------------------------------------------===//
  // Collectives
  //===--------------------------------------------------------------------===//

  /// Creates this device's own communicator over the members of `group`,
  /// for collective steps on its memory (NCCL on cuda), or leaves `out`
  /// empty: such steps then run on host copies. Collective over `group`
  /// (every member calls it, in the same order); the members agree, so
  /// that all of them get one or none do. The default has none.
  virtual Status createDeviceGroup(CommGroup &group,
                                   std::unique_ptr<DeviceCommGroup> &out);

  //===--------------------------------------------------------------------===//
  // Host calls (tracing runs)
  //===--------------------------------------------------------------------===//

  /// Returns true when this device's functions are host code that
  /// callOnHost can run (the CPU).
  virtual bool callsOnHost() const { return false; }
  /// Calls `function` with `args` now, on the calling thread. Only for a
  /// device whose callsOnHost() is true: the executor times a traced launch
  /// by running it this way inside a host callback.
  virtual Status callOnHost(Function function, void **args, size_t argCount) {
    (void)function;
    (void)args;
    (void)argCount;
    return Status::error(MS_UNIMPLEMENTED,
                         std::string("the ") + name() +
                             " device cannot call its functions on the host");
  }

  //===--------------------------------------------------------------------===//
  // Profiling (simulated devices)
  //===--------------------------------------------------------------------===//

  /// Returns what the device measured of the work it ran, as a JSON object
  /// ("{}" for a device that measures nothing).
  virtual std::string profile() const { return "{}"; }
  /// Starts recording a timeline of the device's work, dropping one not
  /// written yet; fails for a device that cannot record one.
  virtual Status beginTrace() { return cannotTrace(); }
  /// Writes the timeline recorded since beginTrace() to `path` and stops
  /// recording.
  virtual Status writeTrace(const std::string &path) {
    (void)path;
    return cannotTrace();
  }

private:
  /// The failure of the trace calls on a device that cannot trace.
  Status cannotTrace() const {
    return Status::error(MS_UNIMPLEMENTED,
                         std::string("the ") + name() +
                             " device cannot record a trace (only the "
                             "simulated npu device can)");
  }
};

/// Creates a device; the factory of one backend.
using DeviceFactory = Status (*)(std::shared_ptr<Device> &out);

/// A backend built into this runtime (one entry of src/Backends.cpp).
struct Backend {
  /// The device kind it provides.
  ms_device_kind_t kind;
  /// Creates a device; MS_UNAVAILABLE when the hardware or driver is absent.
  DeviceFactory create;
};

/// Returns the backends built into this runtime (src/Backends.cpp).
const std::vector<Backend> &backends();

/// Creates a device of `kind` through its backend; MS_UNAVAILABLE, naming
/// the kind, when no backend for it is built or the device is absent.
Status createDevice(ms_device_kind_t kind, std::shared_ptr<Device> &out);
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_HAL_H
