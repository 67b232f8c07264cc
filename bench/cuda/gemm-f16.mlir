// A 4096^3 matrix product of f16 tensors (f32 sums, rounded once to f16):
// the operands read as they are (cp.async into shared memory, no
// --precision), multiplied on tensor cores (mma.sync); against cuBLAS's
// f16 GEMM through PyTorch (f32 accumulation, PyTorch's default).
// Both round f32 sums to f16, in different orders of the terms.
// TOLERANCE: rtol=4e-3 atol=2e-2
// TORCH: torch.matmul(a0, a1)
// FLOPS: 137438953472
func.func @main(%a0: tensor<4096x4096xf16>, %a1: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %r = msgraph.matmul %a0, %a1 : (tensor<4096x4096xf16>, tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
