// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.cast.

// CHECK-LABEL: func @cast_f32_i32
// CHECK: %[[R:.+]] = msgraph.cast %{{[a-zA-Z0-9_]+}} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK: return %[[R]]
func.func @cast_f32_i32(%x: tensor<4xf32>) -> tensor<4xi32> {
  %r = msgraph.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @cast_dynamic
// CHECK: %[[R:.+]] = msgraph.cast %{{[a-zA-Z0-9_]+}} : (tensor<?x3xui8>) -> tensor<2x3xf16>
// CHECK: return %[[R]]
func.func @cast_dynamic(%x: tensor<?x3xui8>) -> tensor<2x3xf16> {
  %r = msgraph.cast %x : (tensor<?x3xui8>) -> tensor<2x3xf16>
  return %r : tensor<2x3xf16>
}
