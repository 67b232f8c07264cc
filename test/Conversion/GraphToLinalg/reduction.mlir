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

// -----

// A scan is a loop along the axis carrying one slice; exclusive writes the
// carried slice before combining the next input slice into it.
// CHECK-LABEL: func @cumsum_exclusive_reverse
// CHECK: %[[INIT:.+]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x1xf32>)
// CHECK: scf.for %[[I:.+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.+]] = %{{.*}}, %[[ACC:.+]] = %[[INIT]])
// CHECK:   %[[POS:.+]] = arith.subi %{{.*}}, %[[I]]
// CHECK:   %[[X:.+]] = tensor.extract_slice %{{.*}}[0, %[[POS]]] [2, 1] [1, 1]
// CHECK:   %[[W:.+]] = tensor.insert_slice %[[ACC]] into %[[OUT]][0, %[[POS]]] [2, 1] [1, 1]
// CHECK:   %[[C:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x1xf32>) outs(%[[ACC]] : tensor<2x1xf32>)
// CHECK:     arith.addf
// CHECK:   scf.yield %[[W]], %[[C]]
func.func @cumsum_exclusive_reverse(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = msgraph.cumsum %x {axis = -1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func @cumprod_int
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<1x3xi32>)
// CHECK: scf.for
// CHECK:   arith.muli
// CHECK:   tensor.insert_slice
func.func @cumprod_int(%x: tensor<4x3xi32>) -> tensor<4x3xi32> {
  %0 = msgraph.cumprod %x {axis = 0 : i64} : tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}
