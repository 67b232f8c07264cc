// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.mul.

// CHECK-LABEL: func @mul_same
// CHECK: %[[R:.+]] = msgraph.mul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
// CHECK: return %[[R]]
func.func @mul_same(%x: tensor<2x3xf16>, %y: tensor<2x3xf16>) -> tensor<2x3xf16> {
  %r = msgraph.mul %x, %y : (tensor<2x3xf16>, tensor<2x3xf16>) -> tensor<2x3xf16>
  return %r : tensor<2x3xf16>
}

// -----

// CHECK-LABEL: func @mul_broadcast
// CHECK: %[[R:.+]] = msgraph.mul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xf16>, tensor<?x5xf16>) -> tensor<4x5xf16>
// CHECK: return %[[R]]
func.func @mul_broadcast(%x: tensor<4x1xf16>, %y: tensor<?x5xf16>) -> tensor<4x5xf16> {
  %r = msgraph.mul %x, %y : (tensor<4x1xf16>, tensor<?x5xf16>) -> tensor<4x5xf16>
  return %r : tensor<4x5xf16>
}

// -----

// CHECK-LABEL: func @mul_scalar
// CHECK: %[[R:.+]] = msgraph.mul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<f16>, tensor<7xf16>) -> tensor<?xf16>
// CHECK: return %[[R]]
func.func @mul_scalar(%x: tensor<f16>, %y: tensor<7xf16>) -> tensor<?xf16> {
  %r = msgraph.mul %x, %y : (tensor<f16>, tensor<7xf16>) -> tensor<?xf16>
  return %r : tensor<?xf16>
}
