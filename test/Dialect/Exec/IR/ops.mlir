// RUN: ms-opt %s | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: msexec.executable @cpu target("cpu")
msexec.executable @cpu target("cpu") {
  builtin.module {
    func.func @k(%a: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
      return %a : tensor<4xf32>
    }
  }
}
// CHECK: msexec.binary @gpu target("cuda") format("cuda-ptx") data("ptx")
msexec.binary @gpu target("cuda") format("cuda-ptx") data("ptx")
// CHECK-LABEL: msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 64 : i64}
msexec.plan @main target("cpu") opt_level(2) attributes {arena_size = 64 : i64} {
  // CHECK: msexec.input 0 "x" : <tensor<4xf32>>
  %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
  // CHECK: msexec.output 0 "y" : <tensor<4xf32>>
  %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
  // CHECK: msexec.weight dense<1.000000e+00> : tensor<4xf32> {offset = 0 : i64} : <tensor<4xf32>>
  %w = msexec.weight dense<1.0> : tensor<4xf32> {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  // CHECK: msexec.alloc {offset = 0 : i64} : <tensor<4xf32>>
  %a = msexec.alloc {offset = 0 : i64} : !msexec.buffer<tensor<4xf32>>
  // CHECK: msexec.alloc {capacity = 8 : i64, offset = 0 : i64} : <tensor<?x!msgraph.string>>
  %d = msexec.alloc {capacity = 8 : i64, offset = 0 : i64} : !msexec.buffer<tensor<?x!msgraph.string>>
  // CHECK: msexec.offload attributes {entry = "ms_graph_0"} {
  // CHECK-NEXT: msexec.launch @cpu::@k(%{{.*}}, %{{.*}})
  // CHECK-NEXT: msexec.copy %{{.*}} to %{{.*}}
  msexec.offload attributes {entry = "ms_graph_0"} {
    msexec.launch @cpu::@k(%x, %a) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    msexec.copy %a to %y : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
  }
  // CHECK: %[[E:.+]] = msexec.signal : !msexec.event
  %e = msexec.signal : !msexec.event
  // CHECK: msexec.wait %[[E]] {queue = 1 : i64}
  msexec.wait %e {queue = 1 : i64}
  // CHECK: msexec.call @layer(%{{.*}}, %{{.*}}) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.call @layer(%x, %a) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
}
// CHECK-LABEL: msexec.body @layer {
// CHECK-NEXT: ^bb0(%[[A:.+]]: !msexec.buffer<tensor<4xf32>>, %[[B:.+]]: !msexec.buffer<tensor<4xf32>>):
// CHECK-NEXT: msexec.launch @cpu::@k(%[[A]], %[[B]])
// CHECK-NEXT: msexec.copy %[[B]] to %[[A]]
msexec.body @layer {
^bb0(%a: !msexec.buffer<tensor<4xf32>>, %b: !msexec.buffer<tensor<4xf32>>):
  msexec.launch @cpu::@k(%a, %b) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
  msexec.copy %b to %a : !msexec.buffer<tensor<4xf32>> to !msexec.buffer<tensor<4xf32>>
}
