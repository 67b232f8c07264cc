// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.prelu.

// CHECK-LABEL: func @prelu_same
// CHECK: %[[R:.+]] = msgraph.prelu %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: return %[[R]]
func.func @prelu_same(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = msgraph.prelu %x, %y : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @prelu_broadcast
// CHECK: %[[R:.+]] = msgraph.prelu %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xf32>, tensor<?x5xf32>) -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @prelu_broadcast(%x: tensor<4x1xf32>, %y: tensor<?x5xf32>) -> tensor<4x5xf32> {
  %r = msgraph.prelu %x, %y : (tensor<4x1xf32>, tensor<?x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func @prelu_scalar
// CHECK: %[[R:.+]] = msgraph.prelu %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<f32>, tensor<7xf32>) -> tensor<?xf32>
// CHECK: return %[[R]]
func.func @prelu_scalar(%x: tensor<f32>, %y: tensor<7xf32>) -> tensor<?xf32> {
  %r = msgraph.prelu %x, %y : (tensor<f32>, tensor<7xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
