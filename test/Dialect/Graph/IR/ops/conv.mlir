// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.conv.

// CHECK-LABEL: func @conv_2d
// CHECK: %[[R:.+]] = msgraph.conv %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK: return %[[R]]
func.func @conv_2d(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %r = msgraph.conv %x, %w, %b {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  return %r : tensor<1x64x112x112xf32>
}

// -----

// CHECK-LABEL: func @conv_grouped
// CHECK: %[[R:.+]] = msgraph.conv %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {dilations = array<i64: 2, 2>, group = 32 : i64} : (tensor<?x32x?x?xf32>, tensor<32x1x3x3xf32>) -> tensor<?x32x?x?xf32>
// CHECK: return %[[R]]
func.func @conv_grouped(%x: tensor<?x32x?x?xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<?x32x?x?xf32> {
  %r = msgraph.conv %x, %w {dilations = array<i64: 2, 2>, group = 32 : i64} : (tensor<?x32x?x?xf32>, tensor<32x1x3x3xf32>) -> tensor<?x32x?x?xf32>
  return %r : tensor<?x32x?x?xf32>
}

// -----

// CHECK-LABEL: func @conv_1d
// CHECK: %[[R:.+]] = msgraph.conv %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x4x10xf32>, tensor<8x4x3xf32>) -> tensor<2x8x8xf32>
// CHECK: return %[[R]]
func.func @conv_1d(%x: tensor<2x4x10xf32>, %w: tensor<8x4x3xf32>) -> tensor<2x8x8xf32> {
  %r = msgraph.conv %x, %w : (tensor<2x4x10xf32>, tensor<8x4x3xf32>) -> tensor<2x8x8xf32>
  return %r : tensor<2x8x8xf32>
}
