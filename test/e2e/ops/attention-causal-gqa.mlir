// RUN: %check %s --work-dir %t
// Causal grouped-query attention (8 query heads over 2 key/value heads) with
// a KV cache: 40 new queries over 300 keys (3 key tiles of 100), query i
// sees keys up to i + 260; a value head size (24) that differs from the
// key's (32); an explicit scale.

// REFERENCE: attention(a0, a1, a2, scale=0.2, is_causal=True, causal_offset=260)
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=2e-3 (fp16 cube inputs: docs/NPU.md)
func.func @main(%q: tensor<2x8x40x32xf32>, %k: tensor<2x2x300x32xf32>, %v: tensor<2x2x300x24xf32>) -> tensor<2x8x40x24xf32> {
  %y = msgraph.attention %q, %k, %v {is_causal = true, causal_offset = 260 : i64, scale = 0.2 : f64} : (tensor<2x8x40x32xf32>, tensor<2x2x300x32xf32>, tensor<2x2x300x24xf32>) -> tensor<2x8x40x24xf32>
  return %y : tensor<2x8x40x24xf32>
}
