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

// Several CPUs (ms-cpu-executable-variants): the plan launches the first
// copy's kernels; each variant's copy exports the same wrappers, since the
// runtime loads the one copy the host runs by the same names.
// CHECK-LABEL: msexec.executable @cpu target("cpu") variant("x86-64-v4")
// CHECK: llvm.func @ms_kernel_0(
// CHECK: msexec.executable @copy_1 target("cpu") variant("x86-64-v3")
// CHECK: llvm.func @ms_kernel_0(
// CHECK: llvm.call @kernel_0
msexec.executable @cpu target("cpu") variant("x86-64-v4") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.executable @copy_1 target("cpu") variant("x86-64-v3") attributes {ms.variant_of = @cpu} {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) attributes {arena_size = 0 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%x) : !msexec.buffer<tensor<4xf32>>
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

// -----

// Three identical layers (two launches each: the same kernels on each
// layer's weight, through the same scratch buffer) become one body, called
// once per layer with that layer's buffers: an argument per buffer that
// differs between the layers or between the body's steps (the scratch
// buffer %t, written by one launch and read by the next, is one argument;
// each layer's output is the next one's input).
// CHECK-LABEL: msexec.executable @cpu
// CHECK: llvm.func internal @ms_graph_0_body(%[[H:.+]]: !llvm.ptr, %[[W:.+]]: !llvm.ptr, %[[T:.+]]: !llvm.ptr, %[[O:.+]]: !llvm.ptr) attributes {{{.*}}no_inline
// CHECK-NEXT: llvm.call @kernel_0(%[[H]], %[[W]], %[[T]])
// CHECK-NEXT: llvm.call @kernel_1(%[[T]], %[[O]])
// CHECK-NEXT: llvm.return
// CHECK: llvm.func @ms_graph_0(
// CHECK: llvm.load
// CHECK: llvm.load
// CHECK: %[[X:.+]] = llvm.load
// CHECK: %[[Y:.+]] = llvm.load
// CHECK: %[[W0:.+]] = llvm.getelementptr
// CHECK: %[[TP:.+]] = llvm.getelementptr
// CHECK: %[[H1:.+]] = llvm.getelementptr
// CHECK: llvm.call @ms_graph_0_body(%[[X]], %[[W0]], %[[TP]], %[[H1]])
// CHECK: %[[W1:.+]] = llvm.getelementptr
// CHECK: %[[H2:.+]] = llvm.getelementptr
// CHECK: llvm.call @ms_graph_0_body(%[[H1]], %[[W1]], %[[TP]], %[[H2]])
// CHECK: %[[W2:.+]] = llvm.getelementptr
// CHECK: llvm.call @ms_graph_0_body(%[[H2]], %[[W2]], %[[TP]], %[[Y]])
// CHECK-NOT: llvm.call @kernel_
// CHECK: llvm.return
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr, %c: !llvm.ptr) {
      llvm.return
    }
    llvm.func @kernel_1(%a: !llvm.ptr, %b: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 192 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %w0 = msexec.weight dense<1.0> : tensor<4xf32> {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %w1 = msexec.weight dense<2.0> : tensor<4xf32> {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %w2 = msexec.weight dense<3.0> : tensor<4xf32> {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  %t = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %h1 = msexec.alloc {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %h2 = msexec.alloc {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.offload {
    msexec.launch @cpu::@kernel_0(%x, %w0, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.launch @cpu::@kernel_1(%t, %h1) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.launch @cpu::@kernel_0(%h1, %w1, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.launch @cpu::@kernel_1(%t, %h2) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.launch @cpu::@kernel_0(%h2, %w2, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.launch @cpu::@kernel_1(%t, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  }
}
