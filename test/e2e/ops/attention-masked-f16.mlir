// RUN: %check %s --work-dir %t
// f16 attention (f32 accumulation) with an additive padding mask per batch
// and key (1x1 over heads and queries): the last 37 keys of batch 1 are
// hidden; rows 0-3 of batch 0 are fully masked and must come out as zeros.
// A softcap of 30 bounds the scores.

// INPUT 3: np.where(np.arange(shape[0]*shape[3]).reshape(shape[0], 1, 1, shape[3]) % shape[3] >= shape[3] - 37 * np.arange(shape[0]).reshape(shape[0], 1, 1, 1), -np.inf, 0).astype(dtype) * np.ones(shape, dtype) + np.where((np.arange(shape[0]).reshape(shape[0], 1, 1, 1) == 0) & (np.arange(shape[2]).reshape(1, 1, shape[2], 1) < 4), -np.inf, 0).astype(dtype)
// REFERENCE: attention(a0, a1, a2, a3, softcap=30.0)
// TOLERANCE: rtol=0.002 atol=0.002
func.func @main(%q: tensor<2x4x64x64xf16>, %k: tensor<2x4x160x64xf16>, %v: tensor<2x4x160x64xf16>, %m: tensor<2x1x64x160xf16>) -> tensor<2x4x64x64xf16> {
  %y = msgraph.attention %q, %k, %v, %m {softcap = 30.0 : f64} : (tensor<2x4x64x64xf16>, tensor<2x4x160x64xf16>, tensor<2x4x160x64xf16>, tensor<2x1x64x160xf16>) -> tensor<2x4x64x64xf16>
  return %y : tensor<2x4x64x64xf16>
}
