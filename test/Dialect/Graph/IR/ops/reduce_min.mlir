// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.reduce_min.

// CHECK-LABEL: func @reduce_min_keep
// CHECK: %[[R:.+]] = msgraph.reduce_min %{{[a-zA-Z0-9_]+}} {axes = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK: return %[[R]]
func.func @reduce_min_keep(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %r = msgraph.reduce_min %x {axes = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}

// -----

// CHECK-LABEL: func @reduce_min_drop
// CHECK: %[[R:.+]] = msgraph.reduce_min %{{[a-zA-Z0-9_]+}} {axes = array<i64: 1>, keep_dims = false} : (tensor<?x3xi32>) -> tensor<?xi32>
// CHECK: return %[[R]]
func.func @reduce_min_drop(%x: tensor<?x3xi32>) -> tensor<?xi32> {
  %r = msgraph.reduce_min %x {axes = array<i64: 1>, keep_dims = false} : (tensor<?x3xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// -----

// CHECK-LABEL: func @reduce_min_all
// CHECK: %[[R:.+]] = msgraph.reduce_min %{{[a-zA-Z0-9_]+}} {axes = array<i64>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: return %[[R]]
func.func @reduce_min_all(%x: tensor<2x3xf32>) -> tensor<f32> {
  %r = msgraph.reduce_min %x {axes = array<i64>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
