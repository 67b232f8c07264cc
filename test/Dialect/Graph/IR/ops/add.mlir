// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.add.

// CHECK-LABEL: func @add_same
// CHECK: %[[R:.+]] = msgraph.add %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @add_same(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = msgraph.add %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @add_broadcast
// CHECK: %[[R:.+]] = msgraph.add %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xf32>, tensor<?x5xf32>) -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @add_broadcast(%x: tensor<4x1xf32>, %y: tensor<?x5xf32>) -> tensor<4x5xf32> {
  %r = msgraph.add %x, %y : (tensor<4x1xf32>, tensor<?x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func @add_scalar
// CHECK: %[[R:.+]] = msgraph.add %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<f32>, tensor<7xf32>) -> tensor<?xf32>
// CHECK: return %[[R]]
func.func @add_scalar(%x: tensor<f32>, %y: tensor<7xf32>) -> tensor<?xf32> {
  %r = msgraph.add %x, %y : (tensor<f32>, tensor<7xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
