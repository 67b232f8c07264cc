// RUN: %check %s --work-dir %t
// O1 groups: matmul + bias + GELU (one kernel, tiled by rows), the
// residual add joining it (same shape); the pre-activation value is also a
// program output, so the group returns two results; the softmax absorbs its
// scaling producer; a transposed read of a group value stays outside.

// REFERENCE: gelu(a0 @ a1 + a2) + a3
// REFERENCE: a0 @ a1 + a2
// REFERENCE: softmax(a3 * 0.125, axis=-1)
// REFERENCE: (a0 @ a1 + a2).T + 1.0
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%a0: tensor<64x96xf32>, %a1: tensor<96x64xf32>, %a2: tensor<64xf32>, %a3: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = msgraph.matmul %a0, %a1 : (tensor<64x96xf32>, tensor<96x64xf32>) -> tensor<64x64xf32>
  %1 = msgraph.add %0, %a2 : (tensor<64x64xf32>, tensor<64xf32>) -> tensor<64x64xf32>
  %2 = msgraph.gelu %1 : tensor<64x64xf32>
  %3 = msgraph.add %2, %a3 : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = msgraph.constant dense<0.125> : tensor<f32>
  %4 = msgraph.mul %a3, %s : (tensor<64x64xf32>, tensor<f32>) -> tensor<64x64xf32>
  %5 = msgraph.softmax %4 : tensor<64x64xf32>
  %t = msgraph.transpose %1 {permutation = array<i64: 1, 0>} : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %one = msgraph.constant dense<1.0> : tensor<f32>
  %6 = msgraph.add %t, %one : (tensor<64x64xf32>, tensor<f32>) -> tensor<64x64xf32>
  return %3, %1, %5, %6 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
