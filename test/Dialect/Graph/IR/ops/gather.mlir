// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.gather.

// CHECK-LABEL: func @gather_axis0
// CHECK: %[[R:.+]] = msgraph.gather %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
// CHECK: return %[[R]]
func.func @gather_axis0(%t: tensor<100x16xf32>, %i: tensor<2x5xi64>) -> tensor<2x5x16xf32> {
  %r = msgraph.gather %t, %i : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
  return %r : tensor<2x5x16xf32>
}

// -----

// CHECK-LABEL: func @gather_axis1
// CHECK: %[[R:.+]] = msgraph.gather %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {axis = 1 : i64} : (tensor<3x4x5xi8>, tensor<i32>) -> tensor<3x5xi8>
// CHECK: return %[[R]]
func.func @gather_axis1(%t: tensor<3x4x5xi8>, %i: tensor<i32>) -> tensor<3x5xi8> {
  %r = msgraph.gather %t, %i {axis = 1 : i64} : (tensor<3x4x5xi8>, tensor<i32>) -> tensor<3x5xi8>
  return %r : tensor<3x5xi8>
}
