// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.max_pool.

// CHECK-LABEL: func @max_pool_2x2
// CHECK: %[[R:.+]] = msgraph.max_pool %{{[a-zA-Z0-9_]+}} {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
// CHECK: return %[[R]]
func.func @max_pool_2x2(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32> {
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
  return %r : tensor<1x8x16x16xf32>
}

// -----

// CHECK-LABEL: func @max_pool_ceil
// CHECK: %[[R:.+]] = msgraph.max_pool %{{[a-zA-Z0-9_]+}} {ceil_mode = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x?x7xf32>) -> tensor<1x8x?x4xf32>
// CHECK: return %[[R]]
func.func @max_pool_ceil(%x: tensor<1x8x?x7xf32>) -> tensor<1x8x?x4xf32> {
  %r = msgraph.max_pool %x {ceil_mode = true, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x?x7xf32>) -> tensor<1x8x?x4xf32>
  return %r : tensor<1x8x?x4xf32>
}

// -----

// Integer inputs (signed and unsigned) pool too.
// CHECK-LABEL: func @max_pool_int
// CHECK: msgraph.max_pool %{{.+}} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
// CHECK: msgraph.max_pool %{{.+}} : (tensor<1x1x4x4xi32>) -> tensor<1x1x3x3xi32>
func.func @max_pool_int(%x: tensor<1x1x4x4xui8>, %y: tensor<1x1x4x4xi32>) -> (tensor<1x1x2x2xui8>, tensor<1x1x3x3xi32>) {
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  %s = msgraph.max_pool %y {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xi32>) -> tensor<1x1x3x3xi32>
  return %r, %s : tensor<1x1x2x2xui8>, tensor<1x1x3x3xi32>
}
