//===- Passes.td - msexec passes ---------------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_TRANSFORMS_PASSES_TD
#define MS_DIALECT_EXEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def BuildPlanPass : Pass<"ms-build-plan", "::mlir::ModuleOp"> {
  let summary = "turns the entry function into an msexec plan and moves the "
                "kernels into an executable";
  let description = [{
    Runs after kernel outlining. The kernels (functions tagged `ms.kernel`)
    move into `msexec.executable @<target>`; the entry function becomes
    `msexec.plan`: arguments become `input` buffers, constants `weight`
    buffers, each kernel call a `launch` with an `alloc` per result, each
    host-executed op a `host` step, and the return binds `output` buffers
    (the producing step writes the caller's output directly; an input, a
    weight or a value returned twice is copied).

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = call @kernel_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    // becomes
    msexec.executable @cpu target("cpu") { module { func.func @kernel_0 ... } }
    msexec.plan @main target("cpu") opt_level(0) {
      %0 = msexec.input 0 "input_0" : !msexec.buffer<tensor<4xf32>>
      %1 = msexec.output 0 "output_0" : !msexec.buffer<tensor<4xf32>>
      msexec.launch @cpu::@kernel_0(%0, %1) : ...
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: @main, or the only public function)">,
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target of the executable">,
    Option<"optLevel", "opt-level", "int64_t", /*default=*/"0",
           "Optimization level recorded in the plan">,
  ];
  let dependentDialects = ["::mlir::ms::exec::ExecDialect"];
}

def PlanMemoryPass : Pass<"msexec-plan-memory", "::mlir::ms::exec::PlanOp"> {
  let summary = "places arena buffers by liveness and weights in the weights "
                "section";
  let description = [{
    Every `alloc` gets an `offset` in the arena so that buffers whose live
    ranges (first to last step using them, in plan order) overlap never
    share bytes: largest first, each at the lowest 64-byte aligned offset
    that fits (MindSpore's SOMAS idea). The plan gets `arena_size`. Every
    `weight` gets its 64-byte aligned `offset` in the weights section.

    ```mlir
    %a = msexec.alloc : !msexec.buffer<tensor<16xf32>>
    // becomes
    %a = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<16xf32>>
    ```
  }];
}

def OffloadGraphPass : Pass<"msexec-offload-graph", "::mlir::ms::exec::PlanOp"> {
  let summary = "wraps each maximal run of launches and copies into one "
                "offloaded graph (O2)";
  let description = [{
    Buffer declarations move to the top of the plan; then every maximal run
    of `launch` and `copy` steps on one queue, not interrupted by a host
    step or an event, becomes one `msexec.offload` region, which the target
    compiles into one function. A plan without host steps becomes one
    offloaded graph.

    ```mlir
    msexec.launch @cpu::@kernel_0(%x, %t) : ...
    msexec.launch @cpu::@kernel_1(%t, %y) : ...
    // becomes
    msexec.offload {
      msexec.launch @cpu::@kernel_0(%x, %t) : ...
      msexec.launch @cpu::@kernel_1(%t, %y) : ...
    }
    ```
  }];
}

#endif // MS_DIALECT_EXEC_TRANSFORMS_PASSES_TD
