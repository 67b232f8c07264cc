// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.layer_norm.

// CHECK-LABEL: func @layer_norm_bias
// CHECK: %[[R:.+]] = msgraph.layer_norm %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {epsilon = 1.000000e-03 : f32} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK: return %[[R]]
func.func @layer_norm_bias(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<2x16x64xf32> {
  %r = msgraph.layer_norm %x, %g, %b {epsilon = 1.000000e-03 : f32} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// CHECK-LABEL: func @layer_norm_nobias
// CHECK: %[[R:.+]] = msgraph.layer_norm %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} {axis = 1 : i64} : (tensor<2x16x64xf32>, tensor<16x64xf32>) -> tensor<2x16x64xf32>
// CHECK: return %[[R]]
func.func @layer_norm_nobias(%x: tensor<2x16x64xf32>, %g: tensor<16x64xf32>) -> tensor<2x16x64xf32> {
  %r = msgraph.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x16x64xf32>, tensor<16x64xf32>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}
