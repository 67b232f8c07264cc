// Each level and target is a named pipeline that replays ms-compile phase by
// phase.
// RUN: ms-opt %s --ms-cpu-O0='compile-to=graph' | FileCheck %s --check-prefix=GRAPH
// RUN: ms-opt %s --ms-cpu-O0='compile-to=kernels' | FileCheck %s --check-prefix=KERNELS
// RUN: ms-opt %s --ms-cpu-O0='compile-to=plan' | FileCheck %s --check-prefix=PLAN0
// RUN: ms-opt %s --ms-cpu-O0='compile-to=fusion' | FileCheck %s --check-prefix=FUSION0
// RUN: ms-opt %s --ms-cpu-O1='compile-to=fusion' | FileCheck %s --check-prefix=FUSION1
// RUN: ms-opt %s --ms-cpu-O1='compile-to=plan' | FileCheck %s --check-prefix=PLAN1
// RUN: ms-opt %s --ms-cpu-O2='compile-to=plan' | FileCheck %s --check-prefix=PLAN2
// RUN: ms-opt %s --ms-cpu-O2='compile-to=linalg' | FileCheck %s --check-prefix=LINALG
// RUN: ms-opt %s --ms-cpu-O2='compile-to=bufferized' | FileCheck %s --check-prefix=BUF
// RUN: ms-opt %s --ms-cpu-O2='compile-to=llvm' | FileCheck %s --check-prefix=LLVM
// RUN: ms-opt %s --ms-cpu-O2='target-cpu=x86-64' | FileCheck %s --check-prefix=BIN
// The same phase through ms-compile prints the same IR.
// RUN: ms-opt %s --ms-cpu-O2='compile-to=plan' > %t.opt
// RUN: ms-compile %s -O2 --compile-to=plan > %t.compile
// RUN: diff %t.opt %t.compile

// GRAPH: func.func @main(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// KERNELS: call @kernel_0
// PLAN0: msexec.plan @main target("cpu") opt_level(0) attributes {arena_size = 64 : i64}
// PLAN0-NOT: msexec.offload
// FUSION0-NOT: msfusion.group
// FUSION1: msfusion.group
// FUSION1: msgraph.add
// FUSION1: msgraph.neg
// FUSION1: msfusion.yield
// PLAN1: msexec.plan @main target("cpu") opt_level(1)
// PLAN1: msexec.launch @cpu::@fused_0_add_neg({{.*}}) {source_op = "msgraph.add+msgraph.neg"}
// PLAN1-NOT: msexec.launch
// PLAN2: msexec.plan @main target("cpu") opt_level(2)
// PLAN2: msexec.offload {
// PLAN2-NEXT: msexec.launch @cpu::@fused_0_add_neg
// PLAN2-NOT: msexec.launch
// LINALG: linalg.generic
// LINALG-NOT: linalg.generic
// BUF: func.func @fused_0_add_neg(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>)
// LLVM: llvm.func @ms_graph_0
// LLVM: msexec.offload attributes {entry = "ms_graph_0"}
// BIN: msexec.binary @cpu target("cpu") format("cpu-elf")
func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = msgraph.add %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
  %1 = msgraph.neg %0 : tensor<?xf32>
  return %1 : tensor<?xf32>
}

// An unknown phase is an error, not a silent full compile.
// RUN: not ms-opt %s --ms-cpu-O0='compile-to=assembly' 2>&1 | FileCheck %s --check-prefix=PHASE
// PHASE: unknown phase 'assembly'; expected one of graph, dist, fusion, kernels, plan, linalg, bufferized, llvm, llvmir, serialize
