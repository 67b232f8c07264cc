// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.batch_norm.

// CHECK-LABEL: func @batch_norm
// CHECK: %[[R:.+]] = msgraph.batch_norm %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {epsilon = 1.000000e-03 : f32} : (tensor<?x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32>
// CHECK: return %[[R]]
func.func @batch_norm(%x: tensor<?x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<?x8x4x4xf32> {
  %r = msgraph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.000000e-03 : f32} : (tensor<?x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x8x4x4xf32>
  return %r : tensor<?x8x4x4xf32>
}
