// RUN: %check %s --work-dir %t
// RUN: ms-compile %s -O1 --precision=bf16 --target-cpu=znver4 --compile-to=linalg | FileCheck %s
// COMPILE-FLAGS: --precision=bf16
// Attention with --precision=bf16: its two matmuls (Q K^T and P V, inside
// the tiled online-softmax kernel) run as bf16 pair contractions, their
// operands rounded as the kernel runs (Q and P split into pairs in place,
// K^T and V laid out in pairs of rows); the softmax stays f32. Against a
// float64 NumPy softmax(Q K^T / 8) V, the error is that of bf16 operands
// (5.6e-4 at most on these inputs; f32 gives 1e-7).
// CHECK-LABEL: func.func @kernel_0
// CHECK: scf.forall
// CHECK-COUNT-2: vector.interleave
// CHECK: x86vector.avx512.dot
// REFERENCE: attention(a0, a1, a2)
// TOLERANCE: rtol=5e-3 atol=5e-3
// NPU-TOLERANCE: rtol=1e-2 atol=2e-3 (fp16 cube inputs: docs/NPU.md)
func.func @main(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32> {
  %y = msgraph.attention %q, %k, %v : (tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>, tensor<1x4x128x64xf32>) -> tensor<1x4x128x64xf32>
  return %y : tensor<1x4x128x64xf32>
}
