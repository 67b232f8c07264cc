// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.cumprod.

// CHECK-LABEL: func @cumprod_default
// CHECK: %[[R:.+]] = msgraph.cumprod %{{[a-zA-Z0-9_]+}} {axis = 1 : i64} : tensor<2x?xf32>
// CHECK: return %[[R]]
func.func @cumprod_default(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %r = msgraph.cumprod %x {axis = 1 : i64} : tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func @cumprod_exclusive_reverse
// CHECK: %[[R:.+]] = msgraph.cumprod %{{[a-zA-Z0-9_]+}} {axis = -1 : i64, exclusive = true, reverse = true} : tensor<5xui32>
// CHECK: return %[[R]]
func.func @cumprod_exclusive_reverse(%x: tensor<5xui32>) -> tensor<5xui32> {
  %r = msgraph.cumprod %x {axis = -1 : i64, exclusive = true, reverse = true} : tensor<5xui32>
  return %r : tensor<5xui32>
}
