// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.lrn.

// CHECK-LABEL: func @lrn
// CHECK: %[[R:.+]] = msgraph.lrn %{{[a-zA-Z0-9_]+}} {alpha = 2.000000e-04 : f32, beta = 5.000000e-01 : f32, bias = 2.000000e+00 : f32, size = 3 : i64} : tensor<1x8x4x4xf32>
// CHECK: return %[[R]]
func.func @lrn(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %r = msgraph.lrn %x {alpha = 2.000000e-04 : f32, beta = 5.000000e-01 : f32, bias = 2.000000e+00 : f32, size = 3 : i64} : tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}
