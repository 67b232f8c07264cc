// RUN: %check %s --work-dir %t
// Unmasked attention with 12 heads over 128 positions (4 query tiles of 32,
// one key tile of 128): one kernel at every level, never the full score
// matrix. Checked against a float64 NumPy softmax(Q K^T / 8) V.

// REFERENCE: attention(a0, a1, a2)
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=2e-3 (fp16 cube inputs: docs/NPU.md)
func.func @main(%q: tensor<1x12x128x64xf32>, %k: tensor<1x12x128x64xf32>, %v: tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32> {
  %y = msgraph.attention %q, %k, %v : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
  return %y : tensor<1x12x128x64xf32>
}
