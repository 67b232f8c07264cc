// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.pad.

// CHECK-LABEL: func @pad_constant
// CHECK: %[[R:.+]] = msgraph.pad %{{[a-zA-Z0-9_]+}} {pads = array<i64: 0, 1, 0, 1>, value = 1.500000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
// CHECK: return %[[R]]
func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %r = msgraph.pad %x {pads = array<i64: 0, 1, 0, 1>, value = 1.500000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func @pad_reflect
// CHECK: %[[R:.+]] = msgraph.pad %{{[a-zA-Z0-9_]+}} {mode = "reflect", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
// CHECK: return %[[R]]
func.func @pad_reflect(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32> {
  %r = msgraph.pad %x {mode = "reflect", pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : (tensor<1x3x4x4xf32>) -> tensor<1x3x6x6xf32>
  return %r : tensor<1x3x6x6xf32>
}

// -----

// CHECK-LABEL: func @pad_crop
// CHECK: %[[R:.+]] = msgraph.pad %{{[a-zA-Z0-9_]+}} {mode = "edge", pads = array<i64: -2, 1>} : (tensor<5xi32>) -> tensor<4xi32>
// CHECK: return %[[R]]
func.func @pad_crop(%x: tensor<5xi32>) -> tensor<4xi32> {
  %r = msgraph.pad %x {mode = "edge", pads = array<i64: -2, 1>} : (tensor<5xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @pad_reflect_empty
// CHECK: %[[R:.+]] = msgraph.pad %{{[a-zA-Z0-9_]+}} {mode = "reflect", pads = array<i64: 0, 1, 0, 1>} : (tensor<0x3xf32>) -> tensor<0x5xf32>
// CHECK: return %[[R]]
func.func @pad_reflect_empty(%x: tensor<0x3xf32>) -> tensor<0x5xf32> {
  %r = msgraph.pad %x {mode = "reflect", pads = array<i64: 0, 1, 0, 1>} : (tensor<0x3xf32>) -> tensor<0x5xf32>
  return %r : tensor<0x5xf32>
}
