// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.concat.

// CHECK-LABEL: func @concat_axis0
// CHECK: %[[R:.+]] = msgraph.concat %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK: return %[[R]]
func.func @concat_axis0(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %r : tensor<6x3xf32>
}

// -----

// CHECK-LABEL: func @concat_neg_axis
// CHECK: %[[R:.+]] = msgraph.concat %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {axis = -1 : i64} : (tensor<2x?xi64>, tensor<2x1xi64>, tensor<?x2xi64>) -> tensor<2x?xi64>
// CHECK: return %[[R]]
func.func @concat_neg_axis(%a: tensor<2x?xi64>, %b: tensor<2x1xi64>, %c: tensor<?x2xi64>) -> tensor<2x?xi64> {
  %r = msgraph.concat %a, %b, %c {axis = -1 : i64} : (tensor<2x?xi64>, tensor<2x1xi64>, tensor<?x2xi64>) -> tensor<2x?xi64>
  return %r : tensor<2x?xi64>
}
