// RUN: ms-opt %s -split-input-file -msgraph-infer-shapes | FileCheck %s

// Results refine from operands; the private function's signature follows.
// CHECK-LABEL: func private @refine_chain
// CHECK-SAME: -> tensor<2x3xf32>
// CHECK: msgraph.add {{.*}} -> tensor<2x3xf32>
// CHECK: msgraph.relu {{.*}} : tensor<2x3xf32>
// CHECK: msgraph.reduce_sum {{.*}} -> tensor<2x1xf32>
// CHECK: msgraph.sub {{.*}} -> tensor<2x3xf32>
func.func private @refine_chain(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<?x?xf32> {
  %0 = msgraph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  %1 = msgraph.relu %0 : tensor<?x?xf32>
  %2 = msgraph.reduce_sum %1 {axes = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = msgraph.sub %1, %2 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

// -----

// A public function keeps its declared signature through a cast.
// CHECK-LABEL: func @public_signature
// CHECK-SAME: -> tensor<?x8xf32>
// CHECK: %[[M:.+]] = msgraph.matmul {{.*}} -> tensor<4x8xf32>
// CHECK: %[[C:.+]] = tensor.cast %[[M]] : tensor<4x8xf32> to tensor<?x8xf32>
// CHECK: return %[[C]]
func.func @public_signature(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>) -> tensor<?x8xf32> {
  %0 = msgraph.matmul %a, %b : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Constant shape operands make reshape, expand and constant_of_shape static.
// CHECK-LABEL: func @shape_operands
// CHECK: msgraph.reshape {{.*}} -> tensor<3x4xf32>
// CHECK: msgraph.expand {{.*}} -> tensor<2x3x4xf32>
// CHECK: msgraph.constant_of_shape {{.*}} -> tensor<3x4xf32>
func.func @shape_operands(%x: tensor<12xf32>) -> (tensor<?x?x?xf32>, tensor<?x?xf32>) {
  %s = msgraph.constant dense<[3, 4]> : tensor<2xi64>
  %e = msgraph.constant dense<[2, 3, 4]> : tensor<3xi64>
  %0 = msgraph.reshape %x, %s : (tensor<12xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = msgraph.expand %0, %e : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  %2 = msgraph.constant_of_shape %s {value = 0.0 : f32} : (tensor<2xi64>) -> tensor<?x?xf32>
  return %1, %2 : tensor<?x?x?xf32>, tensor<?x?xf32>
}

// -----

// Users outside msgraph keep the type they were written against.
// CHECK-LABEL: func @foreign_user
// CHECK: %[[T:.+]] = msgraph.transpose {{.*}} -> tensor<3x2xf32>
// CHECK: %[[C:.+]] = tensor.cast %[[T]] : tensor<3x2xf32> to tensor<?x?xf32>
// CHECK: tensor.dim %[[C]]
func.func @foreign_user(%x: tensor<2x3xf32>) -> index {
  %c0 = arith.constant 0 : index
  %0 = msgraph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<?x?xf32>
  %d = tensor.dim %0, %c0 : tensor<?x?xf32>
  return %d : index
}

// -----

// Convolution and pooling output sizes are computed from the window.
// CHECK-LABEL: func @windows
// CHECK: msgraph.conv {{.*}} -> tensor<1x16x8x8xf32>
// CHECK: msgraph.max_pool {{.*}} -> tensor<1x16x4x4xf32>
// CHECK: msgraph.batch_norm {{.*}} -> tensor<1x16x4x4xf32>
func.func @windows(%x: tensor<1x3x16x16xf32>, %w: tensor<16x3x3x3xf32>, %s: tensor<16xf32>) -> tensor<?x?x?x?xf32> {
  %0 = msgraph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %1 = msgraph.max_pool %0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %2 = msgraph.batch_norm %1, %s, %s, %s, %s : (tensor<?x?x?x?xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<?x?x?x?xf32>
  return %2 : tensor<?x?x?x?xf32>
}

// -----

// Nothing is known about a dynamic input: nothing changes.
// CHECK-LABEL: func @unknown
// CHECK: msgraph.exp {{.*}} : tensor<?xf32>
func.func @unknown(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = msgraph.exp %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
