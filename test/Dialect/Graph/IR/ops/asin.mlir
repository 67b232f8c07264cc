// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.asin.

// CHECK-LABEL: func @asin_f32
// CHECK: %[[R:.+]] = msgraph.asin %{{[a-zA-Z0-9_]+}} : tensor<2x?xf32>
// CHECK: return %[[R]]
func.func @asin_f32(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %r = msgraph.asin %x : tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func @asin_bf16
// CHECK: %[[R:.+]] = msgraph.asin %{{[a-zA-Z0-9_]+}} : tensor<4xbf16>
// CHECK: return %[[R]]
func.func @asin_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %r = msgraph.asin %x : tensor<4xbf16>
  return %r : tensor<4xbf16>
}
