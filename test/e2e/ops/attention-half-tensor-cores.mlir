// RUN: %check %s --work-dir %t
// RUN: ms-compile %s -O1 --target cuda --compile-to=gpu | FileCheck %s
// Attention of half-precision tensors, whose two products the cuda target
// runs on tensor cores inside the attention kernel (mma.sync m16n8k16, f32
// sums): causal grouped-query bf16 attention with a KV cache (8 query heads
// over 2 key/value heads, 64 new queries over 256 keys, head size 128: Q K^T
// is 32 x 128 by 128 terms a tile, four fragments a warp; P V 32 x 128 by
// 128 terms, the probabilities rounded to bf16 as flash attention does);
// then f16 attention of 40 queries over 77 keys, whose tiles fragments do
// not cover: 20 queries (rows past them read the last row and are not
// stored), 77 keys (Q K^T's columns past them likewise; P V's terms past
// them read as zeros). The reference is float64 attention of the rounded
// inputs; the bf16 output's rounding and the rounded probabilities make
// the tolerance. A lane reads 8 adjacent terms of a row of Q, K or V^T at
// once (two mma.syncs a fragment for 32 terms); the product over the 77
// keys (a tail of terms) reads them one by one.
// CHECK-LABEL: gpu.func @fused_3_attention_cast_1
// CHECK: vector.load {{.*}} vector<8xbf16>
// CHECK-COUNT-16: nvvm.mma.sync {{.*}} : (i32, i32, f32)
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @kernel_4_1
// CHECK-COUNT-8: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-NOT: nvvm.mma.sync
// CHECK: gpu.return
// INPUT 3: (rng.standard_normal(shape) * 0.5).astype(np.float16)
// INPUT 4: (rng.standard_normal(shape) * 0.5).astype(np.float16)
// INPUT 5: (rng.standard_normal(shape) * 0.5).astype(np.float16)
// REFERENCE: attention(bf16(a0), bf16(a1), bf16(a2), is_causal=True, causal_offset=192)
// REFERENCE: attention(a3, a4, a5)
// TOLERANCE: rtol=4e-3 atol=2e-3
func.func @main(%q: tensor<1x8x64x128xf32>, %k: tensor<1x2x256x128xf32>, %v: tensor<1x2x256x128xf32>, %q2: tensor<2x2x40x64xf16>, %k2: tensor<2x2x77x64xf16>, %v2: tensor<2x2x77x64xf16>) -> (tensor<1x8x64x128xf32>, tensor<2x2x40x64xf16>) {
  %qb = msgraph.cast %q : (tensor<1x8x64x128xf32>) -> tensor<1x8x64x128xbf16>
  %kb = msgraph.cast %k : (tensor<1x2x256x128xf32>) -> tensor<1x2x256x128xbf16>
  %vb = msgraph.cast %v : (tensor<1x2x256x128xf32>) -> tensor<1x2x256x128xbf16>
  %y = msgraph.attention %qb, %kb, %vb {is_causal = true, causal_offset = 192 : i64} : (tensor<1x8x64x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>) -> tensor<1x8x64x128xbf16>
  %yf = msgraph.cast %y : (tensor<1x8x64x128xbf16>) -> tensor<1x8x64x128xf32>
  %y2 = msgraph.attention %q2, %k2, %v2 : (tensor<2x2x40x64xf16>, tensor<2x2x77x64xf16>, tensor<2x2x77x64xf16>) -> tensor<2x2x40x64xf16>
  return %yf, %y2 : tensor<1x8x64x128xf32>, tensor<2x2x40x64xf16>
}
