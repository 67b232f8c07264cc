// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.matmul.

// CHECK-LABEL: func @matmul_2d
// CHECK: %[[R:.+]] = msgraph.matmul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
// CHECK: return %[[R]]
func.func @matmul_2d(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %r = msgraph.matmul %a, %b : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// -----

// CHECK-LABEL: func @matmul_batched
// CHECK: %[[R:.+]] = msgraph.matmul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<8x1x64x32xf32>, tensor<4x32x16xf32>) -> tensor<8x4x64x16xf32>
// CHECK: return %[[R]]
func.func @matmul_batched(%a: tensor<8x1x64x32xf32>, %b: tensor<4x32x16xf32>) -> tensor<8x4x64x16xf32> {
  %r = msgraph.matmul %a, %b : (tensor<8x1x64x32xf32>, tensor<4x32x16xf32>) -> tensor<8x4x64x16xf32>
  return %r : tensor<8x4x64x16xf32>
}

// -----

// CHECK-LABEL: func @matmul_vector
// CHECK: %[[R:.+]] = msgraph.matmul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<32xf32>, tensor<?x32x16xf32>) -> tensor<?x16xf32>
// CHECK: return %[[R]]
func.func @matmul_vector(%a: tensor<32xf32>, %b: tensor<?x32x16xf32>) -> tensor<?x16xf32> {
  %r = msgraph.matmul %a, %b : (tensor<32xf32>, tensor<?x32x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func @matmul_dot
// CHECK: %[[R:.+]] = msgraph.matmul %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<32xi32>, tensor<32xi32>) -> tensor<i32>
// CHECK: return %[[R]]
func.func @matmul_dot(%a: tensor<32xi32>, %b: tensor<32xi32>) -> tensor<i32> {
  %r = msgraph.matmul %a, %b : (tensor<32xi32>, tensor<32xi32>) -> tensor<i32>
  return %r : tensor<i32>
}
