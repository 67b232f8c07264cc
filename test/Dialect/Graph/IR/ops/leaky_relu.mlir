// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.leaky_relu.

// CHECK-LABEL: func @leaky_relu_default
// CHECK: %[[R:.+]] = msgraph.leaky_relu %{{[a-zA-Z0-9_]+}} : tensor<8xf32>
// CHECK: return %[[R]]
func.func @leaky_relu_default(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = msgraph.leaky_relu %x : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @leaky_relu_alpha
// CHECK: %[[R:.+]] = msgraph.leaky_relu %{{[a-zA-Z0-9_]+}} {alpha = 1.000000e-01 : f32} : tensor<8xf64>
// CHECK: return %[[R]]
func.func @leaky_relu_alpha(%x: tensor<8xf64>) -> tensor<8xf64> {
  %r = msgraph.leaky_relu %x {alpha = 1.000000e-01 : f32} : tensor<8xf64>
  return %r : tensor<8xf64>
}
