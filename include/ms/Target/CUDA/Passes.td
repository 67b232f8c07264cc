//===- Passes.td - CUDA target passes ----------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CUDA_PASSES_TD
#define MS_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CUDAMapToGPUPass : Pass<"ms-cuda-map-to-gpu", "::mlir::ModuleOp"> {
  let summary = "runs bufferized kernels' loop nests as GPU kernels";
  let description = [{
    Runs on the module of an `msexec.executable` with target `cuda`, once
    its kernels are bufferized and their linalg ops are loops. Each kernel
    function's body becomes a sequence of `gpu.launch_func`s of functions
    in one `gpu.module @ms_cuda` (the module becomes a
    `gpu.container_module`):

    - a top-level `scf.parallel` (static bounds) is one launch: its
      iterations are linearized, 256 per block, one per thread (the
      innermost loop dimension on adjacent threads, so that neighbouring
      threads touch neighbouring elements), with a bounds check;
    - a run of other top-level ops with effects (sequential loops, stores)
      is one launch of one thread;
    - side-effect-free ops (constants, index arithmetic, views such as
      `memref.subview`) are cloned into each launch that uses them, so that
      every kernel parameter is a memref of the function (an argument) or a
      top-level `memref.alloc` (scratch the runtime allocates per call).

    The GPU functions are named `<kernel>_<i>`. What the pass cannot map is
    an error on the op: a loop with dynamic bounds, a parallel loop with
    reductions, an allocation inside a loop, a value produced by one launch
    and used by another other than through memory.

    ```mlir
    func.func @kernel_0(%a: memref<1000xf32>, %b: memref<1000xf32>) {
      scf.parallel (%i) = (%c0) to (%c1000) step (%c1) { ... }
      return
    }
    // becomes
    func.func @kernel_0(%a: memref<1000xf32>, %b: memref<1000xf32>) {
      gpu.launch_func @ms_cuda::@kernel_0_0 blocks in (%c4, %c1, %c1)
          threads in (%c256, %c1, %c1) args(%a : ..., %b : ...)
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // MS_TARGET_CUDA_PASSES_TD
