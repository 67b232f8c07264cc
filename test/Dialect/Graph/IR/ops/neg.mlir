// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.neg.

// CHECK-LABEL: func @neg_f32
// CHECK: %[[R:.+]] = msgraph.neg %{{[a-zA-Z0-9_]+}} : tensor<4xf32>
// CHECK: return %[[R]]
func.func @neg_f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = msgraph.neg %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @neg_i64
// CHECK: %[[R:.+]] = msgraph.neg %{{[a-zA-Z0-9_]+}} : tensor<?xi64>
// CHECK: return %[[R]]
func.func @neg_i64(%x: tensor<?xi64>) -> tensor<?xi64> {
  %r = msgraph.neg %x : tensor<?xi64>
  return %r : tensor<?xi64>
}
