// A 4096^3 matrix product of f32 operands multiplied in bf16 on tensor
// cores (--precision bf16: each operand rounded to bf16 by a launch of its
// own; on sm_90a, the default, then loaded by TMA through a 5-stage
// mbarrier pipeline and multiplied by wgmma, f32 sums): against cuBLAS's
// bf16 GEMM through PyTorch, the operands rounded the same way first.
// Variants (gpu-kit's bench-gemm-bf16@NAME): 128 x 256 tiles (one block a
// multiprocessor, wgmma.m64n256k16) instead of 128 x 128, persistent
// blocks (as many as are resident at once on an H100 SXM or H200, each
// walking tiles: 132 of 128 x 128, whose tile loop takes 116 registers,
// too many for two blocks a multiprocessor, and 132 of 128 x 256), TMA
// issued by thread 0 between its products instead of a producer warp, wgmma with
// the operands copied by cp.async instead of TMA, and sm_90's cp.async
// and mma.sync.
// COMPILE-FLAGS: --precision=bf16
// VARIANT: wide --cuda-wide-tiles
// VARIANT: persistent --cuda-persistent-blocks=132
// VARIANT: wide-persistent --cuda-wide-tiles --cuda-persistent-blocks=132
// VARIANT: thread0-tma --cuda-producer-warp=false
// VARIANT: cp-async --cuda-tma=false
// VARIANT: sm_90 --cuda-arch=sm_90
// PyTorch's product is bf16 (f32 sums rounded to 8 significant bits), so
// the comparison allows that rounding (2^-9 relative) and no more.
// TOLERANCE: rtol=4e-3 atol=1e-3
// TORCH: torch.matmul(a0.bfloat16(), a1.bfloat16()).float()
// FLOPS: 137438953472
func.func @main(%a0: tensor<4096x4096xf32>, %a1: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = msgraph.matmul %a0, %a1 : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
