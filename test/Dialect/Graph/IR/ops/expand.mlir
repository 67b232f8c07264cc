// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.expand.

// CHECK-LABEL: func @expand_static
// CHECK: %[[R:.+]] = msgraph.expand %{{[a-zA-Z0-9_]+}} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: return %[[R]]
func.func @expand_static(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %r = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @expand_shape
// CHECK: %[[R:.+]] = msgraph.expand %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<1xi64>, tensor<2xi64>) -> tensor<?x?xi64>
// CHECK: return %[[R]]
func.func @expand_shape(%x: tensor<1xi64>, %s: tensor<2xi64>) -> tensor<?x?xi64> {
  %r = msgraph.expand %x, %s : (tensor<1xi64>, tensor<2xi64>) -> tensor<?x?xi64>
  return %r : tensor<?x?xi64>
}
