// RUN: %check %s --work-dir %t
// RUN: %check %s --work-dir %t.v3 --levels O1 --compile-flags=--target-cpu=x86-64-v3
// RUN: ms-compile %s -O1 --precision=bf16 --target-cpu=znver4 --compile-to=linalg | FileCheck %s
// COMPILE-FLAGS: --precision=bf16
// Matmuls of two activations with --precision=bf16 (no weight: nothing is
// stored in bf16 at compile time): the contraction kernel rounds both
// operands as it runs, A split into pairs along k in place, B laid out in
// pairs of its k rows (two rows interleaved per row of pairs), and runs in
// pair form (AVX512-BF16 dot products where the CPU has them, else two
// FMAs of the pairs' halves: the x86-64-v3 run). A batch matmul with a row
// tail (13 rows) and a column tail (48 columns in blocks of 32), and a
// matmul by a transposed input (the transpose a kernel of its own), and a
// B of 600 columns (laid out in pairs 256 columns at a time). The
// reference rounds the operands to bf16 and sums in float64.
// CHECK-LABEL: func.func @kernel_0
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: vector.interleave %{{.+}}, %{{.+}} : vector<48xf32> -> vector<96xf32>
// CHECK: x86vector.avx512.dot
// CHECK-LABEL: func.func @kernel_2
// CHECK: vector.interleave %{{.+}}, %{{.+}} : vector<64xf32> -> vector<128xf32>
// CHECK: x86vector.avx512.dot
// INPUT 0: (rng.standard_normal((2, 13, 64)) * 0.25).astype(np.float32)
// INPUT 1: (rng.standard_normal((2, 64, 48)) * 0.25).astype(np.float32)
// INPUT 2: (rng.standard_normal((16, 32)) * 0.25).astype(np.float32)
// INPUT 3: (rng.standard_normal((64, 32)) * 0.25).astype(np.float32)
// INPUT 4: (rng.standard_normal((4, 32)) * 0.25).astype(np.float32)
// INPUT 5: (rng.standard_normal((32, 600)) * 0.25).astype(np.float32)
// REFERENCE: bf16(a0).astype(np.float64) @ bf16(a1).astype(np.float64)
// REFERENCE: bf16(a2).astype(np.float64) @ bf16(a3).astype(np.float64).T
// REFERENCE: bf16(a4).astype(np.float64) @ bf16(a5).astype(np.float64)
// TOLERANCE: rtol=1e-05 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: the npu compiles without the cpu's --precision, docs/NPU.md)
func.func @main(%a0: tensor<2x13x64xf32>, %a1: tensor<2x64x48xf32>, %a2: tensor<16x32xf32>, %a3: tensor<64x32xf32>, %a4: tensor<4x32xf32>, %a5: tensor<32x600xf32>) -> (tensor<2x13x48xf32>, tensor<16x64xf32>, tensor<4x600xf32>) {
  %c = msgraph.matmul %a0, %a1 : (tensor<2x13x64xf32>, tensor<2x64x48xf32>) -> tensor<2x13x48xf32>
  %t = msgraph.transpose %a3 {permutation = array<i64: 1, 0>} : (tensor<64x32xf32>) -> tensor<32x64xf32>
  %d = msgraph.matmul %a2, %t : (tensor<16x32xf32>, tensor<32x64xf32>) -> tensor<16x64xf32>
  %w = msgraph.matmul %a4, %a5 : (tensor<4x32xf32>, tensor<32x600xf32>) -> tensor<4x600xf32>
  return %c, %d, %w : tensor<2x13x48xf32>, tensor<16x64xf32>, tensor<4x600xf32>
}
