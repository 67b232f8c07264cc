// RUN: ms-opt %s -split-input-file -convert-msgraph-to-linalg | FileCheck %s

// CHECK-LABEL: func @reduce_mean_keep_dims
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: tensor.expand_shape
func.func @reduce_mean_keep_dims(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = msgraph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func @argmax
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.index 0
// CHECK: arith.cmpf ogt
// CHECK: linalg.yield
func.func @argmax(%x: tensor<3x4xf32>) -> tensor<4xi64> {
  %0 = msgraph.argmax %x {axis = 0 : i64, keep_dims = false} : (tensor<3x4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Softmax: max, exp(x - max), sum, divide.
// CHECK-LABEL: func @softmax
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = msgraph.softmax %x : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// CHECK-LABEL: func @log_softmax
// CHECK: math.exp
// CHECK: math.log
func.func @log_softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = msgraph.log_softmax %x {axis = 0 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
