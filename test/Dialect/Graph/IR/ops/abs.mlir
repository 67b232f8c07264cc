// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.abs.

// CHECK-LABEL: func @abs_f32
// CHECK: %[[R:.+]] = msgraph.abs %{{[a-zA-Z0-9_]+}} : tensor<4xf32>
// CHECK: return %[[R]]
func.func @abs_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = msgraph.abs %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @abs_ui16
// CHECK: %[[R:.+]] = msgraph.abs %{{[a-zA-Z0-9_]+}} : tensor<4xui16>
// CHECK: return %[[R]]
func.func @abs_ui16(%x: tensor<4xui16>) -> tensor<4xui16> {
  %r = msgraph.abs %x : tensor<4xui16>
  return %r : tensor<4xui16>
}
