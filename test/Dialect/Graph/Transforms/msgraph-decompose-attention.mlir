// RUN: ms-opt %s -split-input-file -msgraph-decompose-attention | FileCheck %s
// Attention as matmuls and a softmax written out (for the npu's cube).

// CHECK-LABEL: func.func @plain
// The default scale is 1 / sqrt(16); the softmax clamps the row maximum to
// a finite value and the sum to the smallest normal number.
// CHECK-DAG: %[[TINY:.*]] = msgraph.constant dense<1.17549435E-38> : tensor<f32>
// CHECK-DAG: %[[LOWEST:.*]] = msgraph.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK-DAG: %[[SCALE:.*]] = msgraph.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[KT:.*]] = msgraph.transpose %arg1 {permutation = array<i64: 0, 1, 3, 2>}
// CHECK: %[[S:.*]] = msgraph.matmul %arg0, %[[KT]] : (tensor<1x2x8x16xf32>, tensor<1x2x16x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK: %[[SS:.*]] = msgraph.mul %[[S]], %[[SCALE]]
// CHECK: %[[MAX:.*]] = msgraph.reduce_max %[[SS]] {axes = array<i64: 3>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x1xf32>
// CHECK: %[[CMAX:.*]] = msgraph.max %[[MAX]], %[[LOWEST]]
// CHECK: %[[E:.*]] = msgraph.exp
// CHECK: %[[SUM:.*]] = msgraph.reduce_sum %[[E]] {axes = array<i64: 3>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x8x1xf32>
// CHECK: %[[CSUM:.*]] = msgraph.max %[[SUM]], %[[TINY]]
// CHECK: %[[P:.*]] = msgraph.div %[[E]], %[[CSUM]]
// CHECK: %[[O:.*]] = msgraph.matmul %[[P]], %arg2 : (tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK: return %[[O]]
func.func @plain(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %y = msgraph.attention %q, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %y : tensor<1x2x8x16xf32>
}

// -----

// Grouped-query attention: the two query heads of each key head are the
// rows of one matmul; causal positions get -inf from a constant (row r is
// query r % 3); the softcap is tanh(s / 50) * 50; the mask over one head
// broadcasts over the group in 5-d.
// CHECK-LABEL: func.func @gqa_causal_masked
// CHECK-DAG: %[[CAUSAL:.*]] = msgraph.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0xFF800000
// CHECK-DAG: msgraph.constant dense<5.000000e+01> : tensor<f32>
// CHECK-DAG: msgraph.constant dense<2.000000e-02> : tensor<f32>
// CHECK: msgraph.reshape %arg0 : (tensor<1x4x3x8xf32>) -> tensor<1x2x6x8xf32>
// CHECK: msgraph.matmul {{.*}} -> tensor<1x2x6x5xf32>
// CHECK: msgraph.tanh
// CHECK: msgraph.reshape {{.*}} -> tensor<1x2x2x3x5xf32>
// CHECK: msgraph.reshape %arg3 : (tensor<1x1x3x5xf32>) -> tensor<1x1x1x3x5xf32>
// CHECK: msgraph.add
// CHECK: msgraph.reshape {{.*}} -> tensor<1x2x6x5xf32>
// CHECK: msgraph.add %{{.*}}, %[[CAUSAL]]
// CHECK: msgraph.matmul {{.*}} -> tensor<1x2x6x8xf32>
// CHECK: msgraph.reshape {{.*}} -> tensor<1x4x3x8xf32>
func.func @gqa_causal_masked(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %m: tensor<1x1x3x5xf32>) -> tensor<1x4x3x8xf32> {
  %y = msgraph.attention %q, %k, %v, %m {is_causal = true, causal_offset = 1 : i64, softcap = 50.0 : f64} : (tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x1x3x5xf32>) -> tensor<1x4x3x8xf32>
  return %y : tensor<1x4x3x8xf32>
}

// -----

// Dynamic shapes are left alone.
// CHECK-LABEL: func.func @dynamic
// CHECK: msgraph.attention
func.func @dynamic(%q: tensor<?x2x8x16xf32>, %k: tensor<?x2x8x16xf32>, %v: tensor<?x2x8x16xf32>) -> tensor<?x2x8x16xf32> {
  %y = msgraph.attention %q, %k, %v : (tensor<?x2x8x16xf32>, tensor<?x2x8x16xf32>, tensor<?x2x8x16xf32>) -> tensor<?x2x8x16xf32>
  return %y : tensor<?x2x8x16xf32>
}
