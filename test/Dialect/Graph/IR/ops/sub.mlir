// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.sub.

// CHECK-LABEL: func @sub_same
// CHECK: %[[R:.+]] = msgraph.sub %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK: return %[[R]]
func.func @sub_same(%x: tensor<2x3xi32>, %y: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %r = msgraph.sub %x, %y : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func @sub_broadcast
// CHECK: %[[R:.+]] = msgraph.sub %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xi32>, tensor<?x5xi32>) -> tensor<4x5xi32>
// CHECK: return %[[R]]
func.func @sub_broadcast(%x: tensor<4x1xi32>, %y: tensor<?x5xi32>) -> tensor<4x5xi32> {
  %r = msgraph.sub %x, %y : (tensor<4x1xi32>, tensor<?x5xi32>) -> tensor<4x5xi32>
  return %r : tensor<4x5xi32>
}

// -----

// CHECK-LABEL: func @sub_scalar
// CHECK: %[[R:.+]] = msgraph.sub %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<i32>, tensor<7xi32>) -> tensor<?xi32>
// CHECK: return %[[R]]
func.func @sub_scalar(%x: tensor<i32>, %y: tensor<7xi32>) -> tensor<?xi32> {
  %r = msgraph.sub %x, %y : (tensor<i32>, tensor<7xi32>) -> tensor<?xi32>
  return %r : tensor<?xi32>
}
