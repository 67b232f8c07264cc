//===- CpuDevice.cpp - the CPU backend ------------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Host memory, host streams on a small thread pool, and kernels from the
// module's cpu-elf section: the ELF shared object is written to an anonymous
// memory file (memfd_create) and dlopen'ed from /proc/self/fd/N, so no
// temporary file is left behind. Kernels are `void ms_kernel_<N>(void **)`.
//
//===----------------------------------------------------------------------===//

#include "core/Device.h"
#include "core/HostOps.h"
#include "core/Util.h"
#include "core/Stream.h"
#include "core/ThreadPool.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using ms::rt::Status;
using namespace ms::rt::impl;
namespace format = ms::format;

namespace {
/// The CPU kernel ABI: one array of buffer pointers.
using KernelFn = void (*)(void **);

/// Returns the current dlerror() text, or `fallback` when there is none.
std::string dlErrorText(const char *fallback) {
  const char *text = dlerror();
  return text ? text : fallback;
}

/// A module's kernels: a dlopen'ed shared object and its resolved symbols.
class CpuKernels final : public KernelLibrary {
public:
  ~CpuKernels() override {
    if (handle)
      dlclose(handle);
    // The memory file stays open while the library is loaded so that its
    // /proc/self/fd/N name is not reused by another module meanwhile.
    if (fd >= 0)
      close(fd);
  }

  /// The dlopen handle.
  void *handle = nullptr;
  /// The memory file holding the ELF image.
  int fd = -1;
  /// The kernels, in the module's order.
  std::vector<KernelFn> kernels;
};

/// Writes all of `data` to `fd`.
bool writeAll(int fd, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t written = write(fd, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

/// Returns the path dlopen sees for `fd`.
std::string fdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

/// Makes sure no library is still registered with the dynamic loader under
/// the name /proc/self/fd/<fd>: glibc matches dlopen paths by name first, so
/// a library that survived dlclose (DF_1_NODELETE) under the same descriptor
/// number would be returned instead of ours. Moves `fd` to a fresh number
/// when needed.
Status pickUnusedFdName(int &fd, const std::string &what) {
  std::vector<int> taken;
  Status status;
  for (int attempt = 0;; ++attempt) {
    void *stale = dlopen(fdPath(fd).c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!stale)
      break;
    dlclose(stale);
    if (attempt == 64) {
      status = Status::error(MS_INTERNAL,
                             what + ": no free descriptor name to load code");
      break;
    }
    int next = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (next < 0) {
      status = Status::error(MS_INTERNAL, what + ": cannot duplicate memfd: " +
                                              std::strerror(errno));
      break;
    }
    taken.push_back(fd);
    fd = next;
  }
  dlerror(); // Clear the RTLD_NOLOAD miss.
  for (int old : taken)
    close(old);
  return status;
}

/// The CPU device.
class CpuDevice final : public Device {
public:
  /// Creates a device whose streams run on `pool`.
  explicit CpuDevice(std::unique_ptr<ThreadPool> pool)
      : pool(std::move(pool)) {}

  ms_device_kind_t kind() const override { return MS_DEVICE_CPU; }
  const char *name() const override { return "cpu"; }
  format::SectionKind codeSection() const override {
    return format::SectionKind::CpuElf;
  }

  Status allocate(size_t size, void **out) override {
    *out = nullptr;
    size_t rounded = format::alignUp(size == 0 ? 1 : size);
    if (rounded < size)
      return Status::error(MS_INVALID_ARGUMENT, "allocation of " +
                                                    std::to_string(size) +
                                                    " bytes is too large");
    void *ptr = nullptr;
    int error = posix_memalign(&ptr, format::kAlignment, rounded);
    if (error != 0 || !ptr)
      return Status::error(MS_INTERNAL, "cannot allocate " +
                                            std::to_string(size) +
                                            " bytes: " + std::strerror(error));
    std::memset(ptr, 0, rounded);
    *out = ptr;
    return Status();
  }

  void deallocate(void *ptr) override { std::free(ptr); }

  Status copyToDevice(void *dst, const void *src, size_t size) override {
    if (size)
      std::memmove(dst, src, size);
    return Status();
  }

  Status copyToHost(void *dst, const void *src, size_t size) override {
    if (size)
      std::memmove(dst, src, size);
    return Status();
  }

  Status createStream(std::unique_ptr<Stream> &out) override {
    out.reset(new (std::nothrow) HostStream(*pool));
    if (!out)
      return Status::error(MS_INTERNAL, "out of memory creating a stream");
    return Status();
  }

  Status synchronize() override {
    // Work outside streams runs synchronously on the calling thread.
    return Status();
  }

  Status loadKernels(const std::string &what, const void *code, size_t size,
                     const std::vector<std::string> &kernelNames,
                     std::unique_ptr<KernelLibrary> &out) override;

  Status execute(const KernelLibrary *kernels, const std::vector<Step> &steps,
                 const std::vector<void *> &args, Stream *stream,
                 std::shared_ptr<void> keepAlive) override;

private:
  /// Runs `steps` on the calling thread.
  static Status run(const CpuKernels *kernels, const std::vector<Step> &steps,
                    void *const *args) {
    for (const Step &step : steps) {
      void **stepArgs = const_cast<void **>(args + step.argBegin);
      if (step.kind == StepKind::Launch || step.kind == StepKind::Graph)
        kernels->kernels[step.kernel](stepArgs);
      else if (step.kind == StepKind::Host)
        MS_RETURN_IF_ERROR(step.host->run(stepArgs));
      else if (step.size)
        std::memmove(stepArgs[1], stepArgs[0], step.size);
    }
    return Status();
  }

  /// The workers streams run on.
  std::unique_ptr<ThreadPool> pool;
};
} // namespace

Status CpuDevice::loadKernels(const std::string &what, const void *code,
                              size_t size,
                              const std::vector<std::string> &kernelNames,
                              std::unique_ptr<KernelLibrary> &out) {
  out.reset();
  std::unique_ptr<CpuKernels> library(new (std::nothrow) CpuKernels());
  if (!library)
    return Status::error(MS_INTERNAL, what + ": out of memory loading code");
  library->fd = memfd_create("ms-module", MFD_CLOEXEC);
  if (library->fd < 0)
    return Status::error(MS_UNAVAILABLE, what + ": memfd_create failed: " +
                                             std::strerror(errno));
  if (!writeAll(library->fd, code, size))
    return Status::error(MS_INTERNAL, what +
                                          ": cannot write the cpu-elf section "
                                          "to a memory file: " +
                                          std::strerror(errno));
  if (Status status = pickUnusedFdName(library->fd, what); !status.ok())
    return status;
  library->handle = dlopen(fdPath(library->fd).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle)
    return Status::error(MS_INVALID_ARGUMENT,
                         what + ": cannot load the cpu-elf section: " +
                             dlErrorText("dlopen failed"));
  library->kernels.reserve(kernelNames.size());
  for (const std::string &name : kernelNames) {
    dlerror();
    void *symbol = dlsym(library->handle, name.c_str());
    if (!symbol)
      return Status::error(MS_NOT_FOUND,
                           what + ": kernel '" + name +
                               "' not found in the cpu-elf section: " +
                               dlErrorText("symbol is NULL"));
    library->kernels.push_back(reinterpret_cast<KernelFn>(symbol));
  }
  out = std::move(library);
  return Status();
}

Status CpuDevice::execute(const KernelLibrary *kernels,
                          const std::vector<Step> &steps,
                          const std::vector<void *> &args, Stream *stream,
                          std::shared_ptr<void> keepAlive) {
  const auto *cpuKernels = static_cast<const CpuKernels *>(kernels);
  if (!stream)
    return run(cpuKernels, steps, args.data());
  // Copy the arguments: the caller may rebind them for the next run before
  // this one has started.
  return stream->submit(
      [cpuKernels, &steps, args, keepAlive = std::move(keepAlive)]() {
        return run(cpuKernels, steps, args.data());
      });
}

Status ms::rt::impl::createCpuDevice(std::shared_ptr<Device> &out) {
  out.reset();
  std::unique_ptr<ThreadPool> pool;
  if (Status status = ThreadPool::create(ThreadPool::defaultThreads(), pool);
      !status.ok())
    return status;
  out = std::make_shared<CpuDevice>(std::move(pool));
  return Status();
}
