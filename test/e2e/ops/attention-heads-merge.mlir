// RUN: %check %s --work-dir %t
// Causal attention whose heads are merged back (transpose, reshape): at O1
// the transpose and reshape join the attention kernel, one kernel in all.

// REFERENCE: np.transpose(attention(a0, a1, a2, is_causal=True), (0, 2, 1, 3)).reshape(1, 128, 256)
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=2e-3 (fp16 cube inputs: docs/NPU.md)
func.func @main(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x128x256xf32> {
  %y = msgraph.attention %q, %k, %v {is_causal = true} : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32>
  %t = msgraph.transpose %y {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x4x128x64xf32>) -> tensor<1x128x4x64xf32>
  %r = msgraph.reshape %t : (tensor<1x128x4x64xf32>) -> tensor<1x128x256xf32>
  return %r : tensor<1x128x256xf32>
}
