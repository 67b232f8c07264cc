//===- CpuDevice.cpp - the CPU backend ------------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Host memory (host-visible), queues on a small thread pool (cpu/CpuQueue.h),
// and executables from the module's cpu-elf section: the ELF shared object
// is written to an anonymous memory file (memfd_create) and dlopen'ed from
// /proc/self/fd/N, so no temporary file is left behind. Functions are
// `void ms_kernel_<N>(void **)`; a Function handle is that pointer.
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuDevice.h"
#include "core/ThreadPool.h"
#include "core/Util.h"
#include "cpu/CpuFeatures.h"
#include "cpu/CpuQueue.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

using ms::rt::Status;
using namespace ms::rt::impl;
namespace format = ms::format;

namespace {
/// Returns the current dlerror() text, or `fallback` when there is none.
std::string dlErrorText(const char *fallback) {
  const char *text = dlerror();
  return text ? text : fallback;
}

/// A module's code: a dlopen'ed shared object and its resolved symbols.
class CpuExecutable final : public Executable {
public:
  ~CpuExecutable() override {
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
  /// Appends a resolved function.
  void add(void *symbol) { resolved.push_back(Function{symbol}); }
};


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
class CpuDevice final : public HostMemoryDevice {
public:
  /// Creates a device whose asynchronous queues run on `pool`.
  explicit CpuDevice(std::unique_ptr<ThreadPool> pool)
      : pool(std::move(pool)), features(detectHostCpuFeatures()) {}

  ms_device_kind_t kind() const override { return MS_DEVICE_CPU; }
  const char *name() const override { return "cpu"; }
  format::SectionKind codeSection() const override {
    return format::SectionKind::CpuElf;
  }

  std::string missingRequirements(uint64_t requirements) const override {
    uint64_t missing = requirements & ~features;
    return missing ? "CPU features " + cpuFeatureNames(missing) : "";
  }

  Status loadExecutable(const std::string &what, const void *code, size_t size,
                        const std::vector<std::string> &functionNames,
                        std::unique_ptr<Executable> &out) override;

  Status createQueue(QueueMode mode, std::unique_ptr<Queue> &out) override {
    // An inline queue runs each operation on the submitting thread: a
    // synchronous run makes no thread hop.
    out.reset(new (std::nothrow)
                  CpuQueue(mode == QueueMode::Async ? pool.get() : nullptr));
    if (!out)
      return Status::error(MS_INTERNAL, "out of memory creating a queue");
    return Status();
  }

  Status createEvent(std::unique_ptr<Event> &out) override {
    return CpuEvent::create(out);
  }

  bool callsOnHost() const override { return true; }
  Status callOnHost(Function function, void **args, size_t) override {
    auto fn = reinterpret_cast<void (*)(void **)>(
        const_cast<void *>(function.handle));
    if (!fn)
      return Status::error(MS_INVALID_ARGUMENT, "launch of a NULL function");
    fn(args);
    return Status();
  }

private:
  /// The workers asynchronous queues run on.
  std::unique_ptr<ThreadPool> pool;
  /// The host's CPU features (format::kCpuFeatures bits).
  uint64_t features;
};
} // namespace

Status CpuDevice::loadExecutable(const std::string &what, const void *code,
                                 size_t size,
                                 const std::vector<std::string> &functionNames,
                                 std::unique_ptr<Executable> &out) {
  out.reset();
  std::unique_ptr<CpuExecutable> library(new (std::nothrow) CpuExecutable());
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
  for (const std::string &name : functionNames) {
    dlerror();
    void *symbol = dlsym(library->handle, name.c_str());
    if (!symbol)
      return Status::error(MS_NOT_FOUND,
                           what + ": kernel '" + name +
                               "' not found in the cpu-elf section: " +
                               dlErrorText("symbol is NULL"));
    library->add(symbol);
  }
  out = std::move(library);
  return Status();
}

Status HostMemoryDevice::allocate(size_t size, void **out) {
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

void HostMemoryDevice::deallocate(void *ptr) { std::free(ptr); }

Status HostMemoryDevice::copyToDevice(void *dst, const void *src, size_t size) {
  return copyOnDevice(dst, src, size);
}

Status HostMemoryDevice::copyToHost(void *dst, const void *src, size_t size) {
  return copyOnDevice(dst, src, size);
}

Status HostMemoryDevice::copyOnDevice(void *dst, const void *src, size_t size) {
  if (size)
    std::memmove(dst, src, size);
  return Status();
}

/// Keeps kernels' temporaries in the process heap between calls: glibc
/// serves a block over its mmap threshold (128 KiB at first, raised to the
/// largest block freed so far) from a fresh mapping and returns free memory
/// at the top of its heap over twice that to the system, so a kernel whose
/// buffers add up to more (Winograd's transformed tiles and products, 1
/// MiB each for a 14x14 conv of 256 channels) page-faulted them in again
/// every call (36% of such a conv's time). Blocks up to 32 MiB come from
/// the heap, and up to 256 MiB of free heap stays with the process. Set
/// MS_CPU_KEEP_HEAP=0 to leave glibc's defaults.
static void keepKernelHeap() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    const char *keep = std::getenv("MS_CPU_KEEP_HEAP");
    if (keep && std::strcmp(keep, "0") == 0)
      return;
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
  });
#endif
}

Status ms::rt::impl::createCpuDevice(std::shared_ptr<Device> &out) {
  out.reset();
  keepKernelHeap();
  std::unique_ptr<ThreadPool> pool;
  if (Status status = ThreadPool::create(ThreadPool::defaultThreads(), pool);
      !status.ok())
    return status;
  out = std::make_shared<CpuDevice>(std::move(pool));
  return Status();
}
