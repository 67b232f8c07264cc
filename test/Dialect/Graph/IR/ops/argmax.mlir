// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.argmax.

// CHECK-LABEL: func @argmax_keep
// CHECK: %[[R:.+]] = msgraph.argmax %{{[a-zA-Z0-9_]+}} {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
// CHECK: return %[[R]]
func.func @argmax_keep(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %r = msgraph.argmax %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %r : tensor<2x1xi64>
}

// -----

// CHECK-LABEL: func @argmax_last
// CHECK: %[[R:.+]] = msgraph.argmax %{{[a-zA-Z0-9_]+}} {axis = -2 : i64, keep_dims = false, select_last_index = true} : (tensor<2x3xi32>) -> tensor<3xi64>
// CHECK: return %[[R]]
func.func @argmax_last(%x: tensor<2x3xi32>) -> tensor<3xi64> {
  %r = msgraph.argmax %x {axis = -2 : i64, keep_dims = false, select_last_index = true} : (tensor<2x3xi32>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}
