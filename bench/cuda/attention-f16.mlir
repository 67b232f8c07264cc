// Attention of f16 tensors, 8 x 16 heads, 1024 queries over 1024 keys,
// head size 64 (f32 softmax and sums, rounded once to f16): one kernel, a
// block per 32 queries of a head, its two products (Q K^T, P V) on tensor
// cores (mma.sync m16n8k16; the probabilities rounded to f16 as flash
// attention rounds them); against PyTorch's scaled_dot_product_attention
// (flash attention on a Hopper GPU).
// TOLERANCE: rtol=1e-2 atol=5e-3
// TORCH: torch.nn.functional.scaled_dot_product_attention(a0, a1, a2)
// FLOPS: 34359738368
func.func @main(%q: tensor<8x16x1024x64xf16>, %k: tensor<8x16x1024x64xf16>, %v: tensor<8x16x1024x64xf16>) -> tensor<8x16x1024x64xf16> {
  %y = msgraph.attention %q, %k, %v : (tensor<8x16x1024x64xf16>, tensor<8x16x1024x64xf16>, tensor<8x16x1024x64xf16>) -> tensor<8x16x1024x64xf16>
  return %y : tensor<8x16x1024x64xf16>
}
