// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(msdist-multi-copy{copies=2 report=true}))' -verify-diagnostics | FileCheck %s

// A row-parallel linear layer and its residual: the rows (batch) split in
// two; each copy's all_reduce comes right after its own product, so that
// it communicates while the next copy multiplies; the copies are joined
// where the region ends.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @row_parallel
// CHECK-DAG: %[[X0:.*]] = msgraph.slice %arg0 {ends = array<i64: 2, 8>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
// CHECK-DAG: %[[X1:.*]] = msgraph.slice %arg0 {ends = array<i64: 4, 8>, starts = array<i64: 2, 0>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
// CHECK: %[[P0:.*]] = msgraph.matmul %[[X0]], %arg1 : (tensor<2x8xf32>, tensor<8x16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[R0:.*]] = shard.all_reduce %[[P0]] on @mesh grid_axes = [0] : tensor<2x16xf32> -> tensor<2x16xf32>
// CHECK-NEXT: %[[P1:.*]] = msgraph.matmul %[[X1]], %arg1
// CHECK-NEXT: %[[R1:.*]] = shard.all_reduce %[[P1]]
// CHECK-NEXT: %[[A0:.*]] = msgraph.add %[[R0]], %arg2 : (tensor<2x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
// CHECK-NEXT: %[[A1:.*]] = msgraph.add %[[R1]], %arg2
// CHECK-NEXT: %[[J:.*]] = msgraph.concat %[[A0]], %[[A1]] {axis = 0 : i64} : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[J]]
func.func @row_parallel(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  %p = msgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // expected-remark @below {{'shard.all_reduce': split into 2 copies along dim 0: a region of 3 ops with 1 collectives per copy}}
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x16xf32> -> tensor<4x16xf32>
  %y = msgraph.add %r, %b : (tensor<4x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Two stages: each copy's first all_reduce overlaps the other copy's
// compute, then its second; the stages interleave copy by copy.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @two_stages
// CHECK: msgraph.matmul {{.*}} -> tensor<2x8xf32>
// CHECK-NEXT: shard.all_reduce
// CHECK-NEXT: msgraph.matmul {{.*}} -> tensor<2x8xf32>
// CHECK-NEXT: shard.all_reduce
// CHECK-NEXT: msgraph.relu
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: shard.all_reduce
// CHECK-NEXT: msgraph.relu
// CHECK-NEXT: msgraph.matmul
// CHECK-NEXT: shard.all_reduce
// CHECK-NEXT: msgraph.concat
func.func @two_stages(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %p = msgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  // expected-remark @below {{split into 2 copies along dim 0: a region of 5 ops with 2 collectives per copy}}
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  %h = msgraph.relu %r : tensor<4x8xf32>
  %q = msgraph.matmul %h, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %s = shard.all_reduce %q on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}

// -----

// A batch of 1 splits by sequence (dim 1) where the ops are token-wise; a
// softmax over the sequence cannot split and stays whole, fed by the joined
// copies.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @by_sequence
// CHECK: msgraph.matmul {{.*}} -> tensor<1x2x8xf32>
// CHECK-NEXT: shard.all_reduce {{.*}} : tensor<1x2x8xf32> -> tensor<1x2x8xf32>
// CHECK-NEXT: msgraph.matmul {{.*}} -> tensor<1x2x8xf32>
// CHECK-NEXT: shard.all_reduce
// CHECK-NEXT: %[[J:.*]] = msgraph.concat {{.*}} {axis = 1 : i64}
// CHECK-NEXT: msgraph.softmax %[[J]] {axis = 1 : i64} : tensor<1x4x8xf32>
func.func @by_sequence(%x: tensor<1x4x8xf32>, %w: tensor<8x8xf32>) -> tensor<1x4x8xf32> {
  %p = msgraph.matmul %x, %w : (tensor<1x4x8xf32>, tensor<8x8xf32>) -> tensor<1x4x8xf32>
  // expected-remark @below {{split into 2 copies along dim 1: a region of 2 ops with 1 collectives per copy}}
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<1x4x8xf32> -> tensor<1x4x8xf32>
  // expected-remark @below {{'msgraph.softmax': left whole: dim 1 is normalized, averaged or regrouped by the op as a whole}}
  %s = msgraph.softmax %r {axis = 1 : i64} : tensor<1x4x8xf32>
  return %s : tensor<1x4x8xf32>
}

// -----

// Refused: a gather along the only dim the copies could split; a sum over
// the split dim stops the region.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @refused
// CHECK: shard.all_gather %arg0 on @mesh grid_axes = [0] gather_axis = 1 : tensor<3x4xf32> -> tensor<3x8xf32>
// CHECK: msgraph.reduce_sum %{{.*}} {axes = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
func.func @refused(%x: tensor<3x4xf32>, %y: tensor<4x6xf32>) -> (tensor<3x8xf32>, tensor<1x6xf32>) {
  // expected-remark @below {{not split: dim 0 of size 3 is not divisible into 2 copies}}
  %g = shard.all_gather %x on @mesh grid_axes = [0] gather_axis = 1 : tensor<3x4xf32> -> tensor<3x8xf32>
  // expected-remark @below {{split into 2 copies along dim 0: a region of 1 ops with 1 collectives per copy}}
  %r = shard.all_reduce %y on @mesh grid_axes = [0] : tensor<4x6xf32> -> tensor<4x6xf32>
  // expected-remark @below {{'msgraph.reduce_sum': left whole: dim 0 is summed by the op}}
  %s = msgraph.reduce_sum %r {axes = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  return %g, %s : tensor<3x8xf32>, tensor<1x6xf32>
}

// -----

// An op that would read one value split two ways (split rows as the left
// operand, whole as the right) stays out; a dynamic dim never splits, the
// next one does.
shard.grid @mesh(shape = 2)
// CHECK-LABEL: func.func @refused_operands
// CHECK: msgraph.matmul %arg0, %arg0 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: shard.all_reduce {{.*}} : tensor<?x4xf32> -> tensor<?x4xf32>
func.func @refused_operands(%x: tensor<4x4xf32>, %d: tensor<?x8xf32>) -> (tensor<4x4xf32>, tensor<?x8xf32>) {
  // expected-remark @below {{'msgraph.matmul': left whole: the op reads one value split two ways}}
  %p = msgraph.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-remark @below {{split into 2 copies along dim 0: a region of 1 ops with 1 collectives per copy}}
  %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x4xf32> -> tensor<4x4xf32>
  // expected-remark @below {{split into 2 copies along dim 1: a region of 1 ops with 1 collectives per copy}}
  %s = shard.all_reduce %d on @mesh grid_axes = [0] : tensor<?x8xf32> -> tensor<?x8xf32>
  return %r, %s : tensor<4x4xf32>, tensor<?x8xf32>
}
