// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(msdist-decompose-reshards))' -verify-diagnostics | FileCheck %s
// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(msdist-decompose-reshards,shard-partition))' -verify-diagnostics | FileCheck %s --check-prefix=PART

// Swapping the axes of two dims takes four single steps; upstream's one
// step alone would produce a 4x2 value typed as the 2x4 target.
shard.grid @mesh(shape = 2x2)
// CHECK-LABEL: func.func @swap
// CHECK: %[[TARGET:.*]] = shard.sharding @mesh split_axes = {{\[\[}}1], [0]]
// CHECK: %[[S1:.*]] = shard.sharding @mesh split_axes = {{\[\[}}], [1]]
// CHECK: shard.shard %{{.*}} to %[[S1]] annotate_for_users
// CHECK: %[[S2:.*]] = shard.sharding @mesh split_axes = []
// CHECK: shard.shard %{{.*}} to %[[S2]] annotate_for_users
// CHECK: %[[S3:.*]] = shard.sharding @mesh split_axes = {{\[\[}}1]]
// CHECK: shard.shard %{{.*}} to %[[S3]] annotate_for_users
// CHECK: shard.shard %{{.*}} to %[[TARGET]] annotate_for_users
// CHECK-NEXT: return
// PART-LABEL: func.func @swap
// PART-SAME: (%[[X:.*]]: tensor<4x4xf32>) -> tensor<4x4xf32>
// PART: shard.all_gather %[[X]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
// PART: shard.all_gather %{{.*}} on @mesh grid_axes = [1] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x8xf32>
// PART: shard.all_slice %{{.*}} on @mesh grid_axes = [1] slice_axis = 0 : tensor<8x8xf32> -> tensor<4x8xf32>
// PART: shard.all_slice %{{.*}} on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x8xf32> -> tensor<4x4xf32>
func.func @swap(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @mesh split_axes = [[0], [1]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<8x8xf32>
  %t = shard.sharding @mesh split_axes = [[1], [0]] : !shard.sharding
  %b = shard.shard %a to %t annotate_for_users : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

// One step (unsplit the last axis of a dim) is left to upstream.
shard.grid @mesh(shape = 2x2)
// CHECK-LABEL: func.func @one_step
// CHECK: shard.sharding @mesh split_axes = {{\[\[}}0, 1]]
// CHECK: shard.sharding @mesh split_axes = {{\[\[}}0]]
// CHECK-NOT: = shard.sharding
// PART-LABEL: func.func @one_step
// PART: shard.all_gather %{{.*}} on @mesh grid_axes = [1] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
func.func @one_step(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @mesh split_axes = [[0, 1]] : !shard.sharding
  %a = shard.shard %x to %s : tensor<8x8xf32>
  %t = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  %b = shard.shard %a to %t annotate_for_users : tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// -----

shard.grid @mesh(shape = 4)
func.func @indivisible(%x: tensor<6xf32>) -> tensor<6xf32> {
  %s = shard.sharding @mesh split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{cannot split dim 0 (size 6) of a 'tensor<6xf32>' over 4 devices: the size is not divisible}}
  %a = shard.shard %x to %s : tensor<6xf32>
  return %a : tensor<6xf32>
}
