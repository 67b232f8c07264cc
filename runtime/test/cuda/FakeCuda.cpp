//===- FakeCuda.cpp - a CUDA driver stand-in for the runtime tests --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Built as libcuda.so.1 in its own directory; the cuda backend tests load it
// through LD_LIBRARY_PATH on machines without a GPU. It implements the
// driver calls the backend makes on host memory, synchronously, and "runs"
// the test kernels' GPU functions (TestBackends.cpp's PTX) with CPU code of
// the same meaning, one call per thread of the launch grid. Streams can be
// captured into graphs: a captured launch or copy is recorded instead of
// run, and cuGraphLaunch runs the records; msFakeCudaCounts tells a test
// how many captures, graph launches and kernel launches there were.
// Everything else is checked as a driver would: unknown functions, PTX
// without a header, memory freed twice, a synchronization or an allocation
// on a capturing stream. MS_FAKE_CUDA_INIT_ERROR=<code> makes cuInit fail.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

// The entry points have exactly the backend's declared types (CudaDriver.h),
// which -fsanitize=function checks on every call through a pointer.
using namespace ms::rt::impl::cuda;

/// A loaded module: its PTX text.
struct ms::rt::impl::cuda::CUmod_st {
  std::string ptx;
};

/// Work recorded by a capture: launches and copies, in order.
struct ms::rt::impl::cuda::CUgraph_st {
  std::vector<std::function<void()>> work;
};
struct ms::rt::impl::cuda::CUgraphExec_st {
  std::vector<std::function<void()>> work;
};

/// A stream; while capturing, its work goes to `capture`.
struct ms::rt::impl::cuda::CUstream_st {
  CUgraph capture = nullptr;
};

namespace {
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2,
                   kInvalidPtx = 218, kNotFound = 500, kNotReady = 600,
                   kCaptureUnsupported = 900, kCaptureInvalidated = 901;

/// A GPU function's stand-in: thread `thread` of a launch with `params`.
using Body = void (*)(unsigned thread, void **params);

float *f32(void **params, int i) {
  return reinterpret_cast<float *>(*static_cast<CUdeviceptr *>(params[i]));
}

void add(unsigned t, void **p) {
  if (t < 4)
    f32(p, 2)[t] = f32(p, 0)[t] + f32(p, 1)[t];
}
void sub(unsigned t, void **p) {
  if (t < 4)
    f32(p, 2)[t] = f32(p, 0)[t] - f32(p, 1)[t];
}
void mul(unsigned t, void **p) {
  if (t < 4)
    f32(p, 2)[t] = f32(p, 0)[t] * f32(p, 1)[t];
}
void copy(unsigned t, void **p) {
  if (t < 4)
    f32(p, 1)[t] = f32(p, 0)[t];
}
void relu(unsigned t, void **p) {
  if (t < 4)
    f32(p, 1)[t] = f32(p, 0)[t] > 0 ? f32(p, 0)[t] : 0.0f;
}

/// The GPU functions the stand-in runs, by name, and their numbers of
/// parameters.
struct Function {
  Body body;
  size_t params;
};
const std::map<std::string, Function> &functions() {
  static const std::map<std::string, Function> table = {
      {"ms_test_add", {add, 3}},   {"ms_test_sub", {sub, 3}},
      {"ms_test_mul", {mul, 3}},   {"ms_test_copy", {copy, 2}},
      {"ms_test_relu", {relu, 2}},
  };
  return table;
}

std::mutex mutex;
std::set<void *> allocations;
int contextToken, poolToken;
/// What msFakeCudaCounts reports.
std::atomic<long long> captures{0}, graphLaunches{0}, kernelLaunches{0};

/// Runs `work` now, or records it when `stream` is capturing.
CUresult runOrRecord(CUstream stream, std::function<void()> work) {
  if (stream && stream->capture) {
    stream->capture->work.push_back(std::move(work));
    return kSuccess;
  }
  work();
  return kSuccess;
}

/// Whether `stream` is capturing (where synchronous work is not allowed).
bool capturing(CUstream stream) { return stream && stream->capture; }
} // namespace

extern "C" {
CUresult cuInit(unsigned) {
  const char *error = std::getenv("MS_FAKE_CUDA_INIT_ERROR");
  return error ? std::atoi(error) : kSuccess;
}
CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return kSuccess;
}
CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  *device = ordinal;
  return ordinal == 0 ? kSuccess : kInvalidValue;
}
CUresult cuDeviceGetName(char *name, int length, CUdevice) {
  std::strncpy(name, "fake", length);
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&contextToken);
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice) { return kSuccess; }
CUresult cuCtxSetCurrent(CUcontext context) {
  return context == reinterpret_cast<CUcontext>(&contextToken) ? kSuccess
                                                               : kInvalidValue;
}
CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t size) {
  void *memory = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (!memory)
    return kOutOfMemory;
  // Fresh device memory is not zeroed: the backend must clear it.
  std::memset(memory, 0xAB, size);
  std::lock_guard<std::mutex> lock(mutex);
  allocations.insert(memory);
  *ptr = reinterpret_cast<CUdeviceptr>(memory);
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  void *memory = reinterpret_cast<void *>(ptr);
  std::lock_guard<std::mutex> lock(mutex);
  if (!allocations.erase(memory))
    return kInvalidValue;
  std::free(memory);
  return kSuccess;
}
CUresult cuMemAllocAsync(CUdeviceptr *ptr, size_t size, CUstream stream) {
  // (A real driver captures it as an allocation node; the backend
  // allocates a graph's scratch before capturing.)
  if (capturing(stream))
    return kCaptureUnsupported;
  return cuMemAlloc_v2(ptr, size);
}
CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream stream) {
  if (capturing(stream))
    return kCaptureUnsupported;
  return cuMemFree_v2(ptr);
}
CUresult cuMemsetD8_v2(CUdeviceptr ptr, unsigned char value, size_t count) {
  std::memset(reinterpret_cast<void *>(ptr), value, count);
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t size) {
  std::memmove(reinterpret_cast<void *>(dst), src, size);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t size) {
  std::memmove(dst, reinterpret_cast<const void *>(src), size);
  return kSuccess;
}
CUresult cuMemcpy2DAsync_v2(const CudaMemcpy2D *copy, CUstream) {
  if (!copy || copy->srcMemoryType != CU_MEMORYTYPE_DEVICE ||
      copy->dstMemoryType != CU_MEMORYTYPE_DEVICE ||
      copy->WidthInBytes > copy->srcPitch ||
      copy->WidthInBytes > copy->dstPitch)
    return kInvalidValue;
  for (size_t row = 0; row < copy->Height; ++row)
    std::memcpy(reinterpret_cast<uint8_t *>(copy->dstDevice) +
                    copy->dstXInBytes + (copy->dstY + row) * copy->dstPitch,
                reinterpret_cast<const uint8_t *>(copy->srcDevice) +
                    copy->srcXInBytes + (copy->srcY + row) * copy->srcPitch,
                copy->WidthInBytes);
  return kSuccess;
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t size) {
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), size);
  return kSuccess;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t size,
                              CUstream stream) {
  return runOrRecord(stream, [=] { cuMemcpyDtoD_v2(dst, src, size); });
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned count,
                            int *options, void **values) {
  std::string ptx = static_cast<const char *>(image);
  if (ptx.find(".version") == std::string::npos) {
    for (unsigned i = 0; i < count; ++i)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
        std::strcpy(static_cast<char *>(values[i]),
                    "ptxas fatal: missing .version directive");
    return kInvalidPtx;
  }
  *module = new CUmod_st{ptx};
  return kSuccess;
}
CUresult cuModuleUnload(CUmodule module) {
  delete module;
  return kSuccess;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  auto it = functions().find(name);
  if (it == functions().end() ||
      module->ptx.find(std::string(".entry ") + name + "(") ==
          std::string::npos)
    return kNotFound;
  *function = reinterpret_cast<CUfunction>(const_cast<Function *>(&it->second));
  return kSuccess;
}
CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned, CUstream stream, void **params, void **) {
  if (!function || gy != 1 || gz != 1 || by != 1 || bz != 1)
    return kInvalidValue;
  const Function &called = *reinterpret_cast<Function *>(function);
  Body body = called.body;
  // The parameters' values are copied now, as a driver does; each is a
  // device pointer (all the test kernels take).
  std::vector<CUdeviceptr> values;
  for (size_t i = 0; i < called.params; ++i)
    values.push_back(*static_cast<CUdeviceptr *>(params[i]));
  return runOrRecord(stream, [=]() mutable {
    std::vector<void *> pointers;
    for (CUdeviceptr &value : values)
      pointers.push_back(&value);
    ++kernelLaunches;
    for (unsigned thread = 0; thread < gx * bx; ++thread)
      body(thread, pointers.data());
  });
}
CUresult cuStreamCreate(CUstream *stream, unsigned) {
  *stream = new CUstream_st;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(CUstream stream) {
  if (capturing(stream))
    return kInvalidValue;
  delete stream;
  return kSuccess;
}
CUresult cuStreamSynchronize(CUstream stream) {
  return capturing(stream) ? kCaptureUnsupported : kSuccess;
}
CUresult cuStreamBeginCapture_v2(CUstream stream, int mode) {
  if (!stream || capturing(stream) || mode < 0 || mode > 2)
    return kInvalidValue;
  stream->capture = new CUgraph_st;
  ++captures;
  return kSuccess;
}
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  if (!capturing(stream))
    return kCaptureInvalidated;
  *graph = stream->capture;
  stream->capture = nullptr;
  return kSuccess;
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph,
                                     unsigned long long) {
  if (!graph)
    return kInvalidValue;
  *exec = new CUgraphExec_st{graph->work};
  return kSuccess;
}
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  if (!exec || capturing(stream))
    return kInvalidValue;
  ++graphLaunches;
  for (const std::function<void()> &work : exec->work)
    work();
  return kSuccess;
}
CUresult cuGraphExecDestroy(CUgraphExec exec) {
  delete exec;
  return kSuccess;
}
CUresult cuGraphDestroy(CUgraph graph) {
  delete graph;
  return kSuccess;
}
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool, CUdevice device) {
  if (device != 0)
    return kInvalidValue;
  *pool = reinterpret_cast<CUmemoryPool>(&poolToken);
  return kSuccess;
}
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t) {
  return pool == reinterpret_cast<CUmemoryPool>(&poolToken) ? kSuccess
                                                           : kInvalidValue;
}
CUresult cuMemPoolSetAttribute(CUmemoryPool pool, int, void *value) {
  return pool == reinterpret_cast<CUmemoryPool>(&poolToken) && value
             ? kSuccess
             : kInvalidValue;
}
CUresult cuStreamQuery(CUstream) {
  // MS_FAKE_CUDA_BUSY_QUERIES=<n>: the first n queries of the process find
  // work still queued.
  static std::atomic<long long> busy{[] {
    const char *text = std::getenv("MS_FAKE_CUDA_BUSY_QUERIES");
    return text ? std::atoll(text) : 0LL;
  }()};
  return busy.fetch_sub(1) > 0 ? kNotReady : kSuccess;
}
CUresult cuGetErrorName(CUresult error, const char **name) {
  switch (error) {
  case kInvalidValue:
    *name = "CUDA_ERROR_INVALID_VALUE";
    return kSuccess;
  case 100:
    *name = "CUDA_ERROR_NO_DEVICE";
    return kSuccess;
  case kInvalidPtx:
    *name = "CUDA_ERROR_INVALID_PTX";
    return kSuccess;
  case kNotFound:
    *name = "CUDA_ERROR_NOT_FOUND";
    return kSuccess;
  case kCaptureUnsupported:
    *name = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
    return kSuccess;
  case kCaptureInvalidated:
    *name = "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED";
    return kSuccess;
  default:
    *name = nullptr;
    return kInvalidValue;
  }
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 100 ? "no CUDA-capable device is detected" : nullptr;
  return *text ? kSuccess : kInvalidValue;
}

/// The stand-in's own: captures begun, graphs launched and kernels run
/// (directly or in a graph) since the process started.
void msFakeCudaCounts(long long *outCaptures, long long *outGraphLaunches,
                      long long *outKernelLaunches) {
  *outCaptures = captures;
  *outGraphLaunches = graphLaunches;
  *outKernelLaunches = kernelLaunches;
}
}
