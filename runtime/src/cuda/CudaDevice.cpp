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
// scratch buffers on the stream (cuMemAllocAsync, from the device's default
// pool, which keeps what it frees), launches each GPU function with
// pointers to the kernel's buffers and scratch, frees the scratch on the
// stream and waits for the stream. An offloaded graph (O2) is captured from
// the stream into a CUDA graph the first time it runs on a set of buffer
// addresses, with scratch of its own, and replayed with one cuGraphLaunch
// after that. Every call sets the device's primary context current on the
// calling thread.
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
#include <map>
#include <mutex>

using ms::rt::Status;
using namespace ms::rt::impl;
using namespace ms::rt::impl::cuda;
namespace format = ms::format;
using Json = nlohmann::json;

namespace {
/// A TMA tensor map of a tiled view of a kernel's buffer (>= 0) or scratch
/// ~index (< 0) from `offset` bytes, as cuTensorMapEncodeTiled takes it
/// (innermost dimension first; no interleave or L2 promotion; elements
/// past the end read as zeros), its boxes swizzled in shared memory in
/// rows of `swizzle` bytes (CU_TENSOR_MAP_SWIZZLE_32B, 64B, 128B; 0: none).
struct TensorMapSpec {
  int buffer = 0;
  uint64_t offset = 0;
  int dataType = 0;
  int swizzle = 0;
  unsigned rank = 0;
  std::array<unsigned long long, 5> dims{};
  std::array<unsigned long long, 4> strides{};
  std::array<unsigned, 5> box{};
};

/// One launch of a GPU function.
struct Launch {
  CUfunction function = nullptr;
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  /// The dynamic shared memory of each block, in bytes.
  unsigned sharedBytes = 0;
  /// Per parameter: the kernel's buffer (>= 0) or scratch ~index (< 0);
  /// a tensor map's parameter (tensorMaps) is its device address instead.
  std::vector<int> params;
  /// The launch's TMA tensor maps, each with the parameter it is.
  std::vector<std::pair<size_t, TensorMapSpec>> tensorMaps;
};

struct Kernel;

/// A buffer a node of an offloaded graph uses: argument `argument` of the
/// graph step plus `offset` bytes.
struct GraphRef {
  size_t argument = 0;
  uint64_t offset = 0;
};

/// A node of an offloaded graph: a kernel's launches, or a copy.
struct GraphNode {
  /// The kernel, or null for a copy of `copyBytes` from args[0] to args[1].
  const Kernel *kernel = nullptr;
  uint64_t copyBytes = 0;
  std::vector<GraphRef> args;
};

/// Graphs of one offloaded graph instantiated for a set of buffer addresses.
struct GraphCache;

/// A kernel the plan launches, or an offloaded graph (O2).
struct Kernel {
  std::vector<size_t> scratch;
  std::vector<Launch> launches;
  /// The tensor maps of all its launches.
  size_t tensorMapCount = 0;
  /// An offloaded graph: its nodes, in order, and the scratch bytes the
  /// largest node needs (the nodes run one after another and share it).
  bool isGraph = false;
  std::vector<GraphNode> nodes;
  uint64_t graphScratch = 0;
  std::unique_ptr<GraphCache> graphs;
};

/// Byte offsets of `kernel`'s scratch buffers in one block, each aligned
/// like the driver's allocations; the last entry is the block's size.
std::vector<uint64_t> scratchOffsets(const Kernel &kernel) {
  std::vector<uint64_t> offsets{0};
  for (size_t bytes : kernel.scratch)
    offsets.push_back(offsets.back() + (bytes + 255) / 256 * 256);
  return offsets;
}

/// The primary context of one device, current on the calling thread.
struct CudaContext {
  const Driver *driver = nullptr;
  CUdevice device = 0;
  CUcontext context = nullptr;
  /// The device's default memory pool (scratch), or null.
  CUmemoryPool memoryPool = nullptr;

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

/// A CUDA graph instantiated for one set of buffer addresses, with the
/// scratch its kernels share.
struct GraphInstance {
  std::shared_ptr<CudaContext> context;
  std::vector<void *> buffers;
  CUgraphExec exec = nullptr;
  CUdeviceptr scratch = 0;
  /// The nodes' tensor maps, or 0.
  CUdeviceptr tensorMaps = 0;

  ~GraphInstance() {
    if (!context->makeCurrent().ok())
      return;
    if (exec)
      context->driver->cuGraphExecDestroy(exec);
    if (scratch)
      context->driver->cuMemFree(scratch);
    if (tensorMaps)
      context->driver->cuMemFree(tensorMaps);
  }
};

/// The graphs of one offloaded graph, most recently used last. Callers
/// rarely alternate between more than a few sets of input and output
/// buffers; the oldest graph goes when a new set exceeds the limit.
struct GraphCache {
  static constexpr size_t kLimit = 8;
  std::mutex mutex;
  std::vector<std::shared_ptr<GraphInstance>> instances;

  std::shared_ptr<GraphInstance> find(const std::vector<void *> &buffers) {
    std::lock_guard<std::mutex> lock(mutex);
    for (size_t i = 0; i < instances.size(); ++i) {
      if (instances[i]->buffers != buffers)
        continue;
      std::shared_ptr<GraphInstance> found = instances[i];
      instances.erase(instances.begin() + i);
      instances.push_back(found);
      return found;
    }
    return nullptr;
  }

  void add(std::shared_ptr<GraphInstance> instance) {
    std::lock_guard<std::mutex> lock(mutex);
    instances.push_back(std::move(instance));
    if (instances.size() > kLimit)
      instances.erase(instances.begin());
  }
};

class CudaExecutable final : public Executable {
public:
  explicit CudaExecutable(std::shared_ptr<CudaContext> context)
      : context(std::move(context)) {}
  ~CudaExecutable() override {
    // The graphs launch the module's functions: they go first.
    kernels.clear();
    if (module && context->makeCurrent().ok())
      context->driver->cuModuleUnload(module);
  }

  std::shared_ptr<CudaContext> context;
  CUmodule module = nullptr;
  /// The section's kernels and graphs that were read, by name.
  std::map<std::string, Kernel> kernels;

  /// Resolves the functions the plan names, in order.
  void resolve(const std::vector<const Kernel *> &named) {
    for (const Kernel *kernel : named)
      resolved.push_back(Function{const_cast<Kernel *>(kernel)});
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
          Status status =
              kernel->isGraph ? runGraph(*kernel, buffers) : run(*kernel, buffers);
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
    std::vector<CUdeviceptr> pointers;
    for (void *buffer : buffers)
      pointers.push_back(reinterpret_cast<CUdeviceptr>(buffer));
    // The tensor maps, encoded for these buffers, go to device memory of
    // the run (staged in `tensorMaps` until the launch waits for the
    // stream).
    CUdeviceptr maps = 0;
    if (status.ok() && kernel.tensorMapCount) {
      tensorMaps.clear();
      status = encodeTensorMaps(kernel, pointers, scratch, tensorMaps);
      size_t bytes = tensorMaps.size() * sizeof(CudaTensorMap);
      if (status.ok())
        if (CUresult result = d.cuMemAllocAsync(&maps, bytes, stream);
            result != CUDA_SUCCESS)
          status = cudaError(d, "cuMemAllocAsync", result);
      if (status.ok())
        if (CUresult result =
                d.cuMemcpyHtoDAsync(maps, tensorMaps.data(), bytes, stream);
            result != CUDA_SUCCESS)
          status = cudaError(d, "cuMemcpyHtoDAsync", result);
    }
    if (status.ok())
      status = queueLaunches(kernel, pointers, scratch, maps);
    for (CUdeviceptr ptr : scratch)
      if (ptr)
        d.cuMemFreeAsync(ptr, stream);
    if (maps)
      d.cuMemFreeAsync(maps, stream);
    return status;
  }

  /// Appends to `out` the tensor maps of `kernel`'s launches, in order,
  /// of its buffers `pointers` and scratch buffers `scratch`.
  Status encodeTensorMaps(const Kernel &kernel,
                          const std::vector<CUdeviceptr> &pointers,
                          const std::vector<CUdeviceptr> &scratch,
                          std::vector<CudaTensorMap> &out) {
    const Driver &d = *context->driver;
    if (!d.cuTensorMapEncodeTiled)
      return Status::error(MS_UNAVAILABLE,
                           "a cuda kernel loads by TMA, which needs a driver "
                           "for CUDA 12 or newer (cuTensorMapEncodeTiled)");
    for (const Launch &launch : kernel.launches)
      for (const auto &[param, map] : launch.tensorMaps) {
        if (map.buffer >= 0 &&
            static_cast<size_t>(map.buffer) >= pointers.size())
          return Status::error(MS_INVALID_ARGUMENT,
                               "a cuda kernel's tensor map reads buffer " +
                                   std::to_string(map.buffer) +
                                   " but the step passes " +
                                   std::to_string(pointers.size()));
        CUdeviceptr base =
            map.buffer >= 0 ? pointers[map.buffer] : scratch[~map.buffer];
        const std::array<unsigned, 5> unit{1, 1, 1, 1, 1};
        out.emplace_back();
        MS_CUDA_CALL(d, cuTensorMapEncodeTiled, &out.back(), map.dataType,
                     map.rank, reinterpret_cast<void *>(base + map.offset),
                     map.dims.data(), map.strides.data(), map.box.data(),
                     unit.data(), /*interleave=*/0, map.swizzle,
                     /*l2Promotion=*/0, /*oobFill=*/0);
      }
    return Status();
  }

  /// Queues each launch of `kernel` on the stream, its parameters the
  /// kernel's buffers `pointers` and scratch buffers `scratch`, and its
  /// tensor maps from `maps` on (in device memory, encodeTensorMaps'
  /// order).
  Status queueLaunches(const Kernel &kernel,
                       const std::vector<CUdeviceptr> &pointers,
                       const std::vector<CUdeviceptr> &scratch,
                       CUdeviceptr maps) {
    const Driver &d = *context->driver;
    for (const Launch &launch : kernel.launches) {
      // Each parameter is a device pointer; the driver copies the values
      // when the launch is queued (or captured).
      std::vector<CUdeviceptr> values(launch.params.size());
      std::vector<void *> params(launch.params.size());
      std::vector<bool> isMap(launch.params.size(), false);
      for (const auto &map : launch.tensorMaps) {
        values[map.first] = maps;
        params[map.first] = &values[map.first];
        isMap[map.first] = true;
        maps += sizeof(CudaTensorMap);
      }
      for (size_t p = 0; p < launch.params.size(); ++p) {
        if (isMap[p])
          continue;
        int ref = launch.params[p];
        if (ref >= 0 && static_cast<size_t>(ref) >= pointers.size())
          return Status::error(
              MS_INVALID_ARGUMENT,
              "a cuda kernel reads buffer " + std::to_string(ref) +
                  " but the step passes " + std::to_string(pointers.size()));
        values[p] = ref >= 0 ? pointers[ref] : scratch[~ref];
        params[p] = &values[p];
      }
      MS_CUDA_CALL(d, cuLaunchKernel, launch.function, launch.grid[0],
                   launch.grid[1], launch.grid[2], launch.block[0],
                   launch.block[1], launch.block[2], launch.sharedBytes, stream,
                   params.data(), nullptr);
    }
    return Status();
  }

  /// Launches offloaded graph `graph` on `buffers` as one CUDA graph,
  /// captured on the first run with these addresses.
  Status runGraph(const Kernel &graph, const std::vector<void *> &buffers) {
    std::shared_ptr<GraphInstance> instance = graph.graphs->find(buffers);
    if (!instance) {
      MS_RETURN_IF_ERROR(capture(graph, buffers, instance));
      graph.graphs->add(instance);
    }
    // Waited for while `instance` is held: another queue may evict it from
    // the cache meanwhile, and its scratch must outlive the run.
    MS_CUDA_CALL(*context->driver, cuGraphLaunch, instance->exec, stream);
    MS_CUDA_CALL(*context->driver, cuStreamSynchronize, stream);
    return Status();
  }

  /// Captures `graph`'s nodes on `buffers` from the stream and instantiates
  /// them, with scratch of the graph's own.
  Status capture(const Kernel &graph, const std::vector<void *> &buffers,
                 std::shared_ptr<GraphInstance> &out) {
    const Driver &d = *context->driver;
    auto instance = std::make_shared<GraphInstance>();
    instance->context = context;
    instance->buffers = buffers;
    if (graph.graphScratch)
      MS_CUDA_CALL(d, cuMemAlloc, &instance->scratch, graph.graphScratch);
    // Every node's buffers first: nothing can fail while capturing but the
    // driver.
    std::vector<std::vector<CUdeviceptr>> pointers;
    for (const GraphNode &node : graph.nodes) {
      pointers.emplace_back();
      for (const GraphRef &ref : node.args) {
        if (ref.argument >= buffers.size())
          return Status::error(MS_INVALID_ARGUMENT,
                               "a cuda graph reads argument " +
                                   std::to_string(ref.argument) +
                                   " but the step passes " +
                                   std::to_string(buffers.size()));
        pointers.back().push_back(
            reinterpret_cast<CUdeviceptr>(buffers[ref.argument]) + ref.offset);
      }
    }
    // The nodes' tensor maps, encoded for these buffers, in device memory
    // of the graph's own, copied there before the capture.
    std::vector<std::vector<CUdeviceptr>> nodeScratch;
    std::vector<CUdeviceptr> nodeMaps;
    std::vector<CudaTensorMap> maps;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      const GraphNode &node = graph.nodes[n];
      nodeScratch.emplace_back();
      nodeMaps.push_back(maps.size() * sizeof(CudaTensorMap));
      if (!node.kernel)
        continue;
      std::vector<uint64_t> offsets = scratchOffsets(*node.kernel);
      for (size_t i = 0; i + 1 < offsets.size(); ++i)
        nodeScratch.back().push_back(instance->scratch + offsets[i]);
      if (node.kernel->tensorMapCount)
        MS_RETURN_IF_ERROR(encodeTensorMaps(*node.kernel, pointers[n],
                                            nodeScratch.back(), maps));
    }
    if (!maps.empty()) {
      size_t bytes = maps.size() * sizeof(CudaTensorMap);
      MS_CUDA_CALL(d, cuMemAlloc, &instance->tensorMaps, bytes);
      MS_CUDA_CALL(d, cuMemcpyHtoDAsync, instance->tensorMaps, maps.data(),
                   bytes, stream);
      MS_CUDA_CALL(d, cuStreamSynchronize, stream);
    }
    MS_CUDA_CALL(d, cuStreamBeginCapture, stream,
                 CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
    Status status;
    for (size_t n = 0; n < graph.nodes.size() && status.ok(); ++n) {
      const GraphNode &node = graph.nodes[n];
      if (!node.kernel) {
        if (!node.copyBytes)
          continue;
        if (CUresult result = d.cuMemcpyDtoDAsync(
                pointers[n][1], pointers[n][0], node.copyBytes, stream);
            result != CUDA_SUCCESS)
          status = cudaError(d, "cuMemcpyDtoDAsync", result);
        continue;
      }
      status = queueLaunches(*node.kernel, pointers[n], nodeScratch[n],
                             instance->tensorMaps + nodeMaps[n]);
    }
    // The capture ends whatever happened, or the stream stays in it.
    CUgraph captured = nullptr;
    if (CUresult result = d.cuStreamEndCapture(stream, &captured);
        result != CUDA_SUCCESS && status.ok())
      status = cudaError(d, "cuStreamEndCapture", result);
    if (status.ok())
      if (CUresult result = d.cuGraphInstantiate(&instance->exec, captured, 0);
          result != CUDA_SUCCESS)
        status = cudaError(d, "cuGraphInstantiate", result);
    if (captured)
      d.cuGraphDestroy(captured);
    if (status.ok())
      out = std::move(instance);
    return status;
  }

  std::shared_ptr<CudaContext> context;
  CpuQueue inner;
  CUstream stream = nullptr;
  /// A run's tensor maps on the host, until the stream has copied them.
  std::vector<CudaTensorMap> tensorMaps;
};

class CudaDevice final : public Device {
public:
  CudaDevice(std::shared_ptr<CudaContext> context,
             std::unique_ptr<ThreadPool> pool, std::string architecture)
      : context(std::move(context)), pool(std::move(pool)),
        architecture(std::move(architecture)) {}
  ~CudaDevice() override {
    if (copyStream && context->makeCurrent().ok())
      context->driver->cuStreamDestroy(copyStream);
  }

  ms_device_kind_t kind() const override { return MS_DEVICE_CUDA; }
  const char *name() const override { return "cuda"; }
  const char *arch() const override { return architecture.c_str(); }
  format::SectionKind codeSection() const override {
    return format::SectionKind::CudaPtx;
  }

  Status allocate(size_t size, void **out) override {
    *out = nullptr;
    MS_RETURN_IF_ERROR(context->makeCurrent());
    const Driver &d = *context->driver;
    size_t rounded = format::alignUp(size == 0 ? 1 : size);
    CUdeviceptr ptr = 0;
    CUresult result = d.cuMemAlloc(&ptr, rounded);
    // The pool keeps freed scratch: out of memory, it gives it back first.
    if (result == CUDA_ERROR_OUT_OF_MEMORY && context->memoryPool &&
        d.cuMemPoolTrimTo(context->memoryPool, 0) == CUDA_SUCCESS)
      result = d.cuMemAlloc(&ptr, rounded);
    if (result != CUDA_SUCCESS)
      return Status::error(MS_INTERNAL,
                           "cannot allocate " + std::to_string(size) +
                               " bytes of cuda memory: " +
                               cudaError(d, "cuMemAlloc", result).message());
    // Zeroed on the copy stream and waited for: a memset on the legacy
    // stream is asynchronous, and the queues' and copies' non-blocking
    // streams do not wait for it, so it could land after the first copy
    // into the buffer or a kernel's writes.
    if (Status status = copyAndWait("cuMemsetD8Async",
                                    [&](CUstream stream) {
                                      return d.cuMemsetD8Async(ptr, 0, rounded,
                                                               stream);
                                    });
        !status.ok()) {
      d.cuMemFree(ptr);
      return status;
    }
    *out = reinterpret_cast<void *>(ptr);
    return Status();
  }

  void deallocate(void *ptr) override {
    if (ptr && context->makeCurrent().ok())
      context->driver->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr));
  }

  bool hostVisible() const override { return false; }
  /// Elementwise kernels move 128 bits at a time (ms-cuda-map-to-gpu).
  uint64_t tensorAlignment() const override { return 16; }

  Status copyToDevice(void *dst, const void *src, size_t size) override {
    if (size == 0)
      return Status();
    // From pageable memory cuMemcpyHtoD may return before the bytes reach
    // the device, on the legacy stream the queues' non-blocking streams do
    // not wait for: the copy is waited for on a stream instead.
    return copyAndWait("cuMemcpyHtoDAsync", [&](CUstream stream) {
      return context->driver->cuMemcpyHtoDAsync(
          reinterpret_cast<CUdeviceptr>(dst), src, size, stream);
    });
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
  /// The GPU's compute capability as "sm_90" (arch()).
  std::string architecture;
  /// The stream of copyToDevice, copyOnDevice and copyRowsOnDevice, and its
  /// lock.
  CUstream copyStream = nullptr;
  std::mutex copyMutex;
};

/// Reads a launch's tensor map: `{"buffer": ["arg", i] | ["scratch", j],
/// "offset": bytes, "type": "f16" | "bf16", "dims": [...], "strides":
/// [...], "box": [...], "swizzle": bytes}`, innermost dimension first (1
/// to 5 of them; strides in bytes, but the innermost's; "swizzle" 32, 64
/// or 128, or 0 or absent for none; a box's rows no longer). The driver
/// checks the rest (alignments, strides of 16 bytes) when it encodes the
/// map for a run's buffers.
template <typename ParseBuffer>
Status parseTensorMap(const std::string &where, const Json &json,
                      ParseBuffer &parseBuffer, TensorMapSpec &map) {
  auto fail = [&](const std::string &what) {
    return Status::error(MS_INVALID_ARGUMENT,
                         where + ": tensor map: expected " + what);
  };
  if (!json.is_object() || !json.contains("buffer"))
    return fail("an object with a 'buffer'");
  MS_RETURN_IF_ERROR(parseBuffer(json["buffer"], map.buffer));
  const Json &offset = json.contains("offset") ? json["offset"] : Json();
  if (!offset.is_number_unsigned() || offset.get<uint64_t>() > (1ull << 48))
    return fail("'offset' in bytes");
  map.offset = offset.get<uint64_t>();
  const Json &type = json.contains("type") ? json["type"] : Json();
  if (type == "f16")
    map.dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else if (type == "bf16")
    map.dataType = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  else
    return fail("'type' f16 or bf16");
  uint64_t swizzleBytes = 0;
  if (json.contains("swizzle")) {
    // CUtensorMapSwizzle: none, 32, 64 and 128 bytes.
    const Json &swizzle = json["swizzle"];
    if (!swizzle.is_number_unsigned())
      return fail("'swizzle' of 0, 32, 64 or 128 bytes");
    swizzleBytes = swizzle.get<uint64_t>();
    if (swizzleBytes != 0 && swizzleBytes != 32 && swizzleBytes != 64 &&
        swizzleBytes != 128)
      return fail("'swizzle' of 0, 32, 64 or 128 bytes");
    map.swizzle = swizzleBytes == 0    ? 0
                  : swizzleBytes == 32 ? 1
                  : swizzleBytes == 64 ? 2
                                       : 3;
  }
  const Json &dims = json.contains("dims") ? json["dims"] : Json();
  const Json &strides = json.contains("strides") ? json["strides"] : Json();
  const Json &box = json.contains("box") ? json["box"] : Json();
  if (!dims.is_array() || dims.empty() || dims.size() > map.dims.size())
    return fail("1 to 5 'dims'");
  map.rank = static_cast<unsigned>(dims.size());
  if (!strides.is_array() || strides.size() != dims.size() - 1)
    return fail("a stride for each dimension but the innermost");
  if (!box.is_array() || box.size() != dims.size())
    return fail("a 'box' size for each dimension");
  for (size_t i = 0; i < dims.size(); ++i) {
    if (!dims[i].is_number_unsigned() || !box[i].is_number_unsigned() ||
        dims[i].get<uint64_t>() > (1ull << 32) || box[i].get<uint64_t>() > 256)
      return fail("'dims' of at most 2^32 and 'box' sizes of at most 256");
    map.dims[i] = dims[i].get<uint64_t>();
    map.box[i] = static_cast<unsigned>(box[i].get<uint64_t>());
    if (i + 1 < dims.size()) {
      if (!strides[i].is_number_unsigned() ||
          strides[i].get<uint64_t>() >= (1ull << 40))
        return fail("'strides' below 2^40 bytes");
      map.strides[i] = strides[i].get<uint64_t>();
    }
  }
  // f16 and bf16: 2 bytes an element.
  if (swizzleBytes && map.box[0] * 2 > swizzleBytes)
    return fail("a 'box' row of at most the 'swizzle' (" +
                std::to_string(swizzleBytes) + " bytes), found " +
                std::to_string(map.box[0] * 2));
  return Status();
}

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
  if (json.contains("shared")) {
    // Dynamic shared memory: at most what any GPU gives a block (227 KiB
    // on Hopper); the driver refuses more than the device has.
    const Json &shared = json["shared"];
    if (!shared.is_number_unsigned() || shared.get<uint64_t>() > 232448)
      return Status::error(MS_INVALID_ARGUMENT,
                           where + ": expected 'shared' to be at most "
                                   "232448 bytes");
    launch.sharedBytes = static_cast<unsigned>(shared.get<uint64_t>());
  }
  const Json &args = json.contains("args") ? json["args"] : Json();
  if (!args.is_array())
    return Status::error(MS_INVALID_ARGUMENT, where + ": expected 'args'");
  // A buffer: ["arg", i] or ["scratch", j].
  auto parseBuffer = [&](const Json &arg, int &out) -> Status {
    if (!arg.is_array() || arg.size() != 2 || !arg[0].is_string() ||
        !arg[1].is_number_unsigned() || arg[1].get<uint64_t>() > 0xffff)
      return Status::error(MS_INVALID_ARGUMENT,
                           where + ": expected each argument to be "
                                   "[\"arg\" or \"scratch\", index] or "
                                   "[\"tensor-map\", {...}]");
    int index = static_cast<int>(arg[1].get<uint64_t>());
    std::string kind = arg[0].get<std::string>();
    if (kind == "arg") {
      out = index;
    } else if (kind == "scratch" && static_cast<size_t>(index) < scratchCount) {
      out = ~index;
    } else {
      return Status::error(MS_INVALID_ARGUMENT,
                           where + ": argument ['" + kind + "', " +
                               std::to_string(index) + "] names no buffer");
    }
    return Status();
  };
  for (const Json &arg : args) {
    if (arg.is_array() && arg.size() == 2 && arg[0] == "tensor-map") {
      TensorMapSpec map;
      MS_RETURN_IF_ERROR(parseTensorMap(where, arg[1], parseBuffer, map));
      launch.tensorMaps.push_back({launch.params.size(), map});
      launch.params.push_back(0);
      continue;
    }
    int ref = 0;
    MS_RETURN_IF_ERROR(parseBuffer(arg, ref));
    launch.params.push_back(ref);
  }
  return Status();
}
Status readGraph(const std::string &what, const std::string &where,
                 const Json &kernels, const std::string &name,
                 CudaExecutable &executable, const Kernel *&out);

/// Reads kernel or offloaded graph `name` of the section's `kernels` into
/// `executable` (once), with the kernels a graph runs; `inGraph` when a
/// graph names it (graphs do not nest).
Status readKernel(const std::string &what, const std::string &where,
                  const Json &kernels, const std::string &name, bool inGraph,
                  CudaExecutable &executable, const Kernel *&out) {
  if (auto it = executable.kernels.find(name);
      it != executable.kernels.end()) {
    out = &it->second;
  } else {
    if (!kernels.contains(name))
      return Status::error(MS_NOT_FOUND, what + ": kernel '" + name +
                                             "' not found in the cuda-ptx "
                                             "section");
    const Json &kernelJson = kernels[name];
    std::string kernelWhere = where + ": kernel '" + name + "'";
    if (kernelJson.is_object() && kernelJson.contains("graph")) {
      if (inGraph)
        return Status::error(MS_INVALID_ARGUMENT,
                             where + ": graph '" + name +
                                 "' is a node of a graph");
      return readGraph(what, where, kernels, name, executable, out);
    }
    if (!kernelJson.is_object() || !kernelJson.contains("launches") ||
        !kernelJson["launches"].is_array())
      return Status::error(MS_INVALID_ARGUMENT,
                           kernelWhere + ": expected 'launches'");
    Kernel kernel;
    if (kernelJson.contains("scratch")) {
      const Json &scratch = kernelJson["scratch"];
      if (!scratch.is_array())
        return Status::error(MS_INVALID_ARGUMENT,
                             kernelWhere + ": expected 'scratch' sizes");
      for (const Json &bytes : scratch) {
        if (!bytes.is_number_unsigned() ||
            bytes.get<uint64_t>() > (uint64_t(1) << 48))
          return Status::error(MS_INVALID_ARGUMENT,
                               kernelWhere + ": expected 'scratch' sizes");
        kernel.scratch.push_back(bytes.get<size_t>());
      }
    }
    const Driver &d = *executable.context->driver;
    for (const Json &launchJson : kernelJson["launches"]) {
      Launch launch;
      std::string function;
      MS_RETURN_IF_ERROR(parseLaunch(kernelWhere, launchJson,
                                     kernel.scratch.size(), launch, function));
      if (!executable.module)
        return Status::error(MS_INVALID_ARGUMENT,
                             kernelWhere + ": launches '" + function +
                                 "' but the section has no PTX");
      if (CUresult result = d.cuModuleGetFunction(
              &launch.function, executable.module, function.c_str());
          result != CUDA_SUCCESS)
        return Status::error(
            MS_NOT_FOUND,
            kernelWhere + ": GPU function '" + function +
                "' not found in the PTX: " +
                cudaError(d, "cuModuleGetFunction", result).message());
      // More than 48 KiB of dynamic shared memory is opt-in per function.
      if (launch.sharedBytes > 48 * 1024)
        if (CUresult result = d.cuFuncSetAttribute(
                launch.function,
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(launch.sharedBytes));
            result != CUDA_SUCCESS)
          return Status::error(
              MS_UNAVAILABLE,
              kernelWhere + ": GPU function '" + function + "' needs " +
                  std::to_string(launch.sharedBytes) +
                  " bytes of shared memory a block: " +
                  cudaError(d, "cuFuncSetAttribute", result).message());
      kernel.tensorMapCount += launch.tensorMaps.size();
      kernel.launches.push_back(std::move(launch));
    }
    out = &executable.kernels.emplace(name, std::move(kernel)).first->second;
  }
  if (inGraph && out->isGraph)
    return Status::error(MS_INVALID_ARGUMENT,
                         where + ": graph '" + name + "' is a node of a graph");
  return Status();
}

/// Reads offloaded graph `name`: `{"graph": [nodes]}`, each node
/// `{"kernel": name, "args": [[argument, offset], ...]}` or `{"copy":
/// bytes, "args": [source, destination]}`.
Status readGraph(const std::string &what, const std::string &where,
                 const Json &kernels, const std::string &name,
                 CudaExecutable &executable, const Kernel *&out) {
  std::string graphWhere = where + ": graph '" + name + "'";
  const Json &nodes = kernels[name]["graph"];
  if (!nodes.is_array())
    return Status::error(MS_INVALID_ARGUMENT,
                         graphWhere + ": expected 'graph' to be a list");
  Kernel graph;
  graph.isGraph = true;
  graph.graphs = std::make_unique<GraphCache>();
  for (size_t n = 0; n < nodes.size(); ++n) {
    const Json &json = nodes[n];
    std::string nodeWhere = graphWhere + ": node " + std::to_string(n);
    GraphNode node;
    const Json &args = json.is_object() && json.contains("args")
                           ? json["args"]
                           : Json();
    if (!args.is_array())
      return Status::error(MS_INVALID_ARGUMENT, nodeWhere + ": expected 'args'");
    for (const Json &arg : args) {
      if (!arg.is_array() || arg.size() != 2 || !arg[0].is_number_unsigned() ||
          arg[0].get<uint64_t>() > 0xffff || !arg[1].is_number_unsigned())
        return Status::error(MS_INVALID_ARGUMENT,
                             nodeWhere + ": expected each argument to be "
                                         "[argument, byte offset]");
      node.args.push_back({arg[0].get<size_t>(), arg[1].get<uint64_t>()});
    }
    if (json.contains("copy")) {
      if (!json["copy"].is_number_unsigned() || node.args.size() != 2)
        return Status::error(MS_INVALID_ARGUMENT,
                             nodeWhere + ": expected a copy of a number of "
                                         "bytes between 2 buffers");
      node.copyBytes = json["copy"].get<uint64_t>();
    } else {
      if (!json.contains("kernel") || !json["kernel"].is_string())
        return Status::error(MS_INVALID_ARGUMENT,
                             nodeWhere + ": expected 'kernel' or 'copy'");
      MS_RETURN_IF_ERROR(readKernel(what, where, kernels,
                                    json["kernel"].get<std::string>(),
                                    /*inGraph=*/true, executable, node.kernel));
      graph.graphScratch =
          std::max(graph.graphScratch, scratchOffsets(*node.kernel).back());
    }
    graph.nodes.push_back(std::move(node));
  }
  out = &executable.kernels.emplace(name, std::move(graph)).first->second;
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
    // for this GPU (an architecture newer than the device, say): a module
    // that cannot run here, not a malformed one.
    char log[4096] = {};
    int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                     CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {log, reinterpret_cast<void *>(sizeof(log) - 1)};
    if (CUresult result = d.cuModuleLoadDataEx(&executable->module, ptx.c_str(),
                                               2, options, values);
        result != CUDA_SUCCESS)
      return Status::error(
          MS_UNAVAILABLE,
          where + ": the driver cannot load its PTX (compiled for " +
              section.value("arch", std::string("?")) +
              "): " + cudaError(d, "cuModuleLoadDataEx", result).message() +
              (log[0] ? std::string("\n") + log : std::string()));
  }
  const Json &kernels = section["kernels"];
  std::vector<const Kernel *> named;
  for (const std::string &name : functionNames) {
    const Kernel *kernel = nullptr;
    MS_RETURN_IF_ERROR(readKernel(what, where, kernels, name, /*inGraph=*/false,
                                  *executable, kernel));
    named.push_back(kernel);
  }
  executable->resolve(named);
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
  int major = 0, minor = 0;
  MS_CUDA_CALL(*driver, cuDeviceGetAttribute, &major,
               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, context->device);
  MS_CUDA_CALL(*driver, cuDeviceGetAttribute, &minor,
               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, context->device);
  // Scratch comes from the device's default pool (cuMemAllocAsync), which
  // then keeps what is freed instead of giving it back at every
  // synchronization: after the first run a kernel's scratch costs no
  // driver allocation. (Without the setting the pool only works slower.)
  // (allocate() trims the pool when device memory runs out.)
  uint64_t keep = UINT64_MAX;
  if (driver->cuDeviceGetDefaultMemPool(&context->memoryPool,
                                        context->device) == CUDA_SUCCESS)
    driver->cuMemPoolSetAttribute(context->memoryPool,
                                  CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep);
  else
    context->memoryPool = nullptr;
  std::unique_ptr<ThreadPool> pool;
  MS_RETURN_IF_ERROR(ThreadPool::create(ThreadPool::defaultThreads(), pool));
  out = std::make_shared<CudaDevice>(std::move(context), std::move(pool),
                                     "sm_" + std::to_string(major) +
                                         std::to_string(minor));
  return Status();
}
