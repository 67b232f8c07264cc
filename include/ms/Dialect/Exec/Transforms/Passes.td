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

def OverlapCollectivesPass : Pass<"msexec-overlap-collectives",
                                  "::mlir::ms::exec::PlanOp"> {
  let summary = "runs collectives on a communication queue, overlapping "
                "compute";
  let description = [{
    Runs after `ms-build-plan`, before `msexec-plan-memory`. Every
    collective but `all_slice` (a local copy) moves from queue 0 to queue 1
    (the communication queue,
    which runs them in plan order): queue 0 signals where the collective
    was and queue 1 waits for that; queue 1 signals after it, and queue 0
    waits for that event just before its first later step that reads or
    writes one of the collective's buffers (or at the end of the plan). In
    between, queue 0 computes while the collective communicates; after
    `msdist-multi-copy` that is the next copy's compute.
    `msexec-plan-memory` keeps the collective's buffers live until queue 0
    has waited for it.

    ```mlir
    msexec.launch @cpu::@kernel_0(%x, %p) : ...
    msexec.collective "all_reduce" %p to %r {reduction = "sum"} {groups = ...}
    msexec.launch @cpu::@kernel_1(%y, %q) : ...
    msexec.launch @cpu::@kernel_2(%r, %z) : ...
    // becomes
    msexec.launch @cpu::@kernel_0(%x, %p) : ...
    %0 = msexec.signal : !msexec.event
    msexec.wait %0 {queue = 1 : i64}
    msexec.collective "all_reduce" %p to %r {reduction = "sum"} {groups = ..., queue = 1 : i64}
    %1 = msexec.signal {queue = 1 : i64} : !msexec.event
    msexec.launch @cpu::@kernel_1(%y, %q) : ...
    msexec.wait %1
    msexec.launch @cpu::@kernel_2(%r, %z) : ...
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

def OutlineRepeatedStepsPass
    : Pass<"msexec-outline-repeated-steps", "::mlir::ModuleOp"> {
  let summary = "writes a plan's repeated layers once, as a body that call "
                "steps run";
  let description = [{
    Finds the back-to-back repetition of launches and copies in each plan
    that saves the most steps (the identical layers of a model: the same
    kernels on the same types, each layer on its own weights and arena
    buffers) and writes its first run as an `msexec.body` with one
    argument per distinct tuple of buffers an operand has across the runs
    (a scratch buffer one step writes and the next reads is one argument);
    each run becomes one `msexec.call` binding them. Runs after
    memory planning: the calls run exactly the steps they replace, so
    buffers keep their places. At O0 and O1 a 12-layer model's plan lists
    one layer's launches and 12 calls.

    ```mlir
    msexec.launch @cpu::@kernel_0(%x, %w0, %t0) : ...
    msexec.launch @cpu::@kernel_1(%t0, %y0) : ...
    msexec.launch @cpu::@kernel_0(%y0, %w1, %t1) : ...
    msexec.launch @cpu::@kernel_1(%t1, %y1) : ...
    // becomes (with a third layer, which makes it pay)
    msexec.call @main_body(%x, %w0, %t0, %y0) : ...
    msexec.call @main_body(%y0, %w1, %t1, %y1) : ...
    ```
  }];
}

def SimulatePass : Pass<"msexec-simulate", "::mlir::ms::exec::PlanOp"> {
  let summary = "replays the plan on a modelled machine and prints its step "
                "time and hidden communication";
  let description = [{
    Simulates one run of the plan on one rank of a modelled machine (ranks
    are symmetric, SPMD) and prints the step time (when the last queue
    finishes), the compute time (the sum of kernels, offloaded graphs,
    copies, host steps and local slices), the communication time (the sum
    of collectives) and the part of the communication that compute on
    other queues hides. The numbers are model inputs (`preset`), not
    measurements; docs/Architecture.md, "Simulating a plan", gives them and
    their sources. The IR is not changed.

    Costs: a `launch` takes the launch overhead plus the longer of its
    kernel's FLOPs (counted on its msgraph ops, so the plan must come from
    the plan phase, before code generation) at the device's rate and its
    buffers' bytes at the memory bandwidth; an `offload` the sum of its
    steps plus one launch overhead; a `copy` its source and target bytes at
    the memory bandwidth; a `host` step a fixed time; a `collective` its
    ring algorithm over the link (`all_reduce` 2 (p - 1) / p S / bw +
    2 (p - 1) latency, `all_gather` and `reduce_scatter` (p - 1) / p of the
    full tensor, `all_to_all` (p - 1) / p, `broadcast` S / bw + log2(p)
    latency; `all_slice` is a local copy). Each queue runs its steps in
    plan order; `wait` holds its queue until the event's `signal`, and
    collectives run in plan order across queues, as the runtime does.

    ```mlir
    // msexec-simulate{flops=1e10 bandwidth=1e9 launch-overhead=1e-6
    //                 link-bandwidth=1e8 link-latency=1e-6}
    // @mm: 1e6 FLOPs on 80000 bytes (101 us); the all_reduce of 20000
    // bytes over 4 ranks: 306 us, hidden under the second @mm for 101 us.
    msexec.launch @cpu::@mm(%x, %w, %h) : ...
    %e = msexec.signal : !msexec.event
    msexec.wait %e {queue = 1 : i64}
    msexec.collective "all_reduce" %h to %r {reduction = "sum"}
        {groups = [array<i64: 0, 1, 2, 3>], queue = 1 : i64} : ...
    msexec.launch @cpu::@mm(%x, %w, %g) : ...
    %d = msexec.signal {queue = 1 : i64} : !msexec.event
    msexec.wait %d
    msexec.launch @cpu::@add(%r, %g, %y) : ...
    // prints
    // simulated on h100-nvlink (model: 10 GFLOP/s, 1 GB/s memory, 1 us per
    // launch; links 100 MB/s, 1 us): step 468.000 us, compute 263.000 us,
    // communication 306.000 us, hidden 101.000 us (33.0%)
    ```
  }];
  let options = [
    Option<"preset", "preset", "std::string", /*default=*/"\"h100-nvlink\"",
           "Machine to model, a preset (an unknown name lists them)">,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "Write the simulated timeline to this file as Chrome trace-event "
           "JSON (pid 0: the rank, tid: the queue)">,
    Option<"flops", "flops", "double", /*default=*/"0",
           "Override the preset's device FLOP/s">,
    Option<"bandwidth", "bandwidth", "double", /*default=*/"0",
           "Override the preset's device memory bytes/s">,
    Option<"launchOverhead", "launch-overhead", "double", /*default=*/"0",
           "Override the preset's seconds per kernel launch">,
    Option<"linkBandwidth", "link-bandwidth", "double", /*default=*/"0",
           "Override the preset's link (bus) bytes/s">,
    Option<"linkLatency", "link-latency", "double", /*default=*/"0",
           "Override the preset's link seconds per algorithm step">,
  ];
}

#endif // MS_DIALECT_EXEC_TRANSFORMS_PASSES_TD
