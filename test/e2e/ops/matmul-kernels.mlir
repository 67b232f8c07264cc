// RUN: %check %s --work-dir %t
// RUN: %check %s --work-dir %t.v3 --levels O1 --compile-flags=--target-cpu=x86-64-v3
// RUN: %check %s --work-dir %t.both --levels O1 --compile-flags=--target-cpu=native,x86-64-v3
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v4 --compile-to=linalg | grep -c "vector.fma" | FileCheck %s
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v4 --compile-to=linalg | FileCheck %s --check-prefix=EPILOGUE
// Matmuls the register-tiled kernel covers (ms-cpu-contraction-kernels),
// at every level: 12 rows in blocks of 6 with 16-column vectors; linear
// layers on 3-D input (weights shared by the batch) with bias, ReLU and a
// per-row scale applied in registers at O1; a batch matmul with blocks of
// 5 rows; 13 rows (prime) in a block of 8 and one of the 5 left, with
// ReLU. Results match float64 NumPy and O0 (fused multiply-adds at every
// level).
// Kernel rows in registers (6 + 8 + 5 + 8 + 5 at O1): each row one
// vector.fma.
// CHECK: 32
// EPILOGUE-LABEL: func.func @fused_1_matmul_add_relu_mul
// EPILOGUE-NOT: linalg.generic
// EPILOGUE: arith.maximumf {{.*}} : vector<32xf32>
// EPILOGUE: arith.mulf {{.*}} : vector<32xf32>
// EPILOGUE-LABEL: func.func @kernel_2

// Compiled for AVX2 (x86-64-v3: blocks of 6 rows by two 8-lane vectors)
// the results match too, and so do those of a module with code for this
// host and for AVX2 (the host runs the first).
// REFERENCE: a0 @ a1
// REFERENCE: np.maximum(a2 @ a3 + a4, 0) * a5
// REFERENCE: a6 @ a7
// REFERENCE: np.maximum(a8 @ a9, 0)
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%a0: tensor<12x40xf32>, %a1: tensor<40x48xf32>, %a2: tensor<2x24x64xf32>, %a3: tensor<64x96xf32>, %a4: tensor<96xf32>, %a5: tensor<2x24x1xf32>, %a6: tensor<3x10x16xf32>, %a7: tensor<3x16x32xf32>, %a8: tensor<13x24xf32>, %a9: tensor<24x40xf32>) -> (tensor<12x48xf32>, tensor<2x24x96xf32>, tensor<3x10x32xf32>, tensor<13x40xf32>) {
  %0 = msgraph.matmul %a0, %a1 : (tensor<12x40xf32>, tensor<40x48xf32>) -> tensor<12x48xf32>
  %1 = msgraph.matmul %a2, %a3 : (tensor<2x24x64xf32>, tensor<64x96xf32>) -> tensor<2x24x96xf32>
  %2 = msgraph.add %1, %a4 : (tensor<2x24x96xf32>, tensor<96xf32>) -> tensor<2x24x96xf32>
  %3 = msgraph.relu %2 : tensor<2x24x96xf32>
  %4 = msgraph.mul %3, %a5 : (tensor<2x24x96xf32>, tensor<2x24x1xf32>) -> tensor<2x24x96xf32>
  %5 = msgraph.matmul %a6, %a7 : (tensor<3x10x16xf32>, tensor<3x16x32xf32>) -> tensor<3x10x32xf32>
  %6 = msgraph.matmul %a8, %a9 : (tensor<13x24xf32>, tensor<24x40xf32>) -> tensor<13x40xf32>
  %7 = msgraph.relu %6 : tensor<13x40xf32>
  return %0, %4, %5, %7 : tensor<12x48xf32>, tensor<2x24x96xf32>, tensor<3x10x32xf32>, tensor<13x40xf32>
}
