// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.gelu.

// CHECK-LABEL: func @gelu_exact
// CHECK: %[[R:.+]] = msgraph.gelu %{{[a-zA-Z0-9_]+}} : tensor<8xf32>
// CHECK: return %[[R]]
func.func @gelu_exact(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = msgraph.gelu %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @gelu_tanh
// CHECK: %[[R:.+]] = msgraph.gelu %{{[a-zA-Z0-9_]+}} {approximate = "tanh"} : tensor<8xf32>
// CHECK: return %[[R]]
func.func @gelu_tanh(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = msgraph.gelu %x {approximate = "tanh"} : tensor<8xf32>
  return %r : tensor<8xf32>
}
