// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.softmax.

// CHECK-LABEL: func @softmax_last
// CHECK: %[[R:.+]] = msgraph.softmax %{{[a-zA-Z0-9_]+}} : tensor<2x8xf32>
// CHECK: return %[[R]]
func.func @softmax_last(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %r = msgraph.softmax %x : tensor<2x8xf32>
  return %r : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @softmax_axis0
// CHECK: %[[R:.+]] = msgraph.softmax %{{[a-zA-Z0-9_]+}} {axis = 0 : i64} : tensor<?x8xf16>
// CHECK: return %[[R]]
func.func @softmax_axis0(%x: tensor<?x8xf16>) -> tensor<?x8xf16> {
  %r = msgraph.softmax %x {axis = 0 : i64} : tensor<?x8xf16>
  return %r : tensor<?x8xf16>
}
