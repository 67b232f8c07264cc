// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.constant.

// CHECK-LABEL: func @constant_dense
// CHECK: %[[R:.+]] = msgraph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[R]]
func.func @constant_dense() -> tensor<2xf32> {
  %r = msgraph.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @constant_splat_ui8
// CHECK: %[[R:.+]] = msgraph.constant dense<7> : tensor<2x3xui8>
// CHECK: return %[[R]]
func.func @constant_splat_ui8() -> tensor<2x3xui8> {
  %r = msgraph.constant dense<7> : tensor<2x3xui8>
  return %r : tensor<2x3xui8>
}

// -----

// CHECK-LABEL: func @constant_resource
// CHECK: %[[R:.+]] = msgraph.constant dense_resource<blob> : tensor<2xf32>
// CHECK: return %[[R]]
func.func @constant_resource() -> tensor<2xf32> {
  %r = msgraph.constant dense_resource<blob> : tensor<2xf32>
  return %r : tensor<2xf32>
}
