// RUN: rm -rf %t && split-file %s %t
// RUN: ms-opt %t/timeline.mlir -split-input-file -pass-pipeline='builtin.module(msexec.plan(msexec-simulate{flops=1e10 bandwidth=1e9 launch-overhead=1e-6 link-bandwidth=1e8 link-latency=1e-6}))' -o /dev/null | FileCheck %s
// RUN: ms-opt %t/kinds.mlir -pass-pipeline='builtin.module(msexec.plan(msexec-simulate{flops=1e10 bandwidth=1e9 launch-overhead=1e-6 link-bandwidth=1e8 link-latency=1e-6 trace=%t/kinds.json}))' -o /dev/null | FileCheck %s --check-prefix=KINDS
// RUN: FileCheck %s --check-prefix=TRACE < %t/kinds.json
// RUN: ms-opt %t/attention.mlir -pass-pipeline='builtin.module(msexec.plan(msexec-simulate{trace=%t/attention.json}))' -o /dev/null
// RUN: FileCheck %s --check-prefix=ATTENTION < %t/attention.json
// RUN: ms-opt %t/invalid.mlir -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(msexec.plan(msexec-simulate))' -o /dev/null
// RUN: ms-opt %t/options.mlir -verify-diagnostics -pass-pipeline='builtin.module(msexec.plan(msexec-simulate{preset=tpu-pod}))' -o /dev/null
// RUN: not ms-opt %t/options.mlir -pass-pipeline='builtin.module(msexec.plan(msexec-simulate{flops=-1}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: ms-opt %t/options.mlir -pass-pipeline='builtin.module(msexec.plan(msexec-simulate{preset=cpu}))' -o /dev/null | FileCheck %s --check-prefix=CPU

// The model in these tests: 10 GFLOP/s, 1 GB/s of memory, 1 us per launch,
// links of 100 MB/s and 1 us. @mm is a 50x100 by 100x100 matmul:
// 2 * 50 * 100 * 100 = 1e6 FLOPs (100 us) on 80000 bytes of buffers
// (80 us), 101 us with its launch. @add reads 2 and writes 1 tensor of
// 20000 bytes: 60 us, 61 us with its launch. An all_reduce of 20000 bytes
// over 4 ranks: 2 * 3/4 * 20000 / 1e8 = 300 us plus 2 * 3 latencies, 306 us.

//--- timeline.mlir
// The all_reduce of the first matmul's result runs on queue 1 while the
// second matmul runs on queue 0: queue 0 [0, 101] mm, [101, 202] mm,
// waits for the all_reduce, [407, 468] add; queue 1 [101, 407] all_reduce,
// of which [101, 202] is hidden under the second matmul.
// CHECK: simulated on h100-nvlink (model: 10 GFLOP/s, 1 GB/s memory, 1 us per launch; links 100 MB/s, 1 us): step 468.000 us, compute 263.000 us, communication 306.000 us, hidden 101.000 us (33.0%)
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @mm(%a: tensor<50x100xf32>, %b: tensor<100x100xf32>) -> tensor<50x100xf32> attributes {ms.kernel} {
      %0 = msgraph.matmul %a, %b : (tensor<50x100xf32>, tensor<100x100xf32>) -> tensor<50x100xf32>
      return %0 : tensor<50x100xf32>
    }
    func.func @add(%a: tensor<50x100xf32>, %b: tensor<50x100xf32>) -> tensor<50x100xf32> attributes {ms.kernel} {
      %0 = msgraph.add %a, %b : (tensor<50x100xf32>, tensor<50x100xf32>) -> tensor<50x100xf32>
      return %0 : tensor<50x100xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(1) attributes {ranks = 4 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<50x100xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<50x100xf32>>
  %w = msexec.weight dense<1.0> : tensor<100x100xf32> : !msexec.buffer<tensor<100x100xf32>>
  %h = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %r = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %g = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  msexec.launch @cpu::@mm(%x, %w, %h) : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<100x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
  %e = msexec.signal : !msexec.event
  msexec.wait %e {queue = 1 : i64}
  msexec.collective "all_reduce" %h to %r {reduction = "sum"} {groups = [array<i64: 0, 1, 2, 3>], queue = 1 : i64} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  msexec.launch @cpu::@mm(%x, %w, %g) : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<100x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
  %d = msexec.signal {queue = 1 : i64} : !msexec.event
  msexec.wait %d
  msexec.launch @cpu::@add(%r, %g, %y) : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
}

// -----

// Everything on queue 0: nothing overlaps. [0, 101] mm, [101, 407]
// all_reduce, [407, 468] add.
// CHECK: simulated on h100-nvlink ({{.*}}): step 468.000 us, compute 162.000 us, communication 306.000 us, hidden 0.000 us (0.0%)
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @mm(%a: tensor<50x100xf32>, %b: tensor<100x100xf32>) -> tensor<50x100xf32> attributes {ms.kernel} {
      %0 = msgraph.matmul %a, %b : (tensor<50x100xf32>, tensor<100x100xf32>) -> tensor<50x100xf32>
      return %0 : tensor<50x100xf32>
    }
    func.func @add(%a: tensor<50x100xf32>, %b: tensor<50x100xf32>) -> tensor<50x100xf32> attributes {ms.kernel} {
      %0 = msgraph.add %a, %b : (tensor<50x100xf32>, tensor<50x100xf32>) -> tensor<50x100xf32>
      return %0 : tensor<50x100xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(1) attributes {ranks = 4 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<50x100xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<50x100xf32>>
  %w = msexec.weight dense<1.0> : tensor<100x100xf32> : !msexec.buffer<tensor<100x100xf32>>
  %h = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %r = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  msexec.launch @cpu::@mm(%x, %w, %h) : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<100x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
  msexec.collective "all_reduce" %h to %r {reduction = "sum"} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  msexec.launch @cpu::@add(%r, %x, %y) : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
}

// -----

// Collectives run in plan order across queues, as the runtime runs them:
// the all_reduce on queue 1 starts when the one on queue 0 ends, [306,
// 612], although queue 1 is idle. The launch on queue 2, [0, 101], hides
// 101 us of the first.
// CHECK: simulated on h100-nvlink ({{.*}}): step 612.000 us, compute 101.000 us, communication 612.000 us, hidden 101.000 us (16.5%)
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @mm(%a: tensor<50x100xf32>, %b: tensor<100x100xf32>) -> tensor<50x100xf32> attributes {ms.kernel} {
      %0 = msgraph.matmul %a, %b : (tensor<50x100xf32>, tensor<100x100xf32>) -> tensor<50x100xf32>
      return %0 : tensor<50x100xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(1) attributes {ranks = 4 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<50x100xf32>>
  %w = msexec.weight dense<1.0> : tensor<100x100xf32> : !msexec.buffer<tensor<100x100xf32>>
  %r0 = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %r1 = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %g = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  msexec.collective "all_reduce" %x to %r0 {reduction = "sum"} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  msexec.collective "all_reduce" %x to %r1 {reduction = "sum"} {groups = [array<i64: 0, 1, 2, 3>], queue = 1 : i64} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  msexec.launch @cpu::@mm(%x, %w, %g) {queue = 2 : i64} : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<100x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
}

//--- kinds.mlir
// The cost of each kind of step (the trace gives each span):
//   offload of mm and a copy: 1 + 100 + 40 (2 x 20000 bytes) = 141 us
//   all_slice to 50x100: a local copy of 2 x 20000 bytes, 40 us (compute)
//   all_gather to 200x100: 3/4 * 80000 / 1e8 + 3 latencies = 603 us
//   reduce_scatter from 200x100: 603 us
//   all_to_all of 20000 bytes: 3/4 * 20000 / 1e8 + 3 latencies = 153 us
//   broadcast of 20000 bytes: 20000 / 1e8 + log2(4) latencies = 202 us
// KINDS: simulated on h100-nvlink ({{.*}}): step 1.742 ms, compute 0.181 ms, communication 1.561 ms, hidden 0.000 ms (0.0%)
// TRACE: "displayTimeUnit": "ns"
// TRACE: "name": "process_name"
// TRACE: "name": "rank 0 (simulated on h100-nvlink)"
// TRACE: "name": "thread_name"
// TRACE: "tid": 0
// TRACE: "name": "queue 0"
// TRACE: "name": "offload"
// TRACE-NEXT: "cat": "compute"
// TRACE-NEXT: "ph": "X"
// TRACE-NEXT: "pid": 0
// TRACE-NEXT: "tid": 0
// TRACE-NEXT: "ts": 0
// TRACE-NEXT: "dur": 141
// TRACE-NEXT: "args": {
// TRACE-NEXT: "flops": 1000000
// TRACE-NEXT: "bytes": 120000
// TRACE: "name": "mm"
// TRACE: "ts": 1
// TRACE-NEXT: "dur": 100
// TRACE: "name": "copy"
// TRACE: "ts": 101
// TRACE-NEXT: "dur": 40
// TRACE: "name": "all_slice"
// TRACE-NEXT: "cat": "compute"
// TRACE: "ts": 141
// TRACE-NEXT: "dur": 40
// TRACE: "name": "all_gather"
// TRACE-NEXT: "cat": "communication"
// TRACE: "ts": 181
// TRACE-NEXT: "dur": 603
// TRACE: "bytes": 80000
// TRACE: "name": "reduce_scatter"
// TRACE: "ts": 784
// TRACE-NEXT: "dur": 603
// TRACE: "name": "all_to_all"
// TRACE: "ts": 1387
// TRACE-NEXT: "dur": 153
// TRACE: "name": "broadcast"
// TRACE: "ts": 1540
// TRACE-NEXT: "dur": 202
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @mm(%a: tensor<50x100xf32>, %b: tensor<100x100xf32>) -> tensor<50x100xf32> attributes {ms.kernel} {
      %0 = msgraph.matmul %a, %b : (tensor<50x100xf32>, tensor<100x100xf32>) -> tensor<50x100xf32>
      return %0 : tensor<50x100xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) attributes {ranks = 4 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<50x100xf32>>
  %big = msexec.input 1 "big" : !msexec.buffer<tensor<200x100xf32>>
  %w = msexec.weight dense<1.0> : tensor<100x100xf32> : !msexec.buffer<tensor<100x100xf32>>
  %h = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %c = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %s = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %gathered = msexec.alloc : !msexec.buffer<tensor<200x100xf32>>
  %scattered = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  %exchanged = msexec.alloc : !msexec.buffer<tensor<200x25xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<50x100xf32>>
  msexec.offload {
    msexec.launch @cpu::@mm(%x, %w, %h) : !msexec.buffer<tensor<50x100xf32>>, !msexec.buffer<tensor<100x100xf32>>, !msexec.buffer<tensor<50x100xf32>>
    msexec.copy %h to %c : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  }
  msexec.collective "all_slice" %big to %s {axis = 0 : i64} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<200x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  msexec.collective "all_gather" %c to %gathered {axis = 0 : i64} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<200x100xf32>>
  msexec.collective "reduce_scatter" %gathered to %scattered {axis = 0 : i64, reduction = "sum"} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<200x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
  msexec.collective "all_to_all" %x to %exchanged {split_axis = 1 : i64, concat_axis = 0 : i64} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<200x25xf32>>
  msexec.collective "broadcast" %x to %b {root = 0 : i64} {groups = [array<i64: 0, 1, 2, 3>]} : !msexec.buffer<tensor<50x100xf32>> to !msexec.buffer<tensor<50x100xf32>>
}

//--- invalid.mlir
// After code generation the kernels are binaries: no FLOPs to count.
msexec.binary @cpu target("cpu") format("cpu-elf") data("ELF")
msexec.plan @main target("cpu") opt_level(0) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected kernel @cpu::@k to be a function of msgraph ops (the plan phase), but found no function}}
  msexec.launch @cpu::@k(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}

// -----

// A kernel already lowered to linalg.
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
      %0 = tensor.empty() : tensor<4xf32>
      %1 = linalg.copy ins(%a : tensor<4xf32>) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
      return %1 : tensor<4xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected kernel @cpu::@k to hold msgraph ops (the plan phase), but found linalg.copy}}
  msexec.launch @cpu::@k(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.plan @main target("cpu") opt_level(0) attributes {ranks = 2 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected a collective all_reduce, all_gather, reduce_scatter, all_to_all, all_slice or broadcast, but found 'all_sum'}}
  msexec.collective "all_sum" %x to %y {} {groups = [array<i64: 0, 1>]} : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
}

//--- options.mlir
// An empty plan: the options are checked before anything is simulated.
// expected-error @+1 {{expected a simulation preset (h100-nvlink, h100-pcie, ethernet, cpu), but found 'tpu-pod'}}
msexec.plan @main target("cpu") opt_level(0) {
}
// NEGATIVE: error: expected option 'flops' to be 0 (the preset's) or positive, but found -1{{$}}
// CPU: simulated on cpu (model: 100 GFLOP/s, 15 GB/s memory, 2 us per launch; links 3 GB/s, 50 us): step 0.000 us, compute 0.000 us, communication 0.000 us, hidden 0.000 us (0.0%)

//--- attention.mlir
// Attention's FLOPs: 2 * B * H * (D + Dv) per (query, key) pair a query
// sees. @full: 8 queries x 12 keys, 2 heads, D = Dv = 4: 2 * 2 * 96 * 8 =
// 3072. @causal with offset 4: query i sees min(12, i + 5) keys, 5 + 6 +
// ... + 12 = 68 pairs: 2 * 2 * 68 * 8 = 2176 (the kernel skips the key
// tiles no query of a tile sees).
// ATTENTION: "name": "full"
// ATTENTION: "flops": 3072
// ATTENTION: "name": "causal"
// ATTENTION: "flops": 2176
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @full(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x12x4xf32>, %v: tensor<1x2x12x4xf32>) -> tensor<1x2x8x4xf32> attributes {ms.kernel} {
      %0 = msgraph.attention %q, %k, %v : (tensor<1x2x8x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>) -> tensor<1x2x8x4xf32>
      return %0 : tensor<1x2x8x4xf32>
    }
    func.func @causal(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x12x4xf32>, %v: tensor<1x2x12x4xf32>) -> tensor<1x2x8x4xf32> attributes {ms.kernel} {
      %0 = msgraph.attention %q, %k, %v {is_causal = true, causal_offset = 4 : i64} : (tensor<1x2x8x4xf32>, tensor<1x2x12x4xf32>, tensor<1x2x12x4xf32>) -> tensor<1x2x8x4xf32>
      return %0 : tensor<1x2x8x4xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(1) {
  %q = msexec.input 0 "q" : !msexec.buffer<tensor<1x2x8x4xf32>>
  %k = msexec.input 1 "k" : !msexec.buffer<tensor<1x2x12x4xf32>>
  %v = msexec.input 2 "v" : !msexec.buffer<tensor<1x2x12x4xf32>>
  %a = msexec.alloc : !msexec.buffer<tensor<1x2x8x4xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<1x2x8x4xf32>>
  msexec.launch @cpu::@full(%q, %k, %v, %a) : !msexec.buffer<tensor<1x2x8x4xf32>>, !msexec.buffer<tensor<1x2x12x4xf32>>, !msexec.buffer<tensor<1x2x12x4xf32>>, !msexec.buffer<tensor<1x2x8x4xf32>>
  msexec.launch @cpu::@causal(%q, %k, %v, %b) : !msexec.buffer<tensor<1x2x8x4xf32>>, !msexec.buffer<tensor<1x2x12x4xf32>>, !msexec.buffer<tensor<1x2x12x4xf32>>, !msexec.buffer<tensor<1x2x8x4xf32>>
}
