// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.conv_transpose.

// CHECK-LABEL: func @conv_transpose_2d
// CHECK: %[[R:.+]] = msgraph.conv_transpose %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32>
// CHECK: return %[[R]]
func.func @conv_transpose_2d(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32> {
  %r = msgraph.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32>
  return %r : tensor<1x4x9x9xf32>
}

// -----

// CHECK-LABEL: func @conv_transpose_bias
// CHECK: %[[R:.+]] = msgraph.conv_transpose %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {group = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: return %[[R]]
func.func @conv_transpose_bias(%x: tensor<1x8x4x4xf32>, %w: tensor<8x2x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %r = msgraph.conv_transpose %x, %w, %b {group = 2 : i64, output_padding = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}
