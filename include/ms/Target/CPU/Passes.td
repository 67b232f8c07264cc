//===- Passes.td - CPU target passes -----------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CPU_PASSES_TD
#define MS_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUEmitEntryPointsPass : Pass<"ms-cpu-emit-entry-points",
                                  "::mlir::ModuleOp"> {
  let summary = "adds the functions the runtime calls to lowered CPU "
                "executables";
  let description = [{
    Runs once the kernels of `msexec.executable`s with target `cpu` are in
    the LLVM dialect (bare-pointer calling convention). Each kernel that the
    plan launches gets `void ms_<kernel>(void **args)` calling it with
    args[0..n-1]. Each `msexec.offload` region (O2) becomes one function
    `void ms_graph_<i>(void **args)`: args[0] is the weights section,
    args[1] the arena, then the caller's buffers the region uses; it calls
    the region's kernels in order with constant offsets into the weights
    and the arena, and copies with memmove. The region gets `entry`. Kernels
    become internal, so LLVM inlines them into the graph functions.

    ```mlir
    msexec.offload {
      msexec.launch @cpu::@kernel_0(%x, %t) : ...
    }
    // becomes, in the executable:
    llvm.func @ms_graph_0(%args: !llvm.ptr) {
      // %t = arena + offset, %x = args[2]
      llvm.call @kernel_0(%x, %t) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // MS_TARGET_CPU_PASSES_TD
