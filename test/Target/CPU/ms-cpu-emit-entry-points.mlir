// RUN: ms-opt %s -split-input-file -ms-cpu-emit-entry-points -verify-diagnostics | FileCheck %s

// O0: each launched kernel gets a wrapper taking one pointer array.
// CHECK-LABEL: msexec.executable @cpu
// CHECK: llvm.func internal @kernel_0
// CHECK: llvm.func @ms_kernel_0(%[[ARGS:.+]]: !llvm.ptr)
// CHECK: llvm.getelementptr %[[ARGS]][0]
// CHECK: llvm.getelementptr %[[ARGS]][1]
// CHECK: llvm.call @kernel_0
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}

// -----

// O2: an offloaded graph becomes one function over the weights (args[0]),
// the arena (args[1]) and the caller's buffers (args[2...]); kernels used
// only there get no wrapper.
// CHECK-LABEL: msexec.executable @cpu
// CHECK-NOT: @ms_kernel_0
// CHECK: llvm.func @ms_graph_0(%[[ARGS:.+]]: !llvm.ptr)
// CHECK: %[[W:.+]] = llvm.load
// CHECK: %[[A:.+]] = llvm.load
// CHECK: %[[X:.+]] = llvm.load
// CHECK: %[[Y:.+]] = llvm.load
// CHECK: %[[WOFF:.+]] = llvm.mlir.constant(64 : i64)
// CHECK: %[[WP:.+]] = llvm.getelementptr %[[W]][%[[WOFF]]]
// CHECK: %[[OFF:.+]] = llvm.mlir.constant(128 : i64)
// CHECK: %[[T:.+]] = llvm.getelementptr %[[A]][%[[OFF]]]
// CHECK: llvm.call @kernel_0(%[[X]], %[[WP]], %[[T]])
// CHECK: %[[N:.+]] = llvm.mlir.constant(16 : i64)
// CHECK: "llvm.intr.memmove"(%[[Y]], %[[T]], %[[N]])
// CHECK: msexec.offload attributes {entry = "ms_graph_0"}
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 192 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %w = msexec.weight dense<1.0> : tensor<4xf32> {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %t = msexec.alloc {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cpu::@kernel_0(%x, %w, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.copy %t to %y : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
  }
}

// -----

// A weight in a file is a caller's buffer: the runtime gives its address.
// CHECK-LABEL: msexec.executable @cpu
// CHECK: llvm.func @ms_graph_0(%[[ARGS:.+]]: !llvm.ptr)
// CHECK: llvm.load
// CHECK: llvm.load
// CHECK: %[[X:.+]] = llvm.load
// CHECK: %[[WF:.+]] = llvm.load
// CHECK: %[[Y:.+]] = llvm.load
// CHECK: llvm.call @kernel_0(%[[X]], %[[WF]], %[[Y]])
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %w = msexec.weight dense<1.0> : tensor<4xf32> {file = "/d/w.bin", file_offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cpu::@kernel_0(%x, %w, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}

// -----

msexec.executable @cpu target("cpu") {
  builtin.module {
    // expected-error @+1 {{expected kernel @kernel_0 to take only buffer pointers after lowering, but its signature is '!llvm.func<void (i64)>'}}
    llvm.func @kernel_0(%a: i64) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%x) : !msexec.buffer<tensor<4xf32>>
}

// -----

msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 64 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  // expected-error @+1 {{expected a placed buffer (run msexec-plan-memory first)}}
  %t = msexec.alloc : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cpu::@kernel_0(%t) : !msexec.buffer<tensor<4xf32>>
  }
}
