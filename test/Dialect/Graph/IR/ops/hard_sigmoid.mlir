// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.hard_sigmoid.

// CHECK-LABEL: func @hard_sigmoid
// CHECK: %[[R:.+]] = msgraph.hard_sigmoid %{{[a-zA-Z0-9_]+}} {alpha = 2.500000e-01 : f32, beta = 1.000000e+00 : f32} : tensor<8xf32>
// CHECK: return %[[R]]
func.func @hard_sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = msgraph.hard_sigmoid %x {alpha = 2.500000e-01 : f32, beta = 1.000000e+00 : f32} : tensor<8xf32>
  return %r : tensor<8xf32>
}
