// RUN: ms-opt %s -split-input-file -convert-msgraph-to-linalg | FileCheck %s

// CHECK-LABEL: func @reshape
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
func.func @reshape(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = msgraph.reshape %x : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = msgraph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func @concat
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[2, 0] [4, 3] [1, 1]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<6x3xf32> {
  %0 = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  return %0 : tensor<6x3xf32>
}

// -----

// CHECK-LABEL: func @slices
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 2] [1, 2]
// CHECK: linalg.index 0
// CHECK: tensor.extract
func.func @slices(%x: tensor<2x6xf32>, %y: tensor<5xi32>) -> (tensor<2x2xf32>, tensor<5xi32>) {
  %0 = msgraph.slice %x {ends = array<i64: 2, 5>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : (tensor<2x6xf32>) -> tensor<2x2xf32>
  %1 = msgraph.slice %y {ends = array<i64: -1>, starts = array<i64: 4>, steps = array<i64: -1>} : (tensor<5xi32>) -> tensor<5xi32>
  return %0, %1 : tensor<2x2xf32>, tensor<5xi32>
}

// -----

// Negative indices wrap, then clamp.
// CHECK-LABEL: func @gather
// CHECK: linalg.generic
// CHECK: arith.index_cast
// CHECK: arith.select
// CHECK: tensor.extract
func.func @gather(%t: tensor<10x4xf32>, %i: tensor<3xi64>) -> tensor<3x4xf32> {
  %0 = msgraph.gather %t, %i : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @expand_tile_pad
// CHECK: linalg.generic
// CHECK: arith.remui
// CHECK: arith.maxsi
// CHECK: arith.minsi
func.func @expand_tile_pad(%x: tensor<3x1xf32>) -> (tensor<2x3x4xf32>, tensor<6x2xf32>, tensor<5x1xf32>) {
  %0 = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = msgraph.tile %x {repeats = array<i64: 2, 2>} : (tensor<3x1xf32>) -> tensor<6x2xf32>
  %2 = msgraph.pad %x {mode = "reflect", pads = array<i64: 1, 0, 1, 0>} : (tensor<3x1xf32>) -> tensor<5x1xf32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<6x2xf32>, tensor<5x1xf32>
}

// -----

// Resize precomputes source indices and weights per resized dimension.
// CHECK-LABEL: func @resize_linear
// CHECK: arith.constant dense<[0, 0, 0, 1]> : tensor<4xi64>
// CHECK: arith.constant dense<1> : tensor<4xi64>
// CHECK: tensor.extract
func.func @resize_linear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %0 = msgraph.resize %x {mode = "linear", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// CHECK-LABEL: func @constants
// CHECK-DAG: arith.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-DAG: arith.constant dense<-1> : tensor<2xi8>
// CHECK-DAG: arith.constant dense<1.000000e+00> : tensor<2x2xf32>
func.func @constants(%x: tensor<2x3xf32>, %s: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xui8>, tensor<2x2xf32>) {
  %0 = msgraph.shape %x : (tensor<2x3xf32>) -> tensor<2xi64>
  %1 = msgraph.constant dense<255> : tensor<2xui8>
  %2 = msgraph.constant_of_shape %s {value = 1.0 : f32} : (tensor<2xi64>) -> tensor<2x2xf32>
  return %0, %1, %2 : tensor<2xi64>, tensor<2xui8>, tensor<2x2xf32>
}
