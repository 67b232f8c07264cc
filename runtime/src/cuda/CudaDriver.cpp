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
    // The symbol each entry point has in the driver's ABI.
    struct Entry {
      const char *symbol;
      bool ok;
    };
    Driver &d = driver;
    const Entry entries[] = {
        {"cuInit", resolve(library, "cuInit", d.cuInit)},
        {"cuDeviceGetCount",
         resolve(library, "cuDeviceGetCount", d.cuDeviceGetCount)},
        {"cuDeviceGet", resolve(library, "cuDeviceGet", d.cuDeviceGet)},
        {"cuDeviceGetName",
         resolve(library, "cuDeviceGetName", d.cuDeviceGetName)},
        {"cuDevicePrimaryCtxRetain",
         resolve(library, "cuDevicePrimaryCtxRetain",
                 d.cuDevicePrimaryCtxRetain)},
        {"cuDevicePrimaryCtxRelease_v2",
         resolve(library, "cuDevicePrimaryCtxRelease_v2",
                 d.cuDevicePrimaryCtxRelease)},
        {"cuCtxSetCurrent",
         resolve(library, "cuCtxSetCurrent", d.cuCtxSetCurrent)},
        {"cuMemAlloc_v2", resolve(library, "cuMemAlloc_v2", d.cuMemAlloc)},
        {"cuMemFree_v2", resolve(library, "cuMemFree_v2", d.cuMemFree)},
        {"cuMemAllocAsync",
         resolve(library, "cuMemAllocAsync", d.cuMemAllocAsync)},
        {"cuMemFreeAsync",
         resolve(library, "cuMemFreeAsync", d.cuMemFreeAsync)},
        {"cuMemsetD8_v2", resolve(library, "cuMemsetD8_v2", d.cuMemsetD8)},
        {"cuMemcpyHtoD_v2",
         resolve(library, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD)},
        {"cuMemcpyDtoH_v2",
         resolve(library, "cuMemcpyDtoH_v2", d.cuMemcpyDtoH)},
        {"cuMemcpyDtoD_v2",
         resolve(library, "cuMemcpyDtoD_v2", d.cuMemcpyDtoD)},
        {"cuModuleLoadDataEx",
         resolve(library, "cuModuleLoadDataEx", d.cuModuleLoadDataEx)},
        {"cuModuleUnload",
         resolve(library, "cuModuleUnload", d.cuModuleUnload)},
        {"cuModuleGetFunction",
         resolve(library, "cuModuleGetFunction", d.cuModuleGetFunction)},
        {"cuLaunchKernel",
         resolve(library, "cuLaunchKernel", d.cuLaunchKernel)},
        {"cuStreamCreate",
         resolve(library, "cuStreamCreate", d.cuStreamCreate)},
        {"cuStreamDestroy_v2",
         resolve(library, "cuStreamDestroy_v2", d.cuStreamDestroy)},
        {"cuStreamSynchronize",
         resolve(library, "cuStreamSynchronize", d.cuStreamSynchronize)},
        {"cuGetErrorName",
         resolve(library, "cuGetErrorName", d.cuGetErrorName)},
        {"cuGetErrorString",
         resolve(library, "cuGetErrorString", d.cuGetErrorString)},
    };
    for (const Entry &entry : entries)
      if (!entry.ok) {
        failure = std::string("libcuda.so.1 lacks ") + entry.symbol +
                  " (a driver for CUDA 11.2 or newer is needed)";
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
