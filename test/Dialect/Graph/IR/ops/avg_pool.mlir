// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.avg_pool.

// CHECK-LABEL: func @avg_pool_2x2
// CHECK: %[[R:.+]] = msgraph.avg_pool %{{[a-zA-Z0-9_]+}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
// CHECK: return %[[R]]
func.func @avg_pool_2x2(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  %r = msgraph.avg_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %r : tensor<1x8x16x16xf32>
}

// -----

// CHECK-LABEL: func @avg_pool_ceil
// CHECK: %[[R:.+]] = msgraph.avg_pool %{{[a-zA-Z0-9_]+}} {ceil_mode = true, count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x?x7xf32>) -> tensor<1x8x?x4xf32>
// CHECK: return %[[R]]
func.func @avg_pool_ceil(%x: tensor<1x8x?x7xf32>) -> tensor<1x8x?x4xf32> {
  %r = msgraph.avg_pool %x {ceil_mode = true, count_include_pad = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x?x7xf32>) -> tensor<1x8x?x4xf32>
  return %r : tensor<1x8x?x4xf32>
}
