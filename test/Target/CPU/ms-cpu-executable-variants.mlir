// RUN: ms-opt %s -split-input-file -ms-cpu-executable-variants='target-cpus=x86-64-v4,x86-64-v3,x86-64' | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-cpu-executable-variants='target-cpus=x86-64-v3' | FileCheck %s --check-prefix=ONE

// Three CPUs: the first keeps the name the plan refers to; the copies
// follow it, best first, each with its CPU and the name of the executable
// the plan refers to (whose entry points it exports too). A name already
// taken gets a unique one. Another target's executable is left alone.
// CHECK: msexec.executable @cpu target("cpu") variant("x86-64-v4") {
// CHECK: func.func @kernel_0
// CHECK: msexec.executable @cpu_1_0 target("cpu") variant("x86-64-v3") attributes {ms.variant_of = @cpu} {
// CHECK: func.func @kernel_0
// CHECK: msexec.executable @cpu_2 target("cpu") variant("x86-64") attributes {ms.variant_of = @cpu} {
// CHECK: func.func @kernel_0
// CHECK: msexec.executable @cpu_1 target("npu") {
// CHECK-NOT: msexec.executable
// CHECK: msexec.plan
// CHECK: msexec.launch @cpu::@kernel_0
// One CPU: nothing changes.
// ONE: msexec.executable @cpu target("cpu") {
// ONE-NOT: variant
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @kernel_0(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
  }
}
msexec.executable @cpu_1 target("npu") {
  builtin.module {
  }
}
msexec.plan @main target("cpu") opt_level(0) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}
