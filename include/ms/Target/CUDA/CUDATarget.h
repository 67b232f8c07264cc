//===- CUDATarget.h - the NVIDIA GPU code generator -------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The `cuda` target backend: kernels lowered through gpu and nvvm to PTX by
// LLVM's NVPTX backend, stored with their launches in a `cuda-ptx` section.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CUDA_CUDATARGET_H
#define MS_TARGET_CUDA_CUDATARGET_H

#include "ms/Target/TargetBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "llvm/Support/JSON.h"

namespace mlir::ms {
/// Registers the `cuda` target backend.
void registerCUDATargetBackend();

/// The PTX ISA feature LLVM's NVPTX backend needs for `arch` ("+ptx80" for
/// sm_90a), or an empty string for an architecture ms does not generate
/// code for.
StringRef getCudaPtxFeatures(StringRef arch);

/// The architecture (--cuda-arch) to generate code for a GPU whose compute
/// capability `deviceArch` names ("sm_90", ms_device_arch): its
/// arch-specific one where ms has it (sm_90a), else its own, else the
/// newest older one (PTX runs on newer GPUs, arch-specific PTX does not);
/// empty for a GPU older than every architecture ms generates code for.
std::string getCudaArchForDevice(StringRef deviceArch);

/// The nodes of `offload` (an offloaded graph of cuda launches) for the
/// cuda-ptx section: `{"graph": [{"kernel": "ms_<kernel>", "args": [[a, o],
/// ...]} | {"copy": bytes, "args": [src, dst]}]}`, where each buffer is
/// argument `a` of the graph step (0 the weights, 1 the arena, then the
/// caller's buffers) plus `o` bytes.
FailureOr<llvm::json::Object> describeCudaGraph(exec::OffloadOp offload);

/// The widest access of a thread to global memory, in bytes (one 128-bit
/// ld/st.global.v4).
constexpr int64_t kCudaVectorBytes = 16;

/// The memref `value` is a view of (through view-like ops), or `value`.
Value getRootMemRef(Value value);

/// The attribute of a gpu.launch asking for at least that many of its
/// blocks resident on a multiprocessor at once (an i32): its outlined
/// kernel gets `nvvm.minctasm`, which caps its registers (ptxas's
/// `.minnctapersm`).
inline constexpr llvm::StringLiteral kMinBlocksPerSmAttrName =
    "ms.min_blocks_per_sm";

/// The alignment of a launch's shared memory, in bytes: TMA's loads write
/// boxes at 128-byte aligned addresses.
constexpr int64_t kTmaSharedAlignment = 128;
/// The alignment of a launch's dynamic shared memory that the driver
/// guarantees, in bytes (a larger one that the array asks for is not
/// honored once static shared variables come first).
constexpr int64_t kDynamicSharedAlignment = 16;
/// The alignment of tiles loaded by swizzled TMA boxes, in bytes: the
/// boxes are written in patterns of 8 rows of up to 128 bytes, which start
/// at multiples of their size (ms-cuda-tile-matmul aligns its tiles in
/// dynamic shared memory at run time).
constexpr int64_t kSwizzledSharedAlignment = 1024;

/// The swizzle of a TMA box (and of the wgmma descriptors reading it) whose
/// rows are `rowBytes` long: 32, 64 or 128.
nvgpu::TensorMapSwizzleKind getTmaSwizzleKind(int64_t rowBytes);

/// The row length in bytes that `swizzle` permutes within (32, 64 or 128),
/// 0 for no swizzle; getTmaSwizzleKind's inverse.
int64_t getTmaSwizzleBytes(nvgpu::TensorMapSwizzleKind swizzle);

/// The most elements (a power of two, at most kCudaVectorBytes) one access
/// of `memref` can take at once along its last dimension, at an index that
/// is a multiple of it (the other indices any): the last dimension must
/// have unit stride and ints or floats of 8 to 64 bits, and the offset
/// (static, or dynamic through subviews: a multiple of each dynamic
/// offset's stride and of each static offset times its stride), every
/// other stride and the alignment of a global it reads must keep each
/// group aligned to its size; 0 when not (an offset of no known multiple,
/// a dynamic stride, a view shifting the base by bytes).
int64_t getAlignedVectorWidth(Value memref);

/// Whether `op` can run on vectors of its values as it runs on each:
/// elementwise-mappable, on ints, indices and floats only.
bool isElementwiseOnScalars(Operation *op);

/// The `width` indices from `first` on, as one vector: `first + [0, width)`.
Value getIndexVector(OpBuilder &builder, Location loc, Value first,
                     int64_t width);

/// `value` as a vector of `width` elements: itself when it is one, else
/// broadcast.
Value broadcastToWidth(OpBuilder &builder, Location loc, Value value,
                       int64_t width);

/// Clones `op` with its operands mapped in `mapping`, and maps its results
/// to the clone's: as the same op on vectors of `width` elements where an
/// operand is mapped to a vector (isElementwiseOnScalars must allow it; the
/// other operands are broadcast), else as it is.
void cloneOnVectors(OpBuilder &builder, Operation &op, IRMapping &mapping,
                    int64_t width);

#define GEN_PASS_DECL
#include "ms/Target/CUDA/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

#endif // MS_TARGET_CUDA_CUDATARGET_H
