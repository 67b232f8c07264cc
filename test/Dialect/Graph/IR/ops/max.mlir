// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.max.

// CHECK-LABEL: func @max_same
// CHECK: %[[R:.+]] = msgraph.max %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK: return %[[R]]
func.func @max_same(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = msgraph.max %x, %y : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// -----

// CHECK-LABEL: func @max_broadcast
// CHECK: %[[R:.+]] = msgraph.max %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xf64>, tensor<?x5xf64>) -> tensor<4x5xf64>
// CHECK: return %[[R]]
func.func @max_broadcast(%x: tensor<4x1xf64>, %y: tensor<?x5xf64>) -> tensor<4x5xf64> {
  %r = msgraph.max %x, %y : (tensor<4x1xf64>, tensor<?x5xf64>) -> tensor<4x5xf64>
  return %r : tensor<4x5xf64>
}

// -----

// CHECK-LABEL: func @max_scalar
// CHECK: %[[R:.+]] = msgraph.max %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<f64>, tensor<7xf64>) -> tensor<?xf64>
// CHECK: return %[[R]]
func.func @max_scalar(%x: tensor<f64>, %y: tensor<7xf64>) -> tensor<?xf64> {
  %r = msgraph.max %x, %y : (tensor<f64>, tensor<7xf64>) -> tensor<?xf64>
  return %r : tensor<?xf64>
}
