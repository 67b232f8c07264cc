// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.gather_elements.

// CHECK-LABEL: func @gather_elements
// CHECK: msgraph.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %y = msgraph.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Indices may be smaller than the input off the axis, and dynamic.
// CHECK-LABEL: func @smaller
// CHECK: msgraph.gather_elements %{{.*}}, %{{.*}} : (tensor<4x5xi32>, tensor<?x3xi32>) -> tensor<?x3xi32>
func.func @smaller(%x: tensor<4x5xi32>, %i: tensor<?x3xi32>) -> tensor<?x3xi32> {
  %y = msgraph.gather_elements %x, %i : (tensor<4x5xi32>, tensor<?x3xi32>) -> tensor<?x3xi32>
  return %y : tensor<?x3xi32>
}
