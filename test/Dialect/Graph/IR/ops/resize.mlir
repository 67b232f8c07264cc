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

// -----

// CHECK-LABEL: func @resize_crop_antialias
// CHECK: msgraph.resize %{{.+}} {antialias = true, coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 1.000000e+01 : f64, mode = "linear", roi = array<f64: 0.000000e+00, 0.000000e+00, 4.000000e-01, 6.000000e-01, 1.000000e+00, 1.000000e+00, 6.000000e-01, 8.000000e-01>, scales = array<f64: 1.000000e+00, 1.000000e+00, 5.000000e-01, 5.000000e-01>}
func.func @resize_crop_antialias(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %r = msgraph.resize %x {antialias = true, coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 10.0 : f64, mode = "linear", roi = array<f64: 0.0, 0.0, 0.4, 0.6, 1.0, 1.0, 0.6, 0.8>, scales = array<f64: 1.0, 1.0, 0.5, 0.5>} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}
