// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.constant_of_shape.

// CHECK-LABEL: func @constant_of_shape
// CHECK: %[[R:.+]] = msgraph.constant_of_shape %{{[a-zA-Z0-9_]+}} {value = 0.000000e+00 : f32} : (tensor<2xi64>) -> tensor<?x?xf32>
// CHECK: return %[[R]]
func.func @constant_of_shape(%s: tensor<2xi64>) -> tensor<?x?xf32> {
  %r = msgraph.constant_of_shape %s {value = 0.000000e+00 : f32} : (tensor<2xi64>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @constant_of_shape_i64
// CHECK: %[[R:.+]] = msgraph.constant_of_shape %{{[a-zA-Z0-9_]+}} {value = 1 : i64} : (tensor<?xi64>) -> tensor<3x?x2xi64>
// CHECK: return %[[R]]
func.func @constant_of_shape_i64(%s: tensor<?xi64>) -> tensor<3x?x2xi64> {
  %r = msgraph.constant_of_shape %s {value = 1 : i64} : (tensor<?xi64>) -> tensor<3x?x2xi64>
  return %r : tensor<3x?x2xi64>
}
