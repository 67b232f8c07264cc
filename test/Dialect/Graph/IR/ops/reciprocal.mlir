// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.reciprocal.

// CHECK-LABEL: func @reciprocal_f32
// CHECK: %[[R:.+]] = msgraph.reciprocal %{{[a-zA-Z0-9_]+}} : tensor<2x?xf32>
// CHECK: return %[[R]]
func.func @reciprocal_f32(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %r = msgraph.reciprocal %x : tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func @reciprocal_f16
// CHECK: %[[R:.+]] = msgraph.reciprocal %{{[a-zA-Z0-9_]+}} : tensor<4xf16>
// CHECK: return %[[R]]
func.func @reciprocal_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %r = msgraph.reciprocal %x : tensor<4xf16>
  return %r : tensor<4xf16>
}
