// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.where.

// CHECK-LABEL: func @where_broadcast
// CHECK: %[[R:.+]] = msgraph.where %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xi1>, tensor<5xf32>, tensor<f32>) -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @where_broadcast(%c: tensor<4x1xi1>, %a: tensor<5xf32>, %b: tensor<f32>) -> tensor<4x5xf32> {
  %r = msgraph.where %c, %a, %b : (tensor<4x1xi1>, tensor<5xf32>, tensor<f32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
