// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.shape.

// CHECK-LABEL: func @shape
// CHECK: %[[R:.+]] = msgraph.shape %{{[a-zA-Z0-9_]+}} : (tensor<?x4xf32>) -> tensor<2xi64>
// CHECK: return %[[R]]
func.func @shape(%x: tensor<?x4xf32>) -> tensor<2xi64> {
  %r = msgraph.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
  return %r : tensor<2xi64>
}
