// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.erf.

// CHECK-LABEL: func @erf_f32
// CHECK: %[[R:.+]] = msgraph.erf %{{[a-zA-Z0-9_]+}} : tensor<2x?xf32>
// CHECK: return %[[R]]
func.func @erf_f32(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %r = msgraph.erf %x : tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func @erf_f16
// CHECK: %[[R:.+]] = msgraph.erf %{{[a-zA-Z0-9_]+}} : tensor<4xf16>
// CHECK: return %[[R]]
func.func @erf_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %r = msgraph.erf %x : tensor<4xf16>
  return %r : tensor<4xf16>
}
