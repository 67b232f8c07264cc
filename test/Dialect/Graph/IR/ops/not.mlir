// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.not.

// CHECK-LABEL: func @not_i1
// CHECK: %[[R:.+]] = msgraph.not %{{[a-zA-Z0-9_]+}} : tensor<2x2xi1>
// CHECK: return %[[R]]
func.func @not_i1(%x: tensor<2x2xi1>) -> tensor<2x2xi1> {
  %r = msgraph.not %x : tensor<2x2xi1>
  return %r : tensor<2x2xi1>
}
