// RUN: %check %s --work-dir %t
// Attention written op by op, as PyTorch exports GPT-2 (scores divided by
// sqrt(d), the upper triangle replaced by -inf, plus a padding mask): O0
// runs each op as a kernel, O1 and O2 raise the chain into one
// msgraph.attention kernel (the where and the padding mask become its mask
// operand). All levels match the float64 reference and each other.

// INPUT 3: np.where(np.arange(shape[3]) >= shape[3] - 5, -np.inf, 0).astype(dtype).reshape(shape)
// REFERENCE: attention(a0, np.swapaxes(a1, -1, -2), a2, a3, is_causal=True, scale=0.125)
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=2e-3 (fp16 cube inputs: docs/NPU.md)
func.func @main(%q: tensor<1x4x96x64xf32>, %kt: tensor<1x4x64x96xf32>, %v: tensor<1x4x96x64xf32>, %pad: tensor<1x1x1x96xf32>) -> tensor<1x4x96x64xf32> {
  %zero = msgraph.constant dense<0> : tensor<i64>
  %n = msgraph.constant dense<96> : tensor<i64>
  %one = msgraph.constant dense<1> : tensor<i64>
  %idx = msgraph.range %zero, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<96xi64>
  %rows = msgraph.reshape %idx : (tensor<96xi64>) -> tensor<96x1xi64>
  %hidden = msgraph.greater %idx, %rows : (tensor<96xi64>, tensor<96x1xi64>) -> tensor<96x96xi1>
  %ninf = msgraph.constant dense<0xFF800000> : tensor<f32>
  %s = msgraph.matmul %q, %kt : (tensor<1x4x96x64xf32>, tensor<1x4x64x96xf32>) -> tensor<1x4x96x96xf32>
  %c = msgraph.constant dense<8.0> : tensor<f32>
  %d = msgraph.div %s, %c : (tensor<1x4x96x96xf32>, tensor<f32>) -> tensor<1x4x96x96xf32>
  %w = msgraph.where %hidden, %ninf, %d : (tensor<96x96xi1>, tensor<f32>, tensor<1x4x96x96xf32>) -> tensor<1x4x96x96xf32>
  %a = msgraph.add %w, %pad : (tensor<1x4x96x96xf32>, tensor<1x1x1x96xf32>) -> tensor<1x4x96x96xf32>
  %p = msgraph.softmax %a : tensor<1x4x96x96xf32>
  %y = msgraph.matmul %p, %v : (tensor<1x4x96x96xf32>, tensor<1x4x96x64xf32>) -> tensor<1x4x96x64xf32>
  return %y : tensor<1x4x96x64xf32>
}
