// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.relu.

// CHECK-LABEL: func @relu_f32
// CHECK: %[[R:.+]] = msgraph.relu %{{[a-zA-Z0-9_]+}} : tensor<1x3x?x?xf32>
// CHECK: return %[[R]]
func.func @relu_f32(%x: tensor<1x3x?x?xf32>) -> tensor<1x3x?x?xf32> {
  %r = msgraph.relu %x : tensor<1x3x?x?xf32>
  return %r : tensor<1x3x?x?xf32>
}

// -----

// CHECK-LABEL: func @relu_i8
// CHECK: %[[R:.+]] = msgraph.relu %{{[a-zA-Z0-9_]+}} : tensor<4xi8>
// CHECK: return %[[R]]
func.func @relu_i8(%x: tensor<4xi8>) -> tensor<4xi8> {
  %r = msgraph.relu %x : tensor<4xi8>
  return %r : tensor<4xi8>
}
