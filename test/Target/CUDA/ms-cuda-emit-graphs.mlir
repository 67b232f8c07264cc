// RUN: ms-opt %s -split-input-file -ms-cuda-emit-graphs -verify-diagnostics | FileCheck %s

// Each offloaded region of a cuda plan is named, in plan order; the
// kernels and the plan's other steps are left as they are.
// CHECK-LABEL: msexec.plan @main
// CHECK: msexec.offload attributes {entry = "ms_graph_0"}
// CHECK: msexec.launch @cuda::@kernel_0
// CHECK: msexec.copy
// CHECK: msexec.offload attributes {entry = "ms_graph_1", queue = 1 : i64}
// CHECK: msexec.launch @cuda::@kernel_0
msexec.executable @cuda target("cuda") {
  builtin.module {
    func.func @kernel_0(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
      return
    }
  }
}
msexec.plan @main target("cuda") opt_level(2) attributes {arena_size = 192 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %w = msexec.weight dense<1.0> : tensor<4xf32> {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %t = msexec.alloc {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cuda::@kernel_0(%x, %w, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.copy %t to %y : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
  }
  msexec.offload attributes {queue = 1 : i64} {
    msexec.launch @cuda::@kernel_0(%x, %t, %y) {queue = 1 : i64} : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}

// -----

// A cpu plan's offloaded graphs are the cpu target's.
// CHECK-LABEL: msexec.plan @main
// CHECK: msexec.offload {
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cpu::@kernel_0(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}

// -----

msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cuda") opt_level(2) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    // expected-error @below {{expected the launches of an offloaded graph of a cuda plan to be of cuda kernels, but found one of target 'cpu'}}
    msexec.launch @cpu::@kernel_0(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}

// -----

msexec.executable @cuda target("cuda") {
  builtin.module {
    func.func @kernel_0(%a: memref<4xf32>, %b: memref<4xf32>) {
      return
    }
  }
}
msexec.plan @main target("cuda") opt_level(2) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %t = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    // expected-error @below {{expected a placed buffer in an offloaded graph (run msexec-plan-memory first)}}
    msexec.launch @cuda::@kernel_0(%x, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}

// -----

msexec.executable @cuda target("cuda") {
  builtin.module {
    func.func @kernel_0(%a: memref<4xf32>, %b: memref<4xf32>) {
      return
    }
  }
}
msexec.executable @cuda_1 target("cuda") {
  builtin.module {
    func.func @kernel_0(%a: memref<4xf32>, %b: memref<4xf32>) {
      return
    }
  }
}
msexec.plan @main target("cuda") opt_level(2) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cuda::@kernel_0(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    // expected-error @below {{expected the launches of an offloaded graph to be of one executable, but found @cuda and @cuda_1}}
    msexec.launch @cuda_1::@kernel_0(%y, %x) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}
