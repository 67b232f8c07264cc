// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(msexec.plan(msexec-plan-memory))' | FileCheck %s

// A chain: %a (steps 0..1) and %c (steps 2..3) do not overlap and share
// offset 0; %b (steps 1..2) overlaps both. Weights are packed 64-byte
// aligned.
// CHECK-LABEL: msexec.plan @main
// CHECK-SAME: arena_size = 128
// A weight in a file takes no place in the weights section.
// CHECK: msexec.weight {{.*}} {offset = 0 : i64} : <tensor<4xf32>>
// CHECK: msexec.weight {{.*}} {file = "/d/w.bin", file_offset = 128 : i64} : <tensor<8xf32>>
// CHECK: msexec.weight {{.*}} {offset = 64 : i64} : <tensor<20xf32>>
// CHECK: msexec.alloc {offset = 0 : i64} : <tensor<16xf32>>
// CHECK: msexec.alloc {offset = 64 : i64} : <tensor<16xf32>>
// CHECK: msexec.alloc {offset = 0 : i64} : <tensor<16xf32>>
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<16xf32>) -> tensor<16xf32> attributes {ms.kernel} {
      return %a : tensor<16xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<16xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<16xf32>>
  %w0 = msexec.weight dense<1.0> : tensor<4xf32> : !msexec.buffer<tensor<4xf32>>
  %wf = msexec.weight dense<3.0> : tensor<8xf32> {file = "/d/w.bin", file_offset = 128 : i64} : !msexec.buffer<tensor<8xf32>>
  %w1 = msexec.weight dense<2.0> : tensor<20xf32> : !msexec.buffer<tensor<20xf32>>
  %a = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %b = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %c = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%x, %a) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%a, %b) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%b, %c) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%c, %y) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
}

// -----

// A collective on queue 1 runs while queue 0 goes on: its buffers stay live
// until queue 0 waits for it. %c (produced meanwhile on queue 0) must not
// take %p's bytes, although %p's last use comes before it in plan order.
// CHECK-LABEL: msexec.plan @overlap
// CHECK-SAME: arena_size = 192
// CHECK: msexec.alloc {offset = 0 : i64} : <tensor<16xf32>>
// CHECK: msexec.alloc {offset = 64 : i64} : <tensor<16xf32>>
// CHECK: msexec.alloc {offset = 128 : i64} : <tensor<16xf32>>
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<16xf32>) -> tensor<16xf32> attributes {ms.kernel} {
      return %a : tensor<16xf32>
    }
  }
}
msexec.plan @overlap target("cpu") opt_level(0) attributes {ranks = 2 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<16xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<16xf32>>
  %z = msexec.output 1 "z" : !msexec.buffer<tensor<16xf32>>
  %p = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %r = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %c = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%x, %p) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  %ready = msexec.signal : !msexec.event
  msexec.wait %ready {queue = 1 : i64}
  msexec.collective "all_reduce" %p to %r {reduction = "sum"} {groups = [array<i64: 0, 1>], queue = 1 : i64} : <tensor<16xf32>> to <tensor<16xf32>>
  %done = msexec.signal {queue = 1 : i64} : !msexec.event
  msexec.launch @cpu::@k(%x, %c) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.wait %done
  msexec.launch @cpu::@k(%r, %y) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%c, %z) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
}
