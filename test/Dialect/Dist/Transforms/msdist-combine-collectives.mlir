// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(msdist-combine-collectives))' | FileCheck %s

// A slice of a sum over the same axes is a reduce_scatter.
shard.grid @mesh(shape = 2x2)
// CHECK-LABEL: func.func @slice_of_sum
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %arg0 on @mesh grid_axes = [1] scatter_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @slice_of_sum(%p: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %r = shard.all_reduce %p on @mesh grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = shard.all_slice %r on @mesh grid_axes = [1] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// Other axes, or a sum used elsewhere too, stay as they are.
shard.grid @mesh(shape = 2x2)
// CHECK-LABEL: func.func @not_combined
// CHECK: shard.all_reduce %arg0 on @mesh grid_axes = [1]
// CHECK: shard.all_slice %{{.*}} on @mesh grid_axes = [0]
// CHECK: %[[R:.*]] = shard.all_reduce %arg0 on @mesh grid_axes = [0]
// CHECK: shard.all_slice %[[R]] on @mesh grid_axes = [0]
// CHECK-NOT: reduce_scatter
func.func @not_combined(%p: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x8xf32>) {
  %r = shard.all_reduce %p on @mesh grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = shard.all_slice %r on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
  %r2 = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %s2 = shard.all_slice %r2 on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
  return %s, %s2, %r2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x8xf32>
}
