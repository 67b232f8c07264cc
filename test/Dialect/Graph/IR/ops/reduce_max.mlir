// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.reduce_max.

// CHECK-LABEL: func @reduce_max_keep
// CHECK: %[[R:.+]] = msgraph.reduce_max %{{[a-zA-Z0-9_]+}} {axes = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
// CHECK: return %[[R]]
func.func @reduce_max_keep(%x: tensor<2x3x4xf32>) -> tensor<2x1x1xf32> {
  %r = msgraph.reduce_max %x {axes = array<i64: 1, -1>} : (tensor<2x3x4xf32>) -> tensor<2x1x1xf32>
  return %r : tensor<2x1x1xf32>
}

// -----

// CHECK-LABEL: func @reduce_max_drop
// CHECK: %[[R:.+]] = msgraph.reduce_max %{{[a-zA-Z0-9_]+}} {axes = array<i64: 1>, keep_dims = false} : (tensor<?x3xi32>) -> tensor<?xi32>
// CHECK: return %[[R]]
func.func @reduce_max_drop(%x: tensor<?x3xi32>) -> tensor<?xi32> {
  %r = msgraph.reduce_max %x {axes = array<i64: 1>, keep_dims = false} : (tensor<?x3xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}

// -----

// CHECK-LABEL: func @reduce_max_all
// CHECK: %[[R:.+]] = msgraph.reduce_max %{{[a-zA-Z0-9_]+}} {axes = array<i64>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<f32>
// CHECK: return %[[R]]
func.func @reduce_max_all(%x: tensor<2x3xf32>) -> tensor<f32> {
  %r = msgraph.reduce_max %x {axes = array<i64>, keep_dims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}
