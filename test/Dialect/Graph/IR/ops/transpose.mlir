// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.transpose.

// CHECK-LABEL: func @transpose_2d
// CHECK: %[[R:.+]] = msgraph.transpose %{{[a-zA-Z0-9_]+}} {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @transpose_2d(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = msgraph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @transpose_4d
// CHECK: %[[R:.+]] = msgraph.transpose %{{[a-zA-Z0-9_]+}} {permutation = array<i64: 0, 2, 3, 1>} : (tensor<?x3x4x5xi32>) -> tensor<?x4x5x3xi32>
// CHECK: return %[[R]]
func.func @transpose_4d(%x: tensor<?x3x4x5xi32>) -> tensor<?x4x5x3xi32> {
  %r = msgraph.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : (tensor<?x3x4x5xi32>) -> tensor<?x4x5x3xi32>
  return %r : tensor<?x4x5x3xi32>
}
