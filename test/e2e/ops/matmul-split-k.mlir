// RUN: %check %s --work-dir %t
// RUN: ms-compile %s -O1 --target cuda --compile-to=gpu | FileCheck %s
// Products of few output tiles and long sums, which the cuda target splits
// along K (ms-cuda-tile-matmul): a linear layer whose bias and ReLU run
// in the launch that adds up the parts (100 x 72: 4 small tiles, both
// edges partial; K = 1100: 4 parts of 18 steps of 16 but the last of 15,
// its last step partial; 16 blocks, then 8 of a thread per 4 adjacent
// outputs), and
// a batch product (3 tiles, one a batch index, split in 2). Small
// integers make every sum exact in f32, so the outputs must match
// exactly: a part lost, counted twice or written to another output would
// show. On the CPU they are plain matmuls.
// REFERENCE: np.maximum(a0 @ a1 + a2, 0) + a3
// REFERENCE: a4 @ a5
// INPUT 0: rng.integers(-8, 9, shape)
// INPUT 1: rng.integers(-8, 9, shape)
// INPUT 2: rng.integers(-64, 65, shape)
// INPUT 3: rng.integers(-8, 9, shape)
// INPUT 4: rng.integers(-8, 9, shape)
// INPUT 5: rng.integers(-8, 9, shape)
// TOLERANCE: rtol=0 atol=0
// CHECK-LABEL: func.func @fused_0_matmul_add_relu(
// CHECK: %[[P:.+]] = memref.alloc() : memref<4x1x100x72xf32>
// CHECK: gpu.launch_func @ms_cuda::@fused_0_matmul_add_relu_0 blocks in (%c16,
// CHECK-SAME: args(%{{.+}}, %{{.+}}, %[[P]] : memref<4x1x100x72xf32>)
// CHECK: gpu.launch_func @ms_cuda::@fused_0_matmul_add_relu_1 blocks in (%c8,
// CHECK-SAME: args(%[[P]] : memref<4x1x100x72xf32>,
// CHECK-LABEL: func.func @kernel_1(
// CHECK: memref.alloc() : memref<2x3x40x40xf32>
// CHECK: gpu.launch_func @ms_cuda::@kernel_1_0 blocks in (%c6,
// CHECK: gpu.launch_func @ms_cuda::@kernel_1_1 blocks in (%c5,
func.func @main(%a0: tensor<100x1100xf32>, %a1: tensor<1100x72xf32>, %a2: tensor<72xf32>, %a3: tensor<100x72xf32>, %a4: tensor<3x40x520xf32>, %a5: tensor<3x520x40xf32>) -> (tensor<100x72xf32>, tensor<3x40x40xf32>) {
  %0 = msgraph.matmul %a0, %a1 : (tensor<100x1100xf32>, tensor<1100x72xf32>) -> tensor<100x72xf32>
  %1 = msgraph.add %0, %a2 : (tensor<100x72xf32>, tensor<72xf32>) -> tensor<100x72xf32>
  %2 = msgraph.relu %1 : tensor<100x72xf32>
  %3 = msgraph.add %2, %a3 : (tensor<100x72xf32>, tensor<100x72xf32>) -> tensor<100x72xf32>
  %4 = msgraph.matmul %a4, %a5 : (tensor<3x40x520xf32>, tensor<3x520x40xf32>) -> tensor<3x40x40xf32>
  return %3, %4 : tensor<100x72xf32>, tensor<3x40x40xf32>
}
