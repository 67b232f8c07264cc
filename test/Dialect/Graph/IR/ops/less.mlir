// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.less.

// CHECK-LABEL: func @less_f32
// CHECK: %[[R:.+]] = msgraph.less %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK: return %[[R]]
func.func @less_f32(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xi1> {
  %r = msgraph.less %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func @less_i64
// CHECK: %[[R:.+]] = msgraph.less %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<?xi64>, tensor<i64>) -> tensor<?xi1>
// CHECK: return %[[R]]
func.func @less_i64(%x: tensor<?xi64>, %y: tensor<i64>) -> tensor<?xi1> {
  %r = msgraph.less %x, %y : (tensor<?xi64>, tensor<i64>) -> tensor<?xi1>
  return %r : tensor<?xi1>
}
