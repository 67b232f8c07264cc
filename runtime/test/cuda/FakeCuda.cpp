//===- FakeCuda.cpp - a CUDA driver stand-in for the runtime tests --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Built as libcuda.so.1 in its own directory; the cuda backend tests load it
// through LD_LIBRARY_PATH on machines without a GPU. It implements the
// driver calls the backend makes on host memory, synchronously, and runs
// the GPU functions of loaded PTX with an interpreter (PtxInterpreter.h):
// the test kernels' and those ms generates, so that their results are
// checked without a GPU. A kernel touching memory outside every allocation
// fails its launch; so does a copy or fill whose device side lies outside
// one. Streams can be captured into graphs: a captured launch
// or copy is recorded instead of run, and cuGraphLaunch runs the records;
// msFakeCudaCounts tells a test how many captures, graph launches and kernel
// launches there were. Everything else is checked as a driver would: unknown
// functions, PTX without a header (or that the interpreter cannot run),
// memory freed twice, a synchronization or an allocation on a capturing
// stream. MS_FAKE_CUDA_INIT_ERROR=<code> makes cuInit fail;
// MS_FAKE_CUDA_MAX_STEPS=<n> bounds the instructions of a launch (2e10);
// MS_FAKE_CUDA_RACES=0 turns off the checks for data races on shared
// memory (SharedRaces.h) and on global memory between a launch's blocks
// (GlobalRaces.h), which fail a launch as a fault would;
// MS_FAKE_CUDA_COMPUTE_CAPABILITY=<major>.<minor> is the GPU's (9.0, an
// H100's, by default), and PTX whose .target it cannot run does not load.
//
//===----------------------------------------------------------------------===//

#include "PtxInterpreter.h"
#include "cuda/CudaDriver.h"

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
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

/// The dynamic shared memory a block may have without opting in, and with
/// (an H100's).
constexpr unsigned kDefaultDynamicShared = 48 * 1024,
                   kMaxDynamicShared = 227 * 1024;

/// A GPU function of a loaded module.
struct ms::rt::impl::cuda::CUfunc_st {
  const ms::fakecuda::PtxModule *module;
  std::string name;
  /// Its parameters' byte sizes.
  std::vector<size_t> params;
  /// The most dynamic shared memory a launch may ask for
  /// (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES).
  unsigned maxDynamicShared = kDefaultDynamicShared;
};

/// A loaded module: its parsed PTX and the functions looked up in it.
struct ms::rt::impl::cuda::CUmod_st {
  std::unique_ptr<ms::fakecuda::PtxModule> program;
  std::vector<std::unique_ptr<CUfunc_st>> functions;
};

/// Work recorded by a capture: launches and copies, in order.
struct ms::rt::impl::cuda::CUgraph_st {
  std::vector<std::function<CUresult()>> work;
};
struct ms::rt::impl::cuda::CUgraphExec_st {
  std::vector<std::function<CUresult()>> work;
};

/// A stream; while capturing, its work goes to `capture`.
struct ms::rt::impl::cuda::CUstream_st {
  CUgraph capture = nullptr;
};

namespace {
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2,
                   kInvalidPtx = 218, kNotFound = 500, kNotReady = 600,
                   kIllegalAddress = 700, kNotSupported = 801,
                   kCaptureUnsupported = 900, kCaptureInvalidated = 901;

std::mutex mutex;
/// Live allocations: address to size.
std::map<uint64_t, size_t> allocations;

/// Whether a kernel or a copy may touch [address, address + size) of device
/// memory: it lies in one live allocation (nothing to touch is fine).
bool isAllocated(uint64_t address, size_t size) {
  if (size == 0)
    return true;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin())
    return false;
  --it;
  uint64_t end = it->first + it->second;
  return address < end && size <= end - address;
}

/// Whether the rows `copy` reads (`source`) or writes lie in one allocation.
bool rowsAllocated(const CudaMemcpy2D &copy, bool source) {
  uint64_t base = source ? copy.srcDevice : copy.dstDevice;
  uint64_t x = source ? copy.srcXInBytes : copy.dstXInBytes;
  uint64_t y = source ? copy.srcY : copy.dstY;
  uint64_t pitch = source ? copy.srcPitch : copy.dstPitch;
  uint64_t start = 0, span = 0;
  if (__builtin_mul_overflow(y, pitch, &start) ||
      __builtin_add_overflow(start, x, &start) ||
      __builtin_add_overflow(start, base, &start) ||
      __builtin_mul_overflow(copy.Height - 1, pitch, &span) ||
      __builtin_add_overflow(span, copy.WidthInBytes, &span))
    return false;
  return isAllocated(start, span);
}
int contextToken, poolToken;
/// What msFakeCudaCounts reports.
std::atomic<long long> captures{0}, graphLaunches{0}, kernelLaunches{0};

/// Runs `work` now, or records it when `stream` is capturing.
CUresult runOrRecord(CUstream stream, std::function<CUresult()> work) {
  if (stream && stream->capture) {
    stream->capture->work.push_back(std::move(work));
    return kSuccess;
  }
  return work();
}

/// The stand-in GPU's compute capability as major * 10 + minor
/// (MS_FAKE_CUDA_COMPUTE_CAPABILITY, 9.0 by default).
int computeCapability() {
  const char *text = std::getenv("MS_FAKE_CUDA_COMPUTE_CAPABILITY");
  unsigned major = 9, minor = 0;
  if (text && std::sscanf(text, "%u.%u", &major, &minor) != 2)
    major = 9, minor = 0;
  return static_cast<int>(major * 10 + minor);
}

/// Why a GPU of compute capability `capability` (major * 10 + minor)
/// cannot run `ptx`, or "": a .target sm_XY needs X.Y or newer, sm_XYa
/// exactly X.Y.
std::string targetError(const std::string &ptx, int capability) {
  size_t at = ptx.find(".target sm_");
  if (at == std::string::npos)
    return "";
  at += 11;
  size_t end = at;
  while (end < ptx.size() && std::isdigit(static_cast<unsigned char>(ptx[end])))
    ++end;
  if (end == at)
    return "";
  int version = std::stoi(ptx.substr(at, end - at));
  bool specific = end < ptx.size() && ptx[end] == 'a';
  if (specific ? version == capability : version <= capability)
    return "";
  return "ptxas fatal: .target sm_" + ptx.substr(at, end - at + specific) +
         " is not supported by this GPU (compute capability " +
         std::to_string(capability / 10) + "." +
         std::to_string(capability % 10) + ")";
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
CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device) {
  if (!value || device != 0)
    return kInvalidValue;
  if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *value = computeCapability() / 10;
  else if (attribute == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *value = computeCapability() % 10;
  else
    return kInvalidValue;
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
  allocations[reinterpret_cast<uint64_t>(memory)] = size;
  *ptr = reinterpret_cast<CUdeviceptr>(memory);
  return kSuccess;
}
/// Encodes the stand-in's tensor map (FakeTensorMap), checking what the
/// driver documents: a 64-byte aligned map, 1 to 5 dimensions of 1 to 2^32
/// elements, a 16-byte aligned address, strides of multiples of 16 bytes
/// below 2^40, boxes of 1 to 256 elements (the innermost of multiples of
/// 16 bytes), element strides of 1 to 8, a swizzle no shorter than the
/// box's rows. It implements no interleave, element strides of 1 only,
/// zeros past the end and swizzles whose rows the box's fill exactly, and
/// refuses the rest rather than load them wrongly.
CUresult cuTensorMapEncodeTiled(ms::rt::impl::cuda::CudaTensorMap *map,
                                int dataType, unsigned rank, void *address,
                                const unsigned long long *dims,
                                const unsigned long long *strides,
                                const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int /*l2Promotion*/, int oobFill) {
  // CUtensorMapDataType's sizes: uint8, uint16, uint32, int32, uint64,
  // int64, float16, float32, float64, bfloat16, float32_ftz, tfloat32,
  // tfloat32_ftz.
  static const uint32_t elementBytes[] = {1, 2, 4, 4, 8, 8, 2,
                                          4, 8, 2, 4, 4, 4};
  uint64_t at = reinterpret_cast<uint64_t>(address);
  if (!map || reinterpret_cast<uint64_t>(map) % 64 || dataType < 0 ||
      dataType >= 13 || rank < 1 || rank > 5 || at % 16 || !dims || !box ||
      !elementStrides || (rank > 1 && !strides))
    return kInvalidValue;
  ms::fakecuda::FakeTensorMap encoded;
  encoded.magic = ms::fakecuda::FakeTensorMap::kMagic;
  encoded.dataType = static_cast<uint32_t>(dataType);
  encoded.rank = rank;
  encoded.elementBytes = elementBytes[dataType];
  encoded.address = at;
  encoded.strides[0] = encoded.elementBytes;
  for (unsigned d = 0; d < rank; ++d) {
    if (dims[d] == 0 || dims[d] > (1ull << 32) || box[d] == 0 || box[d] > 256 ||
        elementStrides[d] == 0 || elementStrides[d] > 8)
      return kInvalidValue;
    if (d > 0 && (strides[d - 1] % 16 || strides[d - 1] >= (1ull << 40)))
      return kInvalidValue;
    encoded.dims[d] = dims[d];
    encoded.box[d] = box[d];
    if (d > 0)
      encoded.strides[d] = strides[d - 1];
  }
  if (box[0] * encoded.elementBytes % 16)
    return kInvalidValue;
  bool unitStrides = true;
  for (unsigned d = 1; d < rank; ++d)
    unitStrides &= elementStrides[d] == 1;
  // CUtensorMapSwizzle: none, 32, 64 or 128 bytes.
  if (swizzle < 0 || swizzle > 3)
    return kInvalidValue;
  uint32_t rowBytes = box[0] * encoded.elementBytes;
  encoded.swizzleBytes = swizzle ? 16u << swizzle : 0;
  if (swizzle && rowBytes > encoded.swizzleBytes)
    return kInvalidValue;
  if (interleave != 0 || oobFill != 0 || !unitStrides ||
      (swizzle && rowBytes != encoded.swizzleBytes))
    return kNotSupported;
  std::memcpy(map->bytes, &encoded, sizeof(encoded));
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  void *memory = reinterpret_cast<void *>(ptr);
  std::lock_guard<std::mutex> lock(mutex);
  if (!allocations.erase(reinterpret_cast<uint64_t>(memory)))
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
CUresult cuMemsetD8Async(CUdeviceptr ptr, unsigned char value, size_t count,
                         CUstream stream) {
  if (!isAllocated(ptr, count))
    return kInvalidValue;
  return runOrRecord(stream, [=] {
    std::memset(reinterpret_cast<void *>(ptr), value, count);
    return kSuccess;
  });
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t size,
                              CUstream stream) {
  return runOrRecord(stream, [=] {
    if (!isAllocated(dst, size))
      return kInvalidValue;
    std::memmove(reinterpret_cast<void *>(dst), src, size);
    return kSuccess;
  });
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t size) {
  if (!isAllocated(src, size))
    return kInvalidValue;
  std::memmove(dst, reinterpret_cast<const void *>(src), size);
  return kSuccess;
}
CUresult cuMemcpy2DAsync_v2(const CudaMemcpy2D *copy, CUstream) {
  if (!copy || copy->srcMemoryType != CU_MEMORYTYPE_DEVICE ||
      copy->dstMemoryType != CU_MEMORYTYPE_DEVICE ||
      copy->WidthInBytes > copy->srcPitch ||
      copy->WidthInBytes > copy->dstPitch)
    return kInvalidValue;
  if (copy->Height > 0 &&
      (!rowsAllocated(*copy, true) || !rowsAllocated(*copy, false)))
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
  if (!isAllocated(dst, size) || !isAllocated(src, size))
    return kInvalidValue;
  std::memmove(reinterpret_cast<void *>(dst),
               reinterpret_cast<const void *>(src), size);
  return kSuccess;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t size,
                              CUstream stream) {
  return runOrRecord(stream, [=] { return cuMemcpyDtoD_v2(dst, src, size); });
}
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned count,
                            int *options, void **values) {
  std::string ptx = static_cast<const char *>(image);
  std::string error;
  std::unique_ptr<ms::fakecuda::PtxModule> program;
  if (ptx.find(".version") == std::string::npos)
    error = "ptxas fatal: missing .version directive";
  else if (error = targetError(ptx, computeCapability()); error.empty())
    program = ms::fakecuda::PtxModule::parse(ptx, error);
  if (!program) {
    for (unsigned i = 0; i < count; ++i)
      if (options[i] == CU_JIT_ERROR_LOG_BUFFER) {
        size_t room = 0;
        for (unsigned j = 0; j < count; ++j)
          if (options[j] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            room = reinterpret_cast<size_t>(values[j]);
        if (room)
          std::snprintf(static_cast<char *>(values[i]), room, "%s",
                        error.c_str());
      }
    return kInvalidPtx;
  }
  *module = new CUmod_st{std::move(program), {}};
  return kSuccess;
}
CUresult cuModuleUnload(CUmodule module) {
  delete module;
  return kSuccess;
}
CUresult cuModuleGetFunction(CUfunction *function, CUmodule module,
                             const char *name) {
  if (!module->program->hasEntry(name))
    return kNotFound;
  module->functions.push_back(std::make_unique<CUfunc_st>(
      CUfunc_st{module->program.get(), name,
                module->program->getParamSizes(name)}));
  *function = module->functions.back().get();
  return kSuccess;
}
CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value) {
  if (!function ||
      attribute != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
      value < 0 || static_cast<unsigned>(value) > kMaxDynamicShared)
    return kInvalidValue;
  function->maxDynamicShared = static_cast<unsigned>(value);
  return kSuccess;
}
CUresult cuLaunchKernel(CUfunction function, unsigned gx, unsigned gy,
                        unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sharedBytes, CUstream stream, void **params,
                        void **) {
  if (!function || gy != 1 || gz != 1 || by != 1 || bz != 1 || bx == 0 ||
      bx > 1024 || sharedBytes > function->maxDynamicShared)
    return kInvalidValue;
  // The parameters' values are copied now, as a driver does (each at most
  // 8 bytes: pointers and scalars).
  std::vector<uint64_t> values(function->params.size(), 0);
  for (size_t i = 0; i < values.size(); ++i)
    std::memcpy(&values[i], params[i], function->params[i]);
  CUfunction called = function;
  return runOrRecord(stream, [=]() mutable {
    std::vector<void *> pointers;
    for (uint64_t &value : values)
      pointers.push_back(&value);
    ++kernelLaunches;
    // MS_FAKE_CUDA_MAX_STEPS: the most instructions a launch runs (a
    // kernel that loops forever fails instead of hanging the test).
    static const uint64_t maxSteps = [] {
      const char *text = std::getenv("MS_FAKE_CUDA_MAX_STEPS");
      return text ? std::strtoull(text, nullptr, 10) : 20000000000ull;
    }();
    // MS_FAKE_CUDA_RACES=0: no race checks (shared memory, and global
    // memory between blocks).
    static const bool checkRaces = [] {
      const char *text = std::getenv("MS_FAKE_CUDA_RACES");
      return !text || std::string(text) != "0";
    }();
    std::string error = called->module->launch(
        called->name, gx, bx, sharedBytes, pointers.data(), isAllocated,
        maxSteps, checkRaces);
    if (error.empty())
      return kSuccess;
    // Where a device would fault.
    std::fprintf(stderr, "fake cuda: %s\n", error.c_str());
    return kIllegalAddress;
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
  for (const std::function<CUresult()> &work : exec->work)
    if (CUresult result = work())
      return result;
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
  case kIllegalAddress:
    *name = "CUDA_ERROR_ILLEGAL_ADDRESS";
    return kSuccess;
  case kNotSupported:
    *name = "CUDA_ERROR_NOT_SUPPORTED";
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
