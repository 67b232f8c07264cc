// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.slice.

// CHECK-LABEL: func @slice_strided
// CHECK: %[[R:.+]] = msgraph.slice %{{[a-zA-Z0-9_]+}} {ends = array<i64: 2, 5>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : (tensor<2x6xf32>) -> tensor<2x2xf32>
// CHECK: return %[[R]]
func.func @slice_strided(%x: tensor<2x6xf32>) -> tensor<2x2xf32> {
  %r = msgraph.slice %x {ends = array<i64: 2, 5>, starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : (tensor<2x6xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func @slice_reverse
// CHECK: %[[R:.+]] = msgraph.slice %{{[a-zA-Z0-9_]+}} {ends = array<i64: -1>, starts = array<i64: 4>, steps = array<i64: -1>} : (tensor<5xi32>) -> tensor<5xi32>
// CHECK: return %[[R]]
func.func @slice_reverse(%x: tensor<5xi32>) -> tensor<5xi32> {
  %r = msgraph.slice %x {ends = array<i64: -1>, starts = array<i64: 4>, steps = array<i64: -1>} : (tensor<5xi32>) -> tensor<5xi32>
  return %r : tensor<5xi32>
}

// -----

// CHECK-LABEL: func @slice_dynamic
// CHECK: %[[R:.+]] = msgraph.slice %{{[a-zA-Z0-9_]+}} {ends = array<i64: -9223372036854775808, 3>, starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<?x6xf32>) -> tensor<?x2xf32>
// CHECK: return %[[R]]
func.func @slice_dynamic(%x: tensor<?x6xf32>) -> tensor<?x2xf32> {
  %r = msgraph.slice %x {ends = array<i64: -9223372036854775808, 3>, starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : (tensor<?x6xf32>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}
