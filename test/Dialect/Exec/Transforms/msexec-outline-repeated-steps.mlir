// RUN: ms-opt %s -split-input-file -msexec-outline-repeated-steps | FileCheck %s

// Three identical layers (two launches each: the same kernels on each
// layer's weight, through the same scratch buffer) become one body called
// once per layer with that layer's buffers: an argument per buffer that
// differs between the layers or between the body's steps (the scratch
// buffer %t, written by one launch and read by the next, is one argument;
// each layer's output is the next one's input). The steps before and after
// the layers stay.
// CHECK-LABEL: msexec.plan @main
// CHECK: %[[X:.+]] = msexec.input 0
// CHECK: %[[Y:.+]] = msexec.output 0
// CHECK: %[[W0:.+]] = msexec.weight
// CHECK: %[[W1:.+]] = msexec.weight
// CHECK: %[[W2:.+]] = msexec.weight
// CHECK: %[[T:.+]] = msexec.alloc
// CHECK: %[[H0:.+]] = msexec.alloc
// CHECK: msexec.copy %[[X]] to %[[H0]]
// CHECK: %[[H1:.+]] = msexec.alloc
// CHECK: msexec.call @main_body(%[[H0]], %[[W0]], %[[T]], %[[H1]])
// CHECK: %[[H2:.+]] = msexec.alloc
// CHECK: msexec.call @main_body(%[[H1]], %[[W1]], %[[T]], %[[H2]])
// CHECK: msexec.call @main_body(%[[H2]], %[[W2]], %[[T]], %[[H0]])
// CHECK-NEXT: msexec.copy %[[H0]] to %[[Y]]
// CHECK-NOT: msexec.launch
// CHECK: msexec.body @main_body {
// CHECK-NEXT: ^bb0(%[[A:.+]]: !msexec.buffer<tensor<4xf32>>, %[[B:.+]]: !msexec.buffer<tensor<4xf32>>, %[[C:.+]]: !msexec.buffer<tensor<4xf32>>, %[[D:.+]]: !msexec.buffer<tensor<4xf32>>):
// CHECK-NEXT: msexec.launch @cpu::@kernel_0(%[[A]], %[[B]], %[[C]]) {source_op = "msgraph.mul"}
// CHECK-NEXT: msexec.launch @cpu::@kernel_1(%[[C]], %[[D]])
// CHECK-NEXT: }
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
msexec.plan @main target("cpu") opt_level(1) attributes {arena_size = 256 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %w0 = msexec.weight dense<1.0> : tensor<4xf32> {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %w1 = msexec.weight dense<2.0> : tensor<4xf32> {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %w2 = msexec.weight dense<3.0> : tensor<4xf32> {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  %t = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %h0 = msexec.alloc {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.copy %x to %h0 : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%h0, %w0, %t) {source_op = "msgraph.mul"} : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  %h1 = msexec.alloc {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_1(%t, %h1) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%h1, %w1, %t) {source_op = "msgraph.mul"} : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  %h2 = msexec.alloc {offset = 192 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_1(%t, %h2) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%h2, %w2, %t) {source_op = "msgraph.mul"} : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_1(%t, %h0) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.copy %h0 to %y : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
}

// -----

// Three single launches do not pay (three steps would become a body of one
// and three calls); a host step breaks the longer repetition around it: the
// plan stays as it is.
// CHECK-LABEL: msexec.plan @main
// CHECK-NOT: msexec.call
// CHECK-NOT: msexec.body
msexec.executable @cpu target("cpu") {
  builtin.module {
    llvm.func @kernel_0(%a: !llvm.ptr, %b: !llvm.ptr) {
      llvm.return
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) attributes {arena_size = 128 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %a = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %b = msexec.alloc {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %s = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<2xf32>>
  msexec.launch @cpu::@kernel_0(%x, %a) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%a, %b) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%b, %a) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.host "msgraph.string_equal" ins(%a : !msexec.buffer<tensor<4xf32>>) outs(%b : !msexec.buffer<tensor<4xf32>>) {}
  msexec.launch @cpu::@kernel_0(%b, %a) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%a, %b) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%b, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.copy %s to %s : !msexec.buffer<tensor<2xf32>> to !msexec.buffer<tensor<2xf32>>
}

// -----

// The first layer reads one buffer twice (%x as both operands) where the
// others read two: two arguments, bound to %x both in the first call.
// CHECK-LABEL: msexec.plan @main
// CHECK: %[[X:.+]] = msexec.input 0
// CHECK: %[[T:.+]] = msexec.alloc
// CHECK: msexec.call @main_body(%[[X]], %[[X]], %[[T]], %{{.+}})
// CHECK: msexec.body @main_body {
// CHECK-NEXT: ^bb0(%[[A:.+]]: !msexec.buffer<tensor<4xf32>>, %[[B:.+]]: !msexec.buffer<tensor<4xf32>>, %[[C:.+]]: !msexec.buffer<tensor<4xf32>>, %[[D:.+]]: !msexec.buffer<tensor<4xf32>>):
// CHECK-NEXT: msexec.launch @cpu::@kernel_0(%[[A]], %[[B]], %[[C]])
// CHECK-NEXT: msexec.launch @cpu::@kernel_1(%[[C]], %[[D]])
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
msexec.plan @main target("cpu") opt_level(1) attributes {arena_size = 192 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  %w1 = msexec.weight dense<2.0> : tensor<4xf32> {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %w2 = msexec.weight dense<3.0> : tensor<4xf32> {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %t = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  %h1 = msexec.alloc {offset = 64 : i64} : !msexec.buffer<tensor<4xf32>>
  %h2 = msexec.alloc {offset = 128 : i64} : !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%x, %x, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_1(%t, %h1) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%h1, %w1, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_1(%t, %h2) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_0(%h2, %w2, %t) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.launch @cpu::@kernel_1(%t, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}
