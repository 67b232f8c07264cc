//===- CudaDevice.cpp - the CUDA backend ----------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Device memory (cuMemAlloc; not host-visible), queues (the CPU backend's
// ordered queues, whose launches and copies run on a CUDA stream), and
// executables from the module's cuda-ptx section (docs/ModuleFormat.md):
// the PTX is loaded with cuModuleLoadDataEx (the driver compiles it for the
// GPU), and each kernel the plan names becomes a list of launches; a
// Function handle points to that list. Running a kernel allocates its
// scratch buffers on the stream (cuMemAllocAsync), launches each GPU
// function with pointers to the kernel's buffers and scratch, frees the
// scratch on the stream and waits for the stream: each launch is complete
// when its queue operation ends (CUDA graphs at O2 will batch them). Every
// call sets the device's primary context current on the calling thread.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDevice.h"
#include "core/ThreadPool.h"
#include "core/Util.h"
#include "cpu/CpuQueue.h"
#include "cuda/CudaDriver.h"
#include "cuda/Nccl.h"

#include <nlohmann/json.hpp>

#include <array>
#include <mutex>

using ms::rt::Status;
using namespace ms::rt::impl;
using namespace ms::rt::impl::cuda;
namespace format = ms::format;
using Json = nlohmann::json;

namespace {
/// One launch of a GPU function.
struct Launch {
  CUfunction function = nullptr;
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  /// Per parameter: the kernel's buffer (>= 0) or scratch ~index (< 0).
  std::vector<int> params;
};

/// A kernel the plan launches.
struct Kernel {
  std::vector<size_t> scratch;
  std::vector<Launch> launches;
};

/// The primary context of one device, current on the calling thread.
struct CudaContext {
  const Driver *driver = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;

  ~CudaContext() {
    if (context)
      driver->cuDevicePrimaryCtxRelease(device);
  }

  Status makeCurrent() const {
    if (CUresult result = driver->cuCtxSetCurrent(context);
        result != CUDA_SUCCESS)
      return cudaError(*driver, "cuCtxSetCurrent", result);
    return Status();
  }
};

/// Runs `call` (a driver call returning CUresult); returns its error.
#define MS_CUDA_CALL(driver, name, ...)                                        \
  do {                                                                         \
    if (CUresult result_ = (driver).name(__VA_ARGS__);                         \
        result_ != CUDA_SUCCESS)                                               \
      return cudaError((driver), #name, result_);                              \
  } while (false)

class CudaExecutable final : public Executable {
public:
  explicit CudaExecutable(std::shared_ptr<CudaContext> context)
      : context(std::move(context)) {}
  ~CudaExecutable() override {
    if (module && context->makeCurrent().ok())
      context->driver->cuModuleUnload(module);
  }

  std::shared_ptr<CudaContext> context;
  CUmodule module = nullptr;
  std::vector<Kernel> kernels;

  void resolveAll() {
    for (Kernel &kernel : kernels)
      resolved.push_back(Function{&kernel});
  }
};

/// A queue: the CPU backend's queue (submission order, events, host
/// callbacks, first-failure reporting) whose launches and copies are tasks
/// that run the GPU work on the queue's stream and wait for it. Host
/// callbacks thus run on host threads, where driver calls are allowed (not
/// in the driver's own callbacks), and events need nothing from CUDA.
class CudaQueue final : public Queue {
public:
  CudaQueue(std::shared_ptr<CudaContext> context, ThreadPool *pool)
      : context(std::move(context)), inner(pool) {}
  ~CudaQueue() override {
    (void)inner.synchronize();
    if (stream && context->makeCurrent().ok())
      context->driver->cuStreamDestroy(stream);
  }

  Status create() {
    MS_RETURN_IF_ERROR(context->makeCurrent());
    MS_CUDA_CALL(*context->driver, cuStreamCreate, &stream,
                 CU_STREAM_NON_BLOCKING);
    return Status();
  }

  Status launch(Function function, void **args, size_t argCount) override {
    const auto *kernel = static_cast<const Kernel *>(function.handle);
    return inner.hostCallback(
        [this, kernel, buffers = std::vector<void *>(args, args + argCount)] {
          MS_RETURN_IF_ERROR(context->makeCurrent());
          Status status = run(*kernel, buffers);
          if (CUresult result = context->driver->cuStreamSynchronize(stream);
              result != CUDA_SUCCESS && status.ok())
            status = cudaError(*context->driver, "cuStreamSynchronize", result);
          return status;
        });
  }

  Status copy(void *dst, const void *src, size_t size) override {
    if (size == 0)
      return inner.hostCallback([] { return Status(); });
    return inner.hostCallback([this, dst, src, size] {
      // On the queue's stream, waited for: asynchronous to the host.
      MS_RETURN_IF_ERROR(context->makeCurrent());
      MS_CUDA_CALL(*context->driver, cuMemcpyDtoDAsync,
                   reinterpret_cast<CUdeviceptr>(dst),
                   reinterpret_cast<CUdeviceptr>(src), size, stream);
      MS_CUDA_CALL(*context->driver, cuStreamSynchronize, stream);
      return Status();
    });
  }

  Status hostCallback(std::function<Status()> callback) override {
    return inner.hostCallback(std::move(callback));
  }
  Status signal(Event &event) override { return inner.signal(event); }
  Status wait(Event &event) override { return inner.wait(event); }
  Status synchronize() override { return inner.synchronize(); }

private:
  /// Queues `kernel`'s launches on the stream: scratch allocated on it,
  /// each GPU function launched with pointers to `buffers` and the scratch,
  /// the scratch freed on it.
  Status run(const Kernel &kernel, const std::vector<void *> &buffers) {
    const Driver &d = *context->driver;
    std::vector<CUdeviceptr> scratch(kernel.scratch.size(), 0);
    Status status;
    for (size_t i = 0; i < scratch.size() && status.ok(); ++i)
      if (CUresult result = d.cuMemAllocAsync(
              &scratch[i], kernel.scratch[i] ? kernel.scratch[i] : 1, stream);
          result != CUDA_SUCCESS)
        status = cudaError(d, "cuMemAllocAsync", result);
    for (const Launch &launch : kernel.launches) {
      if (!status.ok())
        break;
      // Each parameter is a device pointer; the driver copies the values
      // when the launch is queued.
      std::vector<CUdeviceptr> values(launch.params.size());
      std::vector<void *> params(launch.params.size());
      for (size_t p = 0; p < launch.params.size() && status.ok(); ++p) {
        int ref = launch.params[p];
        if (ref >= 0 && static_cast<size_t>(ref) >= buffers.size())
          status = Status::error(
              MS_INVALID_ARGUMENT,
              "a cuda kernel reads buffer " + std::to_string(ref) +
                  " but the step passes " + std::to_string(buffers.size()));
        else
          values[p] = ref >= 0 ? reinterpret_cast<CUdeviceptr>(buffers[ref])
                               : scratch[~ref];
        params[p] = &values[p];
      }
      if (!status.ok())
        break;
      if (CUresult result = d.cuLaunchKernel(
              launch.function, launch.grid[0], launch.grid[1], launch.grid[2],
              launch.block[0], launch.block[1], launch.block[2], 0, stream,
              params.data(), nullptr);
          result != CUDA_SUCCESS)
        status = cudaError(d, "cuLaunchKernel", result);
    }
    for (CUdeviceptr ptr : scratch)
      if (ptr)
        d.cuMemFreeAsync(ptr, stream);
    return status;
  }

  std::shared_ptr<CudaContext> context;
  CpuQueue inner;
  CUstream stream = nullptr;
};

class CudaDevice final : public Device {
public:
  CudaDevice(std::shared_ptr<CudaContext> context,
             std::unique_ptr<ThreadPool> pool)
      : context(std::move(context)), pool(std::move(pool)) {}
  ~CudaDevice() override {
    if (copyStream && context->makeCurrent().ok())
      context->driver->cuStreamDestroy(copyStream);
  }

  ms_device_kind_t kind() const override { return MS_DEVICE_CUDA; }
  const char *name() const override { return "cuda"; }
  format::SectionKind codeSection() const override {
    return format::SectionKind::CudaPtx;
  }

  Status allocate(size_t size, void **out) override {
    *out = nullptr;
    MS_RETURN_IF_ERROR(context->makeCurrent());
    const Driver &d = *context->driver;
    size_t rounded = format::alignUp(size == 0 ? 1 : size);
    CUdeviceptr ptr = 0;
    if (CUresult result = d.cuMemAlloc(&ptr, rounded); result != CUDA_SUCCESS)
      return Status::error(MS_INTERNAL,
                           "cannot allocate " + std::to_string(size) +
                               " bytes of cuda memory: " +
                               cudaError(d, "cuMemAlloc", result).message());
    if (CUresult result = d.cuMemsetD8(ptr, 0, rounded);
        result != CUDA_SUCCESS) {
      d.cuMemFree(ptr);
      return cudaError(d, "cuMemsetD8", result);
    }
    *out = reinterpret_cast<void *>(ptr);
    return Status();
  }

  void deallocate(void *ptr) override {
    if (ptr && context->makeCurrent().ok())
      context->driver->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }

  bool hostVisible() const override { return false; }

  Status copyToDevice(void *dst, const void *src, size_t size) override {
    if (size == 0)
      return Status();
    MS_RETURN_IF_ERROR(context->makeCurrent());
    MS_CUDA_CALL(*context->driver, cuMemcpyHtoD,
                 reinterpret_cast<CUdeviceptr>(dst), src, size);
    return Status();
  }

  Status copyToHost(void *dst, const void *src, size_t size) override {
    if (size == 0)
      return Status();
    MS_RETURN_IF_ERROR(context->makeCurrent());
    MS_CUDA_CALL(*context->driver, cuMemcpyDtoH, dst,
                 reinterpret_cast<CUdeviceptr>(src), size);
    return Status();
  }

  Status copyOnDevice(void *dst, const void *src, size_t size) override {
    if (size == 0)
      return Status();
    return copyAndWait("cuMemcpyDtoDAsync", [&](CUstream stream) {
      return context->driver->cuMemcpyDtoDAsync(
          reinterpret_cast<CUdeviceptr>(dst),
          reinterpret_cast<CUdeviceptr>(src), size, stream);
    });
  }

  Status copyRowsOnDevice(void *dst, uint64_t dstPitch, const void *src,
                          uint64_t srcPitch, uint64_t width,
                          uint64_t rows) override {
    // One 2D copy where the pitches are within the driver's limit.
    constexpr uint64_t kMaxPitch = (uint64_t(1) << 31) - 1;
    if (width == 0 || rows == 0)
      return Status();
    if (rows == 1 || dstPitch > kMaxPitch || srcPitch > kMaxPitch)
      return Device::copyRowsOnDevice(dst, dstPitch, src, srcPitch, width,
                                      rows);
    CudaMemcpy2D copy{};
    copy.srcMemoryType = copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    copy.srcDevice = reinterpret_cast<CUdeviceptr>(src);
    copy.dstDevice = reinterpret_cast<CUdeviceptr>(dst);
    copy.srcPitch = srcPitch;
    copy.dstPitch = dstPitch;
    copy.WidthInBytes = width;
    copy.Height = rows;
    return copyAndWait("cuMemcpy2DAsync", [&](CUstream stream) {
      return context->driver->cuMemcpy2DAsync(&copy, stream);
    });
  }

  Status createDeviceGroup(CommGroup &group,
                           std::unique_ptr<DeviceCommGroup> &out) override {
    return createNcclGroup(
        *context->driver,
        [context = context] { return context->makeCurrent(); }, group, out);
  }

  Status loadExecutable(const std::string &what, const void *code, size_t size,
                        const std::vector<std::string> &functionNames,
                        std::unique_ptr<Executable> &out) override;

  Status createQueue(QueueMode mode, std::unique_ptr<Queue> &out) override {
    // An inline queue runs each operation on the submitting thread.
    auto queue = std::make_unique<CudaQueue>(
        context, mode == QueueMode::Async ? pool.get() : nullptr);
    MS_RETURN_IF_ERROR(queue->create());
    out = std::move(queue);
    return Status();
  }

  Status createEvent(std::unique_ptr<Event> &out) override {
    return CpuEvent::create(out);
  }

private:
  /// Queues `copy` on the device's copy stream (created on first use) and
  /// waits for that stream alone: copies within the device are
  /// asynchronous to the host, and no other work waits with them.
  Status copyAndWait(const char *call,
                     const std::function<CUresult(CUstream)> &copy) {
    std::lock_guard<std::mutex> lock(copyMutex);
    MS_RETURN_IF_ERROR(context->makeCurrent());
    const Driver &d = *context->driver;
    if (!copyStream)
      MS_CUDA_CALL(d, cuStreamCreate, &copyStream, CU_STREAM_NON_BLOCKING);
    if (CUresult result = copy(copyStream); result != CUDA_SUCCESS)
      return cudaError(d, call, result);
    MS_CUDA_CALL(d, cuStreamSynchronize, copyStream);
    return Status();
  }

  std::shared_ptr<CudaContext> context;
  /// The workers asynchronous queues run on.
  std::unique_ptr<ThreadPool> pool;
  /// The stream of copyOnDevice and copyRowsOnDevice, and its lock.
  CUstream copyStream = nullptr;
  std::mutex copyMutex;
};

/// Reads one launch of kernel `name` from the section.
Status parseLaunch(const std::string &where, const Json &json,
                   size_t scratchCount, Launch &launch, std::string &function) {
  if (!json.is_object() || !json.contains("function") ||
      !json["function"].is_string())
    return Status::error(MS_INVALID_ARGUMENT,
                         where + ": expected a launch with a function name");
  function = json["function"].get<std::string>();
  for (const char *key : {"grid", "block"}) {
    const Json &dims = json.contains(key) ? json[key] : Json();
    if (!dims.is_array() || dims.size() != 3)
      return Status::error(MS_INVALID_ARGUMENT,
                           where + ": expected '" + key + "' to be 3 numbers");
    std::array<unsigned, 3> &out =
        std::string(key) == "grid" ? launch.grid : launch.block;
    for (size_t i = 0; i < 3; ++i) {
      if (!dims[i].is_number_unsigned() || dims[i].get<uint64_t>() == 0 ||
          dims[i].get<uint64_t>() > 0x7fffffffu)
        return Status::error(MS_INVALID_ARGUMENT,
                             where + ": expected '" + key +
                                 "' dimensions in [1, 2^31)");
      out[i] = static_cast<unsigned>(dims[i].get<uint64_t>());
    }
  }
  const Json &args = json.contains("args") ? json["args"] : Json();
  if (!args.is_array())
    return Status::error(MS_INVALID_ARGUMENT, where + ": expected 'args'");
  for (const Json &arg : args) {
    if (!arg.is_array() || arg.size() != 2 || !arg[0].is_string() ||
        !arg[1].is_number_unsigned() || arg[1].get<uint64_t>() > 0xffff)
      return Status::error(MS_INVALID_ARGUMENT,
                           where + ": expected each argument to be "
                                   "[\"arg\" or \"scratch\", index]");
    int index = static_cast<int>(arg[1].get<uint64_t>());
    std::string kind = arg[0].get<std::string>();
    if (kind == "arg") {
      launch.params.push_back(index);
    } else if (kind == "scratch" && static_cast<size_t>(index) < scratchCount) {
      launch.params.push_back(~index);
    } else {
      return Status::error(MS_INVALID_ARGUMENT,
                           where + ": argument ['" + kind + "', " +
                               std::to_string(index) + "] names no buffer");
    }
  }
  return Status();
}
} // namespace

Status CudaDevice::loadExecutable(const std::string &what, const void *code,
                                  size_t size,
                                  const std::vector<std::string> &functionNames,
                                  std::unique_ptr<Executable> &out) {
  out.reset();
  std::string where = what + ": cuda-ptx section";
  Json section = Json::parse(static_cast<const char *>(code),
                             static_cast<const char *>(code) + size, nullptr,
                             /*allow_exceptions=*/false);
  if (!section.is_object() || !section.contains("ptx") ||
      !section["ptx"].is_string() || !section.contains("kernels") ||
      !section["kernels"].is_object())
    return Status::error(MS_INVALID_ARGUMENT,
                         where + ": expected a JSON object with 'ptx' and "
                                 "'kernels'");
  if (!section.contains("version") || section["version"] != 1)
    return Status::error(MS_INVALID_ARGUMENT, where + ": expected version 1");
  auto executable = std::make_unique<CudaExecutable>(context);
  MS_RETURN_IF_ERROR(context->makeCurrent());
  const Driver &d = *context->driver;
  const std::string &ptx = section["ptx"].get_ref<const std::string &>();
  if (!ptx.empty()) {
    // The JIT's error log names the problem when the PTX does not compile
    // for this GPU (an architecture newer than the device, say).
    char log[4096] = {};
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    if (CUresult result = d.cuModuleLoadDataEx(&executable->module, ptx.c_str(),
                                               2, options, values);
        result != CUDA_SUCCESS)
      return Status::error(
          MS_INVALID_ARGUMENT,
          where + ": the driver cannot load its PTX (compiled for " +
              section.value("arch", std::string("?")) +
              "): " + cudaError(d, "cuModuleLoadDataEx", result).message() +
              (log[0] ? std::string("\n") + log : std::string()));
  }
  const Json &kernels = section["kernels"];
  executable->kernels.resize(functionNames.size());
  for (size_t k = 0; k < functionNames.size(); ++k) {
    const std::string &name = functionNames[k];
    if (!kernels.contains(name))
      return Status::error(MS_NOT_FOUND, what + ": kernel '" + name +
                                             "' not found in the cuda-ptx "
                                             "section");
    const Json &kernelJson = kernels[name];
    std::string kernelWhere = where + ": kernel '" + name + "'";
    if (!kernelJson.is_object() || !kernelJson.contains("launches") ||
        !kernelJson["launches"].is_array())
      return Status::error(MS_INVALID_ARGUMENT,
                           kernelWhere + ": expected 'launches'");
    Kernel &kernel = executable->kernels[k];
    if (kernelJson.contains("scratch")) {
      const Json &scratch = kernelJson["scratch"];
      if (!scratch.is_array())
        return Status::error(MS_INVALID_ARGUMENT,
                             kernelWhere + ": expected 'scratch' sizes");
      for (const Json &bytes : scratch) {
        if (!bytes.is_number_unsigned())
          return Status::error(MS_INVALID_ARGUMENT,
                               kernelWhere + ": expected 'scratch' sizes");
        kernel.scratch.push_back(bytes.get<size_t>());
      }
    }
    for (const Json &launchJson : kernelJson["launches"]) {
      Launch launch;
      std::string function;
      MS_RETURN_IF_ERROR(parseLaunch(kernelWhere, launchJson,
                                     kernel.scratch.size(), launch, function));
      if (!executable->module)
        return Status::error(MS_INVALID_ARGUMENT,
                             kernelWhere + ": launches '" + function +
                                 "' but the section has no PTX");
      if (CUresult result = d.cuModuleGetFunction(
              &launch.function, executable->module, function.c_str());
          result != CUDA_SUCCESS)
        return Status::error(
            MS_NOT_FOUND,
            kernelWhere + ": GPU function '" + function +
                "' not found in the PTX: " +
                cudaError(d, "cuModuleGetFunction", result).message());
      kernel.launches.push_back(std::move(launch));
    }
  }
  executable->resolveAll();
  out = std::move(executable);
  return Status();
}

Status ms::rt::impl::createCudaDevice(std::shared_ptr<Device> &out) {
  out.reset();
  std::string error;
  const Driver *driver = openDriver(error);
  if (!driver)
    return Status::error(MS_UNAVAILABLE,
                         "the cuda device is not available: " + error);
  int count = 0;
  if (CUresult result = driver->cuDeviceGetCount(&count);
      result != CUDA_SUCCESS || count == 0)
    return Status::error(MS_UNAVAILABLE,
                         "the cuda device is not available: no CUDA GPU "
                         "found");
  auto context = std::make_shared<CudaContext>();
  context->driver = driver;
  MS_CUDA_CALL(*driver, cuDeviceGet, &context->device, 0);
  MS_CUDA_CALL(*driver, cuDevicePrimaryCtxRetain, &context->context,
               context->device);
  std::unique_ptr<ThreadPool> pool;
  MS_RETURN_IF_ERROR(ThreadPool::create(ThreadPool::defaultThreads(), pool));
  out = std::make_shared<CudaDevice>(std::move(context), std::move(pool));
  return Status();
}
