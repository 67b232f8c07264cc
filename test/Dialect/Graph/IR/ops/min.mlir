// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.min.

// CHECK-LABEL: func @min_same
// CHECK: %[[R:.+]] = msgraph.min %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK: return %[[R]]
func.func @min_same(%x: tensor<2x3xi64>, %y: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %r = msgraph.min %x, %y : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @min_broadcast
// CHECK: %[[R:.+]] = msgraph.min %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xi64>, tensor<?x5xi64>) -> tensor<4x5xi64>
// CHECK: return %[[R]]
func.func @min_broadcast(%x: tensor<4x1xi64>, %y: tensor<?x5xi64>) -> tensor<4x5xi64> {
  %r = msgraph.min %x, %y : (tensor<4x1xi64>, tensor<?x5xi64>) -> tensor<4x5xi64>
  return %r : tensor<4x5xi64>
}

// -----

// CHECK-LABEL: func @min_scalar
// CHECK: %[[R:.+]] = msgraph.min %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<i64>, tensor<7xi64>) -> tensor<?xi64>
// CHECK: return %[[R]]
func.func @min_scalar(%x: tensor<i64>, %y: tensor<7xi64>) -> tensor<?xi64> {
  %r = msgraph.min %x, %y : (tensor<i64>, tensor<7xi64>) -> tensor<?xi64>
  return %r : tensor<?xi64>
}
