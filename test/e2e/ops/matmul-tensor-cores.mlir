// RUN: %check %s --work-dir %t
// COMPILE-FLAGS: --precision=bf16
// Matmuls of two activations with --precision=bf16, shaped for the cuda
// target's tensor-core tiles (ms-cuda-tile-matmul: mma.sync on bf16 pairs,
// f32 sums; on the cpu the bf16 pair contraction kernel): a linear layer
// on 3-D input with bias and ReLU and tails in every dimension (150 rows,
// 200 columns, 100 terms: 64 x 64 tiles, 32 terms a step); a batch of
// products by transposed matrices (K innermost in both operands); and a
// product with enough 128 x 128 tiles for the large tile (9 x 30 = 270
// blocks: a warp's 64 x 32 piece as 4 x 4 fragments). The reference
// rounds the operands to bf16 and sums in float64.
// INPUT 0: (rng.standard_normal((2, 75, 100)) * 0.25).astype(np.float32)
// INPUT 1: (rng.standard_normal((100, 200)) * 0.25).astype(np.float32)
// INPUT 2: (rng.standard_normal((200,)) * 0.25).astype(np.float32)
// INPUT 3: (rng.standard_normal((3, 80, 40)) * 0.25).astype(np.float32)
// INPUT 4: (rng.standard_normal((3, 72, 40)) * 0.25).astype(np.float32)
// INPUT 5: (rng.standard_normal((1152, 48)) * 0.25).astype(np.float32)
// INPUT 6: (rng.standard_normal((48, 3840)) * 0.25).astype(np.float32)
// REFERENCE: np.maximum(bf16(a0).astype(np.float64) @ bf16(a1).astype(np.float64) + a2, 0)
// REFERENCE: bf16(a3).astype(np.float64) @ bf16(a4).astype(np.float64).transpose(0, 2, 1)
// REFERENCE: bf16(a5).astype(np.float64) @ bf16(a6).astype(np.float64)
// TOLERANCE: rtol=1e-4 atol=1e-4
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs, not bf16: docs/NPU.md)
func.func @main(%x: tensor<2x75x100xf32>, %w: tensor<100x200xf32>, %b: tensor<200xf32>,
                %q: tensor<3x80x40xf32>, %k: tensor<3x72x40xf32>,
                %l: tensor<1152x48xf32>, %r: tensor<48x3840xf32>)
    -> (tensor<2x75x200xf32>, tensor<3x80x72xf32>, tensor<1152x3840xf32>) {
  %0 = msgraph.matmul %x, %w : (tensor<2x75x100xf32>, tensor<100x200xf32>) -> tensor<2x75x200xf32>
  %1 = msgraph.add %0, %b : (tensor<2x75x200xf32>, tensor<200xf32>) -> tensor<2x75x200xf32>
  %2 = msgraph.relu %1 : tensor<2x75x200xf32>
  %kt = msgraph.transpose %k {permutation = array<i64: 0, 2, 1>} : (tensor<3x72x40xf32>) -> tensor<3x40x72xf32>
  %3 = msgraph.matmul %q, %kt : (tensor<3x80x40xf32>, tensor<3x40x72xf32>) -> tensor<3x80x72xf32>
  %4 = msgraph.matmul %l, %r : (tensor<1152x48xf32>, tensor<48x3840xf32>) -> tensor<1152x3840xf32>
  return %2, %3, %4 : tensor<2x75x200xf32>, tensor<3x80x72xf32>, tensor<1152x3840xf32>
}
