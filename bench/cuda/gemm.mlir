// A 4096^3 f32 matrix product: against cuBLAS through PyTorch (f32, no
// TF32).
// TORCH: torch.matmul(a0, a1)
// FLOPS: 137438953472
func.func @main(%a0: tensor<4096x4096xf32>, %a1: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = msgraph.matmul %a0, %a1 : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
