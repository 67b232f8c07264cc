// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.xor.

// CHECK-LABEL: func @xor_i1
// CHECK: %[[R:.+]] = msgraph.xor %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// CHECK: return %[[R]]
func.func @xor_i1(%x: tensor<2x3xi1>, %y: tensor<3xi1>) -> tensor<2x3xi1> {
  %r = msgraph.xor %x, %y : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func @xor_ui8
// CHECK: %[[R:.+]] = msgraph.xor %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
// CHECK: return %[[R]]
func.func @xor_ui8(%x: tensor<2x3xui8>, %y: tensor<3xui8>) -> tensor<2x3xui8> {
  %r = msgraph.xor %x, %y : (tensor<2x3xui8>, tensor<3xui8>) -> tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// CHECK-LABEL: func @xor_i32
// CHECK: %[[R:.+]] = msgraph.xor %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
// CHECK: return %[[R]]
func.func @xor_i32(%x: tensor<2x3xi32>, %y: tensor<3xi32>) -> tensor<2x3xi32> {
  %r = msgraph.xor %x, %y : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
