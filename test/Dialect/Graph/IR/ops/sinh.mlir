// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.sinh.

// CHECK-LABEL: func @sinh_f32
// CHECK: %[[R:.+]] = msgraph.sinh %{{[a-zA-Z0-9_]+}} : tensor<2x?xf32>
// CHECK: return %[[R]]
func.func @sinh_f32(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %r = msgraph.sinh %x : tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func @sinh_bf16
// CHECK: %[[R:.+]] = msgraph.sinh %{{[a-zA-Z0-9_]+}} : tensor<4xbf16>
// CHECK: return %[[R]]
func.func @sinh_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = msgraph.sinh %x : tensor<4xbf16>
  return %r : tensor<4xbf16>
}
