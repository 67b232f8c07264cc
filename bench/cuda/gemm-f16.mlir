// A 4096^3 matrix product of f16 tensors (f32 sums, rounded once to f16):
// the operands read as they are (no --precision; on sm_90a, the default,
// loaded by TMA into shared memory), multiplied on tensor cores (wgmma);
// against cuBLAS's f16 GEMM through PyTorch (f32 accumulation, PyTorch's
// default). Both round f32 sums to f16, in different orders of the terms.
// Variants (gpu-kit's bench-gemm-f16@NAME): 128 x 256 tiles (one block a
// multiprocessor, wgmma.m64n256k16) instead of 128 x 128, persistent
// blocks (as many as are resident at once on an H100 SXM or H200, each
// walking tiles: 132 of 128 x 128, whose tile loop takes 116 registers,
// too many for two blocks a multiprocessor, and 132 of 128 x 256), TMA
// issued by thread 0 between its products instead of a producer warp, wgmma with
// the operands copied by cp.async instead of TMA, and sm_90's cp.async
// and mma.sync.
// VARIANT: wide --cuda-wide-tiles
// VARIANT: persistent --cuda-persistent-blocks=132
// VARIANT: wide-persistent --cuda-wide-tiles --cuda-persistent-blocks=132
// VARIANT: thread0-tma --cuda-producer-warp=false
// VARIANT: cp-async --cuda-tma=false
// VARIANT: sm_90 --cuda-arch=sm_90
// TOLERANCE: rtol=4e-3 atol=2e-2
// TORCH: torch.matmul(a0, a1)
// FLOPS: 137438953472
func.func @main(%a0: tensor<4096x4096xf16>, %a1: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %r = msgraph.matmul %a0, %a1 : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
