// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.and.

// CHECK-LABEL: func @and_bool
// CHECK: %[[R:.+]] = msgraph.and %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
// CHECK: return %[[R]]
func.func @and_bool(%x: tensor<2x3xi1>, %y: tensor<3xi1>) -> tensor<2x3xi1> {
  %r = msgraph.and %x, %y : (tensor<2x3xi1>, tensor<3xi1>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}
