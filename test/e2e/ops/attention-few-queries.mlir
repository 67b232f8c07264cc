// RUN: %check %s --work-dir %t
// Attention of 3 queries over 96 keys (decoding a few tokens): on cuda a
// block per head whose row reductions (each row's max and sum over the 96
// keys) are split over 32 threads a row combined by warp shuffles, the
// block's other threads redoing the last row and keeping nothing. Checked
// against a float64 NumPy softmax(Q K^T / 8) V.

// REFERENCE: attention(a0, a1, a2)
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=2e-3 (fp16 cube inputs: docs/NPU.md)
func.func @main(%q: tensor<1x2x3x64xf32>, %k: tensor<1x2x96x64xf32>, %v: tensor<1x2x96x64xf32>) -> tensor<1x2x3x64xf32> {
  %y = msgraph.attention %q, %k, %v : (tensor<1x2x3x64xf32>, tensor<1x2x96x64xf32>, tensor<1x2x96x64xf32>) -> tensor<1x2x3x64xf32>
  return %y : tensor<1x2x3x64xf32>
}
