// RUN: %check %s --work-dir %t
// Causal f16 attention whose query tiles skip the key tiles none of their
// rows sees: 200 queries (tiles of 25) over 300 keys (tiles of 100), query
// i sees keys up to i + 100; the first four query tiles walk two key tiles,
// the others all three, and the last key tile a query tile walks is partly
// hidden (the first query tile's rows see keys 100-124 of keys 100-199).
// Grouped-query: 4 query heads over 2 key/value heads.

// REFERENCE: attention(a0, a1, a2, is_causal=True, causal_offset=100)
// TOLERANCE: rtol=0.002 atol=0.002
func.func @main(%q: tensor<2x4x200x32xf16>, %k: tensor<2x2x300x32xf16>, %v: tensor<2x2x300x32xf16>) -> tensor<2x4x200x32xf16> {
  %y = msgraph.attention %q, %k, %v {is_causal = true, causal_offset = 100 : i64} : (tensor<2x4x200x32xf16>, tensor<2x2x300x32xf16>, tensor<2x2x300x32xf16>) -> tensor<2x4x200x32xf16>
  return %y : tensor<2x4x200x32xf16>
}
