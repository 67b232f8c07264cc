// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.tile.

// CHECK-LABEL: func @tile
// CHECK: %[[R:.+]] = msgraph.tile %{{[a-zA-Z0-9_]+}} {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK: return %[[R]]
func.func @tile(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %r = msgraph.tile %x {repeats = array<i64: 2, 1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
