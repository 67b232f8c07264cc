// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.shift_left.

// CHECK-LABEL: func @shift_left_ui8
// CHECK: %[[R:.+]] = msgraph.shift_left %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK: return %[[R]]
func.func @shift_left_ui8(%x: tensor<2x3xui8>, %y: tensor<3xui8>) -> tensor<2x3xui8> {
  %r = msgraph.shift_left %x, %y : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// CHECK-LABEL: func @shift_left_i64
// CHECK: %[[R:.+]] = msgraph.shift_left %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
// CHECK: return %[[R]]
func.func @shift_left_i64(%x: tensor<2x3xi64>, %y: tensor<3xi64>) -> tensor<2x3xi64> {
  %r = msgraph.shift_left %x, %y : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}
