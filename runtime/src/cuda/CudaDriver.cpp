//===- CudaDriver.cpp - the CUDA driver API, opened at run time -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"

#include <dlfcn.h>
#include <mutex>

using ms::rt::Status;
using namespace ms::rt::impl::cuda;

namespace {
/// Resolves `symbol` into `slot`; false when the driver lacks it.
template <typename Fn>
bool resolve(void *library, const char *symbol, Fn &slot) {
  slot = reinterpret_cast<Fn>(dlsym(library, symbol));
  return slot != nullptr;
}
} // namespace

const Driver *ms::rt::impl::cuda::openDriver(std::string &error) {
  static std::once_flag once;
  static Driver driver;
  static std::string failure;
  static bool opened = false;
  std::call_once(once, [] {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char *text = dlerror();
      failure = std::string("cannot load libcuda.so.1 (no NVIDIA driver on "
                            "this machine?): ") +
                (text ? text : "dlopen failed");
      return;
    }
    // Each entry point under its symbol in the driver's ABI; the first
    // one missing is reported.
    Driver &d = driver;
    const char *missing = nullptr;
    auto need = [&](const char *symbol, auto &slot) {
      if (!resolve(library, symbol, slot) && !missing)
        missing = symbol;
    };
    need("cuInit", d.cuInit);
    need("cuDeviceGetCount", d.cuDeviceGetCount);
    need("cuDeviceGet", d.cuDeviceGet);
    need("cuDeviceGetName", d.cuDeviceGetName);
    need("cuDeviceGetAttribute", d.cuDeviceGetAttribute);
    need("cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain);
    need("cuDevicePrimaryCtxRelease_v2", d.cuDevicePrimaryCtxRelease);
    need("cuCtxSetCurrent", d.cuCtxSetCurrent);
    need("cuMemAlloc_v2", d.cuMemAlloc);
    need("cuMemFree_v2", d.cuMemFree);
    need("cuMemAllocAsync", d.cuMemAllocAsync);
    need("cuMemFreeAsync", d.cuMemFreeAsync);
    need("cuMemsetD8Async", d.cuMemsetD8Async);
    need("cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync);
    need("cuMemcpyDtoH_v2", d.cuMemcpyDtoH);
    need("cuMemcpyDtoD_v2", d.cuMemcpyDtoD);
    need("cuMemcpyDtoDAsync_v2", d.cuMemcpyDtoDAsync);
    need("cuMemcpy2DAsync_v2", d.cuMemcpy2DAsync);
    need("cuModuleLoadDataEx", d.cuModuleLoadDataEx);
    need("cuModuleUnload", d.cuModuleUnload);
    need("cuModuleGetFunction", d.cuModuleGetFunction);
    need("cuFuncSetAttribute", d.cuFuncSetAttribute);
    need("cuLaunchKernel", d.cuLaunchKernel);
    need("cuStreamCreate", d.cuStreamCreate);
    need("cuStreamDestroy_v2", d.cuStreamDestroy);
    need("cuStreamSynchronize", d.cuStreamSynchronize);
    need("cuStreamQuery", d.cuStreamQuery);
    need("cuStreamBeginCapture_v2", d.cuStreamBeginCapture);
    need("cuStreamEndCapture", d.cuStreamEndCapture);
    need("cuGraphInstantiateWithFlags", d.cuGraphInstantiate);
    need("cuGraphLaunch", d.cuGraphLaunch);
    need("cuGraphExecDestroy", d.cuGraphExecDestroy);
    need("cuGraphDestroy", d.cuGraphDestroy);
    need("cuDeviceGetDefaultMemPool", d.cuDeviceGetDefaultMemPool);
    need("cuMemPoolSetAttribute", d.cuMemPoolSetAttribute);
    need("cuMemPoolTrimTo", d.cuMemPoolTrimTo);
    need("cuGetErrorName", d.cuGetErrorName);
    need("cuGetErrorString", d.cuGetErrorString);
    // TMA's tensor maps (CUDA 12): only kernels that take them need it.
    resolve(library, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled);
    if (missing) {
      failure = std::string("libcuda.so.1 lacks ") + missing +
                " (a driver for CUDA 11.4 or newer is needed)";
      return;
    }
    if (CUresult result = d.cuInit(0); result != CUDA_SUCCESS) {
      failure = cudaError(d, "cuInit", result).message();
      return;
    }
    opened = true;
  });
  if (!opened) {
    error = failure;
    return nullptr;
  }
  return &driver;
}

Status ms::rt::impl::cuda::cudaError(const Driver &driver, const char *call,
                                     CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName)
    driver.cuGetErrorName(result, &name);
  if (driver.cuGetErrorString)
    driver.cuGetErrorString(result, &text);
  return Status::error(MS_INTERNAL,
                       std::string(call) +
                           " failed: " + (name ? name : "CUDA error") +
                           " (code " + std::to_string(result) + ")" +
                           (text ? std::string(": ") + text : ""));
}
