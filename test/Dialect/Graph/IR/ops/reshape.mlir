// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.reshape.

// CHECK-LABEL: func @reshape_static
// CHECK: %[[R:.+]] = msgraph.reshape %{{[a-zA-Z0-9_]+}} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: return %[[R]]
func.func @reshape_static(%x: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  %r = msgraph.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// -----

// CHECK-LABEL: func @reshape_one_dynamic
// CHECK: %[[R:.+]] = msgraph.reshape %{{[a-zA-Z0-9_]+}} : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
// CHECK: return %[[R]]
func.func @reshape_one_dynamic(%x: tensor<?x4xf32>) -> tensor<?x2x2xf32> {
  %r = msgraph.reshape %x : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  return %r : tensor<?x2x2xf32>
}

// -----

// CHECK-LABEL: func @reshape_shape
// CHECK: %[[R:.+]] = msgraph.reshape %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<?x?xi8>, tensor<3xi64>) -> tensor<?x?x?xi8>
// CHECK: return %[[R]]
func.func @reshape_shape(%x: tensor<?x?xi8>, %s: tensor<3xi64>) -> tensor<?x?x?xi8> {
  %r = msgraph.reshape %x, %s : (tensor<?x?xi8>, tensor<3xi64>) -> tensor<?x?x?xi8>
  return %r : tensor<?x?x?xi8>
}
