// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.max_pool_indices.

// CHECK-LABEL: func @indices
// CHECK: msgraph.max_pool_indices %{{.*}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xi64>
func.func @indices(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xi64> {
  %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xi64>
  return %i : tensor<1x3x4x4xi64>
}

// -----

// CHECK-LABEL: func @column_major
// CHECK: msgraph.max_pool_indices %{{.*}} {column_major = true, kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<2x1x5xui8>) -> tensor<2x1x5xi64>
func.func @column_major(%x: tensor<2x1x5xui8>) -> tensor<2x1x5xi64> {
  %i = msgraph.max_pool_indices %x {column_major = true, kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>} : (tensor<2x1x5xui8>) -> tensor<2x1x5xi64>
  return %i : tensor<2x1x5xi64>
}
