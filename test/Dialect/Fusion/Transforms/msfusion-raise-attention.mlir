// RUN: ms-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(msfusion-raise-attention))' | FileCheck %s

// BERT as exported: K^T is the key projection transposed (0, 2, 3, 1), the
// scores are divided by sqrt(64); K becomes the (0, 2, 1, 3) transpose.
// CHECK-LABEL: func @bert
// CHECK: %[[K:.+]] = msgraph.transpose %arg1 {permutation = array<i64: 0, 2, 1, 3>}
// CHECK: %[[Y:.+]] = msgraph.attention %arg0, %[[K]], %arg2 {scale = 1.250000e-01 : f64} : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
// CHECK-NOT: msgraph.softmax
// CHECK: return %[[Y]]
func.func @bert(%q: tensor<1x12x128x64xf32>, %kp: tensor<1x128x12x64xf32>, %v: tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32> {
  %kt = msgraph.transpose %kp {permutation = array<i64: 0, 2, 3, 1>} : (tensor<1x128x12x64xf32>) -> tensor<1x12x64x128xf32>
  %s = msgraph.matmul %q, %kt : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>) -> tensor<1x12x128x128xf32>
  %c = msgraph.constant dense<8.0> : tensor<f32>
  %d = msgraph.div %s, %c : (tensor<1x12x128x128xf32>, tensor<f32>) -> tensor<1x12x128x128xf32>
  %p = msgraph.softmax %d : tensor<1x12x128x128xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x12x128x128xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
  return %y : tensor<1x12x128x64xf32>
}

// -----

// GPT-2's masked_fill(~tril, -inf): a constant condition hiding exactly the
// keys after the diagonal becomes is_causal, with no mask operand.
// CHECK-LABEL: func @gpt2_causal
// CHECK: msgraph.attention %arg0, %{{.+}}, %arg2 {is_causal = true, scale = 5.000000e-01 : f64}
// CHECK-NOT: msgraph.where
func.func @gpt2_causal(%q: tensor<1x2x4x4xf32>, %kt: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %hidden = msgraph.constant dense<[[false, true, true, true], [false, false, true, true], [false, false, false, true], [false, false, false, false]]> : tensor<4x4xi1>
  %ninf = msgraph.constant dense<0xFF800000> : tensor<f32>
  %s = msgraph.matmul %q, %kt : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %c = msgraph.constant dense<0.5> : tensor<f32>
  %m = msgraph.mul %s, %c : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32>
  %w = msgraph.where %hidden, %ninf, %m : (tensor<4x4xi1>, tensor<f32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p = msgraph.softmax %w : tensor<1x2x4x4xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %y : tensor<1x2x4x4xf32>
}

// -----

// LLaMA's reference code: the scaled scores plus a constant -inf triangle
// (torch.triu(full(-inf), 1)) become is_causal, with no mask operand; here
// the triangle is shifted by one key (3 queries after a cached key), which
// gives causal_offset 1.
// CHECK-LABEL: func @llama_causal
// CHECK: msgraph.attention %arg0, %{{.+}}, %arg2 {causal_offset = 1 : i64, is_causal = true, scale = 5.000000e-01 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NOT: msgraph.add
func.func @llama_causal(%q: tensor<1x2x3x4xf32>, %kt: tensor<1x2x4x4xf32>, %v: tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32> {
  %mask = msgraph.constant dense<[[0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<3x4xf32>
  %s = msgraph.matmul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
  %c = msgraph.constant dense<2.0> : tensor<f32>
  %d = msgraph.div %s, %c : (tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
  %m = msgraph.add %d, %mask : (tensor<1x2x3x4xf32>, tensor<3x4xf32>) -> tensor<1x2x3x4xf32>
  %p = msgraph.softmax %m : tensor<1x2x3x4xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x2x3x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x3x4xf32>
  return %y : tensor<1x2x3x4xf32>
}

// -----

// An additive constant that is not a -inf triangle stays the mask operand.
// CHECK-LABEL: func @not_a_triangle
// CHECK: msgraph.attention %arg0, %{{.+}}, %arg2, %{{.+}} {scale = 5.000000e-01 : f64}
func.func @not_a_triangle(%q: tensor<1x2x2x2xf32>, %kt: tensor<1x2x2x2xf32>, %v: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %mask = msgraph.constant dense<[[0.0, -1.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %s = msgraph.matmul %q, %kt : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = msgraph.constant dense<2.0> : tensor<f32>
  %d = msgraph.div %s, %c : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %m = msgraph.add %d, %mask : (tensor<1x2x2x2xf32>, tensor<2x2xf32>) -> tensor<1x2x2x2xf32>
  %p = msgraph.softmax %m : tensor<1x2x2x2xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// An additive padding mask per batch and key, plus a where(visible, s, -inf)
// that is not causal: both become one additive mask operand.
// CHECK-LABEL: func @masks
// CHECK: %[[BIAS:.+]] = msgraph.where %arg4, %{{.+}}, %{{.+}} : (tensor<4x6xi1>, tensor<f32>, tensor<f32>) -> tensor<4x6xf32>
// CHECK: %[[SUM:.+]] = msgraph.add %arg3, %[[BIAS]] : (tensor<2x1x1x6xf32>, tensor<4x6xf32>) -> tensor<2x1x4x6xf32>
// CHECK: msgraph.attention %arg0, %{{.+}}, %arg2, %[[SUM]] {scale = 1.000000e+00 : f64}
func.func @masks(%q: tensor<2x3x4x8xf32>, %kt: tensor<2x3x8x6xf32>, %v: tensor<2x3x6x8xf32>, %pad: tensor<2x1x1x6xf32>, %visible: tensor<4x6xi1>) -> tensor<2x3x4x8xf32> {
  %ninf = msgraph.constant dense<0xFF800000> : tensor<f32>
  %s = msgraph.matmul %q, %kt : (tensor<2x3x4x8xf32>, tensor<2x3x8x6xf32>) -> tensor<2x3x4x6xf32>
  %w = msgraph.where %visible, %s, %ninf : (tensor<4x6xi1>, tensor<2x3x4x6xf32>, tensor<f32>) -> tensor<2x3x4x6xf32>
  %a = msgraph.add %w, %pad : (tensor<2x3x4x6xf32>, tensor<2x1x1x6xf32>) -> tensor<2x3x4x6xf32>
  %p = msgraph.softmax %a : tensor<2x3x4x6xf32>
  %y = msgraph.matmul %p, %v : (tensor<2x3x4x6xf32>, tensor<2x3x6x8xf32>) -> tensor<2x3x4x8xf32>
  return %y : tensor<2x3x4x8xf32>
}

// -----

// PyTorch's MultiheadAttention: batch and heads folded (rank 3), the query
// scaled before the product; reshaped to one batch of 8 heads and back.
// CHECK-LABEL: func @mha_rank3
// CHECK: %[[K:.+]] = msgraph.transpose %arg1 {permutation = array<i64: 1, 0, 2>}
// CHECK: %[[Q4:.+]] = msgraph.reshape %arg0 : (tensor<8x16x16xf32>) -> tensor<1x8x16x16xf32>
// CHECK: %[[K4:.+]] = msgraph.reshape %[[K]] : (tensor<8x16x16xf32>) -> tensor<1x8x16x16xf32>
// CHECK: %[[V4:.+]] = msgraph.reshape %arg2 : (tensor<8x16x16xf32>) -> tensor<1x8x16x16xf32>
// CHECK: %[[Y:.+]] = msgraph.attention %[[Q4]], %[[K4]], %[[V4]] {scale = 2.500000e-01 : f64}
// CHECK: msgraph.reshape %[[Y]] : (tensor<1x8x16x16xf32>) -> tensor<8x16x16xf32>
func.func @mha_rank3(%q: tensor<8x16x16xf32>, %kp: tensor<16x8x16xf32>, %v: tensor<8x16x16xf32>) -> tensor<8x16x16xf32> {
  %c = msgraph.constant dense<4.0> : tensor<f32>
  %qs = msgraph.div %q, %c : (tensor<8x16x16xf32>, tensor<f32>) -> tensor<8x16x16xf32>
  %kt = msgraph.transpose %kp {permutation = array<i64: 1, 2, 0>} : (tensor<16x8x16xf32>) -> tensor<8x16x16xf32>
  %s = msgraph.matmul %qs, %kt : (tensor<8x16x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %p = msgraph.softmax %s : tensor<8x16x16xf32>
  %y = msgraph.matmul %p, %v : (tensor<8x16x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  return %y : tensor<8x16x16xf32>
}

// -----

// Not raised: the probabilities are returned too (they would have to be
// materialized anyway).
// CHECK-LABEL: func @probs_used
// CHECK-NOT: msgraph.attention
// CHECK: msgraph.softmax
func.func @probs_used(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>) {
  %s = msgraph.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = msgraph.softmax %s : tensor<1x2x4x4xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %y, %p : tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>
}

// -----

// Not raised: a softmax over another axis, and a scale that is a tensor.
// CHECK-LABEL: func @not_attention
// CHECK-NOT: msgraph.attention
func.func @not_attention(%q: tensor<1x2x4x8xf32>, %kt: tensor<1x2x8x4xf32>, %v: tensor<1x2x4x8xf32>, %t: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %s = msgraph.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %p = msgraph.softmax %s {axis = 2 : i64} : tensor<1x2x4x4xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  %s2 = msgraph.matmul %q, %kt : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32>
  %m = msgraph.mul %s2, %t : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %p2 = msgraph.softmax %m : tensor<1x2x4x4xf32>
  %y2 = msgraph.matmul %p2, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %y, %y2 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}
