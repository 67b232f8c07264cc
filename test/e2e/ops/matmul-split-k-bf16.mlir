// RUN: %check %s --work-dir %t
// RUN: ms-compile %s -O1 --target cuda --precision=bf16 --compile-to=gpu | FileCheck %s
// COMPILE-FLAGS: --precision=bf16
// Products split along K on tensor cores (ms-cuda-tile-matmul with
// --precision bf16): a linear layer with bias (96 x 80: 4 tiles of 64 x
// 64, both edges partial; K = 900: 3 parts of 10, 10 and 9 steps of 32,
// the last step partial; the parts combined by a thread per 4 adjacent
// outputs, though the tensor cores' threads store pairs) and a batch product (2 tiles, split in 2). Small
// integers are exact in bf16 and their sums in f32, so the outputs must
// match exactly.
// REFERENCE: a0 @ a1 + a2
// REFERENCE: a3 @ a4
// INPUT 0: rng.integers(-8, 9, shape)
// INPUT 1: rng.integers(-8, 9, shape)
// INPUT 2: rng.integers(-64, 65, shape)
// INPUT 3: rng.integers(-8, 9, shape)
// INPUT 4: rng.integers(-8, 9, shape)
// TOLERANCE: rtol=0 atol=0
// CHECK-LABEL: func.func @fused_0_matmul_add(
// CHECK: memref.alloc() : memref<3x1x96x80xf32>
// CHECK: gpu.launch_func @ms_cuda::@fused_0_matmul_add_0 blocks in (%c12,
// CHECK: gpu.launch_func @ms_cuda::@fused_0_matmul_add_1 blocks in (%c8,
// CHECK-LABEL: func.func @kernel_1(
// CHECK: memref.alloc() : memref<2x2x40x40xf32>
// CHECK: gpu.launch_func @ms_cuda::@kernel_1_0 blocks in (%c4,
// CHECK: gpu.launch_func @ms_cuda::@kernel_1_1 blocks in (%c4,
func.func @main(%a0: tensor<96x900xf32>, %a1: tensor<900x80xf32>, %a2: tensor<80xf32>, %a3: tensor<2x40x700xf32>, %a4: tensor<2x700x40xf32>) -> (tensor<96x80xf32>, tensor<2x40x40xf32>) {
  %0 = msgraph.matmul %a0, %a1 : (tensor<96x900xf32>, tensor<900x80xf32>) -> tensor<96x80xf32>
  %1 = msgraph.add %0, %a2 : (tensor<96x80xf32>, tensor<80xf32>) -> tensor<96x80xf32>
  %2 = msgraph.matmul %a3, %a4 : (tensor<2x40x700xf32>, tensor<2x700x40xf32>) -> tensor<2x40x40xf32>
  return %1, %2 : tensor<96x80xf32>, tensor<2x40x40xf32>
}
