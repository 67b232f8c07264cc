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
// the same meaning, one call per thread of the launch grid. Everything else
// is checked as a driver would: unknown functions, PTX without a header,
// memory freed twice. MS_FAKE_CUDA_INIT_ERROR=<code> makes cuInit fail.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>

// The entry points have exactly the backend's declared types (CudaDriver.h),
// which -fsanitize=function checks on every call through a pointer.
using namespace ms::rt::impl::cuda;

/// A loaded module: its PTX text.
struct ms::rt::impl::cuda::CUmod_st {
  std::string ptx;
};

namespace {
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2,
                   kInvalidPtx = 218, kNotFound = 500, kNotReady = 600;

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

/// The GPU functions the stand-in runs, by name.
struct Function {
  Body body;
};
const std::map<std::string, Function> &functions() {
  static const std::map<std::string, Function> table = {
      {"ms_test_add", {add}},   {"ms_test_sub", {sub}},
      {"ms_test_mul", {mul}},   {"ms_test_copy", {copy}},
      {"ms_test_relu", {relu}},
  };
  return table;
}

std::mutex mutex;
std::set<void *> allocations;
int contextToken, streamToken;
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
CUresult cuMemAllocAsync(CUdeviceptr *ptr, size_t size, CUstream) {
  return cuMemAlloc_v2(ptr, size);
}
CUresult cuMemFreeAsync(CUdeviceptr ptr, CUstream) { return cuMemFree_v2(ptr); }
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
                              CUstream) {
  return cuMemcpyDtoD_v2(dst, src, size);
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
                        unsigned, CUstream, void **params, void **) {
  if (!function || gy != 1 || gz != 1 || by != 1 || bz != 1)
    return kInvalidValue;
  Body body = reinterpret_cast<Function *>(function)->body;
  for (unsigned thread = 0; thread < gx * bx; ++thread)
    body(thread, params);
  return kSuccess;
}
CUresult cuStreamCreate(CUstream *stream, unsigned) {
  *stream = reinterpret_cast<CUstream>(&streamToken);
  return kSuccess;
}
CUresult cuStreamDestroy_v2(CUstream) { return kSuccess; }
CUresult cuStreamSynchronize(CUstream) { return kSuccess; }
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
  default:
    *name = nullptr;
    return kInvalidValue;
  }
}
CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = error == 100 ? "no CUDA-capable device is detected" : nullptr;
  return *text ? kSuccess : kInvalidValue;
}
}
