// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.fmod.

// CHECK-LABEL: func @fmod_same
// CHECK: %[[R:.+]] = msgraph.fmod %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
// CHECK: return %[[R]]
func.func @fmod_same(%x: tensor<2x3xui8>, %y: tensor<2x3xui8>) -> tensor<2x3xui8> {
  %r = msgraph.fmod %x, %y : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// CHECK-LABEL: func @fmod_broadcast
// CHECK: %[[R:.+]] = msgraph.fmod %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xui8>, tensor<?x5xui8>) -> tensor<4x5xui8>
// CHECK: return %[[R]]
func.func @fmod_broadcast(%x: tensor<4x1xui8>, %y: tensor<?x5xui8>) -> tensor<4x5xui8> {
  %r = msgraph.fmod %x, %y : (tensor<4x1xui8>, tensor<?x5xui8>) -> tensor<4x5xui8>
  return %r : tensor<4x5xui8>
}

// -----

// CHECK-LABEL: func @fmod_scalar
// CHECK: %[[R:.+]] = msgraph.fmod %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<ui8>, tensor<7xui8>) -> tensor<?xui8>
// CHECK: return %[[R]]
func.func @fmod_scalar(%x: tensor<ui8>, %y: tensor<7xui8>) -> tensor<?xui8> {
  %r = msgraph.fmod %x, %y : (tensor<ui8>, tensor<7xui8>) -> tensor<?xui8>
  return %r : tensor<?xui8>
}
