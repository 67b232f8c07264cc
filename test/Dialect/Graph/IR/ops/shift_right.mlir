// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.shift_right.

// CHECK-LABEL: func @shift_right_ui16
// CHECK: %[[R:.+]] = msgraph.shift_right %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
// CHECK: return %[[R]]
func.func @shift_right_ui16(%x: tensor<2x3xui16>, %y: tensor<3xui16>) -> tensor<2x3xui16> {
  %r = msgraph.shift_right %x, %y : (tensor<2x3xui16>, tensor<3xui16>) -> tensor<2x3xui16>
  return %r : tensor<2x3xui16>
}

// -----

// CHECK-LABEL: func @shift_right_i32
// CHECK: %[[R:.+]] = msgraph.shift_right %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK: return %[[R]]
func.func @shift_right_i32(%x: tensor<2x3xi32>, %y: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = msgraph.shift_right %x, %y : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
