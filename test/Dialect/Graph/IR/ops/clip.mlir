// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.clip.

// CHECK-LABEL: func @clip_both
// CHECK: %[[R:.+]] = msgraph.clip %{{[a-zA-Z0-9_]+}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<8xf32>
// CHECK: return %[[R]]
func.func @clip_both(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = msgraph.clip %x {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// CHECK-LABEL: func @clip_min_i32
// CHECK: %[[R:.+]] = msgraph.clip %{{[a-zA-Z0-9_]+}} {min = -3.000000e+00 : f64} : tensor<8xi32>
// CHECK: return %[[R]]
func.func @clip_min_i32(%x: tensor<8xi32>) -> tensor<8xi32> {
  %r = msgraph.clip %x {min = -3.000000e+00 : f64} : tensor<8xi32>
  return %r : tensor<8xi32>
}
