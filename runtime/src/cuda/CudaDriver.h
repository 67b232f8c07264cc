//===- CudaDriver.h - the CUDA driver API, opened at run time ---*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The part of the CUDA driver API the cuda backend calls, declared here (no
// cuda.h at build time) and resolved from libcuda.so.1 with dlopen when the
// first cuda device is created, so that the runtime builds, loads and runs
// on machines without an NVIDIA driver.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CUDA_CUDADRIVER_H
#define MS_RUNTIME_CUDA_CUDADRIVER_H

#include "ms/runtime/Runtime.h"

#include <cstddef>
#include <string>

namespace ms::rt::impl::cuda {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUmemoryPool = struct CUmemPoolHandle_st *;

inline constexpr CUresult CUDA_SUCCESS = 0;
/// cuModuleLoadDataEx options: the JIT's error log and its size.
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
/// CUdevice_attribute: the device's compute capability (major, minor).
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
/// cuStreamCreate flag: no implicit synchronization with stream 0.
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
/// CUfunction_attribute: the most dynamic shared memory a launch of the
/// function may ask for (above 48 KiB only once set).
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

/// cuMemcpy2DAsync's description of a copy of rows (CUDA_MEMCPY2D).
struct CudaMemcpy2D {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};
/// CUmemorytype: device memory.
inline constexpr int CU_MEMORYTYPE_DEVICE = 2;
/// cuStreamQuery: work still queued on the stream.
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
/// An allocation found no memory.
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
/// cuStreamBeginCapture mode: only the capturing thread is restricted.
inline constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
/// cuMemPoolSetAttribute: bytes a pool keeps when synchronized (cuuint64_t).
inline constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;

/// A TMA tensor map (CUtensorMap): 128 opaque bytes, 64-byte aligned.
struct alignas(64) CudaTensorMap {
  unsigned char bytes[128];
};
/// CUtensorMapDataType: 16-bit floats.
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;

/// The driver's entry points (the `_v2` ones where the ABI has them).
struct Driver {
  CUresult (*cuInit)(unsigned flags);
  CUresult (*cuDeviceGetCount)(int *count);
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal);
  CUresult (*cuDeviceGetName)(char *name, int length, CUdevice device);
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context, CUdevice device);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device);
  CUresult (*cuCtxSetCurrent)(CUcontext context);
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t size);
  CUresult (*cuMemFree)(CUdeviceptr ptr);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *ptr, size_t size, CUstream stream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr ptr, CUstream stream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr ptr, unsigned char value,
                              size_t count, CUstream stream);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t size,
                                CUstream stream);
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t size);
  CUresult (*cuMemcpyDtoD)(CUdeviceptr dst, CUdeviceptr src, size_t size);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t size,
                                CUstream stream);
  CUresult (*cuMemcpy2DAsync)(const CudaMemcpy2D *copy, CUstream stream);
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned count, int *options, void **values);
  CUresult (*cuModuleUnload)(CUmodule module);
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name);
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute, int value);
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **params, void **extra);
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags);
  CUresult (*cuStreamDestroy)(CUstream stream);
  CUresult (*cuStreamSynchronize)(CUstream stream);
  CUresult (*cuStreamQuery)(CUstream stream);
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode);
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph);
  CUresult (*cuGraphInstantiate)(CUgraphExec *exec, CUgraph graph,
                                 unsigned long long flags);
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream);
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec);
  CUresult (*cuGraphDestroy)(CUgraph graph);
  CUresult (*cuDeviceGetDefaultMemPool)(CUmemoryPool *pool, CUdevice device);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool pool, int attribute,
                                    void *value);
  CUresult (*cuMemPoolTrimTo)(CUmemoryPool pool, size_t keepBytes);
  /// CUDA 12 and newer (null before): a tensor map of a tiled region;
  /// `interleave`, `swizzle`, `l2Promotion` and `oobFill` as the driver's
  /// enums (0: none, none, none, zeros).
  CUresult (*cuTensorMapEncodeTiled)(
      CudaTensorMap *map, int dataType, unsigned rank, void *address,
      const unsigned long long *dims, const unsigned long long *strides,
      const unsigned *box, const unsigned *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill);
  CUresult (*cuGetErrorName)(CUresult error, const char **name);
  CUresult (*cuGetErrorString)(CUresult error, const char **text);
};

/// Opens libcuda.so.1 (once per process) and calls cuInit. Returns the
/// driver, or null with `error` saying why (no driver, an old one, no
/// device).
const Driver *openDriver(std::string &error);

/// A failed driver call as a status: `<call> failed: CUDA_ERROR_... (code N):
/// <the driver's description>`.
Status cudaError(const Driver &driver, const char *call, CUresult result);
} // namespace ms::rt::impl::cuda

#endif // MS_RUNTIME_CUDA_CUDADRIVER_H
