// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.range.

// CHECK-LABEL: func @range_f32
// CHECK: %[[R:.+]] = msgraph.range %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
// CHECK: return %[[R]]
func.func @range_f32(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) -> tensor<?xf32> {
  %r = msgraph.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// CHECK-LABEL: func @range_i64
// CHECK: %[[R:.+]] = msgraph.range %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
// CHECK: return %[[R]]
func.func @range_i64(%a: tensor<i64>, %b: tensor<i64>, %c: tensor<i64>) -> tensor<5xi64> {
  %r = msgraph.range %a, %b, %c : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<5xi64>
  return %r : tensor<5xi64>
}
