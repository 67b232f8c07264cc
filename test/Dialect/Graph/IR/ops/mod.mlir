// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.mod.

// CHECK-LABEL: func @mod_same
// CHECK: %[[R:.+]] = msgraph.mod %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
// CHECK: return %[[R]]
func.func @mod_same(%x: tensor<2x3xui8>, %y: tensor<2x3xui8>) -> tensor<2x3xui8> {
  %r = msgraph.mod %x, %y : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// CHECK-LABEL: func @mod_broadcast
// CHECK: %[[R:.+]] = msgraph.mod %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<4x1xui8>, tensor<?x5xui8>) -> tensor<4x5xui8>
// CHECK: return %[[R]]
func.func @mod_broadcast(%x: tensor<4x1xui8>, %y: tensor<?x5xui8>) -> tensor<4x5xui8> {
  %r = msgraph.mod %x, %y : (tensor<4x1xui8>, tensor<?x5xui8>) -> tensor<4x5xui8>
  return %r : tensor<4x5xui8>
}

// -----

// CHECK-LABEL: func @mod_scalar
// CHECK: %[[R:.+]] = msgraph.mod %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<ui8>, tensor<7xui8>) -> tensor<?xui8>
// CHECK: return %[[R]]
func.func @mod_scalar(%x: tensor<ui8>, %y: tensor<7xui8>) -> tensor<?xui8> {
  %r = msgraph.mod %x, %y : (tensor<ui8>, tensor<7xui8>) -> tensor<?xui8>
  return %r : tensor<?xui8>
}
