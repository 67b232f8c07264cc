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

// -----

// Two sums added are one sum of the addition (a parallel attention and
// feed-forward block, both row-parallel); a sum moves past reshapes and
// transposes, here into a slice: a reduce_scatter.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @sum_of_sums
// CHECK-NEXT: %[[A:.*]] = msgraph.add %arg0, %arg1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[A]] on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @sum_of_sums(%p: tensor<4x8xf32>, %q: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %s = shard.all_reduce %q on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = msgraph.add %r, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
// The residual plus both branches: (x + sum) + sum.
// CHECK-LABEL: func.func @residual_sum_of_sums
// CHECK-NEXT: %[[A:.*]] = msgraph.add %arg0, %arg1 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[R:.*]] = shard.all_reduce %[[A]] on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = msgraph.add %arg2, %[[R]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @residual_sum_of_sums(%p: tensor<4x8xf32>, %q: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %a = msgraph.add %x, %r : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = shard.all_reduce %q on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = msgraph.add %a, %s : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %t : tensor<4x8xf32>
}
// CHECK-LABEL: func.func @layout_of_sum
// CHECK-NEXT: %[[T:.*]] = msgraph.transpose %arg0 {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = msgraph.reshape %[[T]] : (tensor<8x4xf32>) -> tensor<2x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %[[S]] on @mesh grid_axes = [0] scatter_axis = 0 : tensor<2x4x4xf32> -> tensor<1x4x4xf32>
// CHECK-NEXT: return %[[R]]
func.func @layout_of_sum(%p: tensor<4x8xf32>) -> tensor<1x4x4xf32> {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %t = msgraph.transpose %r {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %s = msgraph.reshape %t : (tensor<8x4xf32>) -> tensor<2x4x4xf32>
  %c = shard.all_slice %s on @mesh grid_axes = [0] slice_axis = 0 : tensor<2x4x4xf32> -> tensor<1x4x4xf32>
  return %c : tensor<1x4x4xf32>
}
// A sum added to a whole value, a max of sums, or a sum with another use
// stay as they are.
// CHECK-LABEL: func.func @not_sums
// CHECK-COUNT-4: shard.all_reduce
// CHECK-NOT: shard.all_reduce
func.func @not_sums(%p: tensor<4x8xf32>, %q: tensor<4x8xf32>, %x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %a = msgraph.add %r, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %m1 = shard.all_reduce %p on @mesh grid_axes = [0] reduction = max : tensor<4x8xf32> -> tensor<4x8xf32>
  %m2 = shard.all_reduce %q on @mesh grid_axes = [0] reduction = max : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = msgraph.add %m1, %m2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %u = shard.all_reduce %q on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = msgraph.add %u, %u : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A slice of a sum plus a bias: the bias broadcasts along the sliced dim and
// is added as it is to the slice of the sum, a reduce_scatter (a
// row-parallel product resharded by sequence). A value with the sliced dim
// is sliced too (a local copy); a product and a difference the same.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @slice_of_sum_plus_bias
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %arg0 on @mesh grid_axes = [0] scatter_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[A:.*]] = msgraph.add %[[R]], %arg1 : (tensor<4x8x8xf32>, tensor<8xf32>) -> tensor<4x8x8xf32>
// CHECK-NEXT: return %[[A]]
func.func @slice_of_sum_plus_bias(%p: tensor<4x16x8xf32>, %b: tensor<8xf32>) -> tensor<4x8x8xf32> {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  %a = msgraph.add %r, %b : (tensor<4x16x8xf32>, tensor<8xf32>) -> tensor<4x16x8xf32>
  %s = shard.all_slice %a on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  return %s : tensor<4x8x8xf32>
}
// CHECK-LABEL: func.func @slice_of_product_and_difference
// CHECK-NEXT: %[[X:.*]] = shard.all_slice %arg1 on @mesh grid_axes = [0] slice_axis = 0 : tensor<16x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[R:.*]] = shard.reduce_scatter %arg0 on @mesh grid_axes = [0] scatter_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
// CHECK-NEXT: %[[M:.*]] = msgraph.mul %[[X]], %[[R]] : (tensor<8x8xf32>, tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
// CHECK: shard.reduce_scatter %arg0 on @mesh grid_axes = [0] scatter_axis = 1
// CHECK-NEXT: msgraph.sub %{{.*}}, %arg2 : (tensor<4x8x8xf32>, tensor<4x1x8xf32>) -> tensor<4x8x8xf32>
func.func @slice_of_product_and_difference(%p: tensor<4x16x8xf32>, %x: tensor<16x8xf32>, %c: tensor<4x1x8xf32>) -> (tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  %m = msgraph.mul %x, %r : (tensor<16x8xf32>, tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %s = shard.all_slice %m on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  %r2 = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  %d = msgraph.sub %r2, %c : (tensor<4x16x8xf32>, tensor<4x1x8xf32>) -> tensor<4x16x8xf32>
  %s2 = shard.all_slice %d on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  return %s, %s2 : tensor<4x8x8xf32>, tensor<4x8x8xf32>
}
// Stay: the addition used elsewhere, a sum over other axes, a max.
// CHECK-LABEL: func.func @slice_of_sum_plus_bias_kept
// CHECK-NOT: reduce_scatter
// CHECK: return
shard.grid @mesh2(shape = 2x2)
func.func @slice_of_sum_plus_bias_kept(%p: tensor<4x16x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8x8xf32>, tensor<4x16x8xf32>, tensor<4x8x8xf32>, tensor<4x8x8xf32>) {
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  %a = msgraph.add %r, %b : (tensor<4x16x8xf32>, tensor<8xf32>) -> tensor<4x16x8xf32>
  %s = shard.all_slice %a on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  %r2 = shard.all_reduce %p on @mesh2 grid_axes = [1] : tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  %a2 = msgraph.add %r2, %b : (tensor<4x16x8xf32>, tensor<8xf32>) -> tensor<4x16x8xf32>
  %s2 = shard.all_slice %a2 on @mesh2 grid_axes = [0] slice_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  %r3 = shard.all_reduce %p on @mesh grid_axes = [0] reduction = max : tensor<4x16x8xf32> -> tensor<4x16x8xf32>
  %a3 = msgraph.add %r3, %b : (tensor<4x16x8xf32>, tensor<8xf32>) -> tensor<4x16x8xf32>
  %s3 = shard.all_slice %a3 on @mesh grid_axes = [0] slice_axis = 1 : tensor<4x16x8xf32> -> tensor<4x8x8xf32>
  return %s, %a, %s2, %s3 : tensor<4x8x8xf32>, tensor<4x16x8xf32>, tensor<4x8x8xf32>, tensor<4x8x8xf32>
}
