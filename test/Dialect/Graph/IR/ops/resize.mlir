// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.resize.

// CHECK-LABEL: func @resize_nearest
// CHECK: %[[R:.+]] = msgraph.resize %{{[a-zA-Z0-9_]+}} {scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
// CHECK: return %[[R]]
func.func @resize_nearest(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32> {
  %r = msgraph.resize %x {scales = array<f64: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return %r : tensor<1x3x16x16xf32>
}

// -----

// CHECK-LABEL: func @resize_linear
// CHECK: %[[R:.+]] = msgraph.resize %{{[a-zA-Z0-9_]+}} {coordinate_transformation_mode = "align_corners", mode = "linear", scales = array<f64: 1.000000e+00, 1.000000e+00, 5.000000e-01, 5.000000e-01>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: return %[[R]]
func.func @resize_linear(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32> {
  %r = msgraph.resize %x {coordinate_transformation_mode = "align_corners", mode = "linear", scales = array<f64: 1.000000e+00, 1.000000e+00, 5.000000e-01, 5.000000e-01>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}
