// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(msexec.plan(msexec-overlap-collectives))' | FileCheck %s

// Each collective moves to queue 1 between a signal of queue 0 and a
// signal of its own; queue 0 goes on with the independent launch and waits
// only before the launch that reads the sum.
// CHECK-LABEL: msexec.plan @main
// CHECK: msexec.launch @cpu::@k(%[[X:.*]], %[[P:[^)]*]])
// CHECK-NEXT: %[[READY:.*]] = msexec.signal : !msexec.event
// CHECK-NEXT: msexec.wait %[[READY]] {queue = 1 : i64}
// CHECK-NEXT: msexec.collective "all_reduce" %[[P]] to %[[R:[^ ]*]] {reduction = "sum"} {groups = [array<i64: 0, 1>], queue = 1 : i64}
// CHECK-NEXT: %[[DONE:.*]] = msexec.signal {queue = 1 : i64} : !msexec.event
// CHECK-NEXT: msexec.launch @cpu::@k(%[[X]], %[[Q:[^)]*]])
// CHECK-NEXT: msexec.wait %[[DONE]]{{$}}
// CHECK-NEXT: msexec.launch @cpu::@k(%[[R]], %{{.*}})
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<16xf32>) -> tensor<16xf32> attributes {ms.kernel} {
      return %a : tensor<16xf32>
    }
  }
}
msexec.plan @main target("cpu") opt_level(0) attributes {ranks = 2 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<16xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<16xf32>>
  %z = msexec.output 1 "z" : !msexec.buffer<tensor<16xf32>>
  %p = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  %r = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%x, %p) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.collective "all_reduce" %p to %r {reduction = "sum"} {groups = [array<i64: 0, 1>]} : <tensor<16xf32>> to <tensor<16xf32>>
  msexec.launch @cpu::@k(%x, %z) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
  msexec.launch @cpu::@k(%r, %y) : !msexec.buffer<tensor<16xf32>>, !msexec.buffer<tensor<16xf32>>
}

// -----

// A collective whose result only a later collective reads, and a last one
// that nothing on queue 0 reads: queue 1 keeps their order; queue 0 waits
// for the last at the end of the plan.
// CHECK-LABEL: msexec.plan @chain
// CHECK: msexec.collective "all_reduce" {{.*}} queue = 1 : i64
// CHECK-NEXT: %[[E1:.*]] = msexec.signal {queue = 1 : i64}
// CHECK-NEXT: %[[S2:.*]] = msexec.signal : !msexec.event
// CHECK-NEXT: msexec.wait %[[S2]] {queue = 1 : i64}
// CHECK-NEXT: msexec.collective "all_gather" {{.*}} queue = 1 : i64
// CHECK-NEXT: %[[E2:.*]] = msexec.signal {queue = 1 : i64}
// CHECK-NEXT: msexec.wait %[[E1]]
// CHECK-NEXT: msexec.wait %[[E2]]
// CHECK-NEXT: }
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<16xf32>) -> tensor<16xf32> attributes {ms.kernel} {
      return %a : tensor<16xf32>
    }
  }
}
msexec.plan @chain target("cpu") opt_level(0) attributes {ranks = 2 : i64} {
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<16xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<32xf32>>
  %r = msexec.alloc : !msexec.buffer<tensor<16xf32>>
  msexec.collective "all_reduce" %x to %r {reduction = "sum"} {groups = [array<i64: 0, 1>]} : <tensor<16xf32>> to <tensor<16xf32>>
  msexec.collective "all_gather" %r to %y {axis = 0 : i64} {groups = [array<i64: 0, 1>]} : <tensor<16xf32>> to <tensor<32xf32>>
}
