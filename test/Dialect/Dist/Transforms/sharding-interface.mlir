// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(msdist-materialize,func.func(sharding-propagation{traversal=forward-backward},msdist-decompose-reshards,shard-partition))' | FileCheck %s
// msgraph's sharding rules (lib/Dialect/Dist/Transforms/ShardingInterfaceImpl.cpp),
// each op propagated and partitioned by upstream shard on a mesh of 2.

// Elementwise ops with a broadcast operand compute on their shards.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: -> tensor<8x16xf32>
// CHECK: %[[X:.*]] = shard.all_slice %arg0 on @mesh grid_axes = [0] slice_axis = 1 : tensor<8x32xf32> -> tensor<8x16xf32>
// CHECK: %[[B:.*]] = shard.all_slice %arg1 on @mesh grid_axes = [0] slice_axis = 0 : tensor<32xf32> -> tensor<16xf32>
// CHECK: %[[Y:.*]] = msgraph.add %[[X]], %[[B]] : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
// CHECK: msgraph.relu %[[Y]] : tensor<8x16xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @elementwise(%x: tensor<8x32xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}, %b: tensor<32xf32> {msdist.spec = #msdist.spec<[["tp"]]>}) -> (tensor<8x32xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) {
  %y = msgraph.add %x, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
  %z = msgraph.relu %y : tensor<8x32xf32>
  return %z : tensor<8x32xf32>
}
}

// -----

// A matmul split along its contracted dim sums its partial products.
// CHECK-LABEL: func.func @matmul_k
// CHECK: %[[M:.*]] = msgraph.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
// CHECK: shard.all_reduce %[[M]] on @mesh grid_axes = [0] : tensor<4x6xf32> -> tensor<4x6xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @matmul_k(%a: tensor<4x16xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}, %b: tensor<16x6xf32> {msdist.spec = #msdist.spec<[["tp"]]>}) -> tensor<4x6xf32> {
  %c = msgraph.matmul %a, %b : (tensor<4x16xf32>, tensor<16x6xf32>) -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}
}

// -----

// A batched matmul split along its batch (data parallel) needs no
// communication until the whole result is gathered.
// CHECK-LABEL: func.func @matmul_batch
// CHECK: msgraph.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xf32>, tensor<8x6xf32>) -> tensor<2x4x6xf32>
// CHECK-NOT: all_reduce
// CHECK: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x4x6xf32> -> tensor<4x4x6xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["dp"]>} {
func.func @matmul_batch(%a: tensor<4x4x8xf32> {msdist.spec = #msdist.spec<[["dp"]]>}, %b: tensor<8x6xf32>) -> tensor<4x4x6xf32> {
  %c = msgraph.matmul %a, %b : (tensor<4x4x8xf32>, tensor<8x6xf32>) -> tensor<4x4x6xf32>
  return %c : tensor<4x4x6xf32>
}
}

// -----

// A sum over a split dim all-reduces; a mean over it gathers first.
// CHECK-LABEL: func.func @reductions
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 : tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK: %[[W:.*]] = tensor.cast %[[G]]
// CHECK: %[[S:.*]] = msgraph.reduce_sum %{{.*}} {axes = array<i64: 1>, keep_dims = false} : (tensor<4x4xf32>) -> tensor<4xf32>
// CHECK: shard.all_reduce %[[S]] on @mesh grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
// CHECK: msgraph.reduce_mean %[[W]] {axes = array<i64: 1>, keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @reductions(%x: tensor<4x8xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = msgraph.reduce_sum %x {axes = array<i64: 1>, keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  %m = msgraph.reduce_mean %x {axes = array<i64: 1>, keep_dims = false} : (tensor<4x8xf32>) -> tensor<4xf32>
  return %s, %m : tensor<4xf32>, tensor<4xf32>
}
}

// -----

// softmax and layer_norm compute on rows split across devices, but gather
// the dims they normalize.
// CHECK-LABEL: func.func @normalizations
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 : tensor<4x4xf32> -> tensor<4x8xf32>
// CHECK: %[[T:.*]] = tensor.cast %[[G]]
// CHECK: msgraph.softmax %{{.*}} : tensor<2x8xf32>
// CHECK: msgraph.layer_norm %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK: msgraph.softmax %[[T]] {axis = 1 : i64} : tensor<4x8xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @normalizations(%x: tensor<4x8xf32> {msdist.spec = #msdist.spec<[["tp"]]>}, %g: tensor<8xf32>, %b: tensor<8xf32>, %y: tensor<4x8xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %s = msgraph.softmax %x {axis = -1 : i64} : tensor<4x8xf32>
  %n = msgraph.layer_norm %x, %g, %b {axis = -1 : i64} : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %t = msgraph.softmax %y {axis = 1 : i64} : tensor<4x8xf32>
  return %s, %n, %t : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
}

// -----

// A transpose moves the split with its dim.
// CHECK-LABEL: func.func @transpose
// CHECK: msgraph.transpose %{{.*}} {permutation = array<i64: 1, 0>} : (tensor<2x8xf32>) -> tensor<8x2xf32>
// CHECK: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 : tensor<8x2xf32> -> tensor<8x4xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @transpose(%x: tensor<4x8xf32> {msdist.spec = #msdist.spec<[["tp"]]>}) -> tensor<8x4xf32> {
  %t = msgraph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  return %t : tensor<8x4xf32>
}
}

// -----

// An op without a rule (here a cumsum) computes on the whole value.
// CHECK-LABEL: func.func @no_rule
// CHECK: msgraph.exp %{{.*}} : tensor<2x8xf32>
// CHECK: %[[G:.*]] = shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 0 : tensor<2x8xf32> -> tensor<4x8xf32>
// CHECK: %[[W:.*]] = tensor.cast %[[G]]
// CHECK: msgraph.cumsum %[[W]]
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @no_rule(%x: tensor<4x8xf32> {msdist.spec = #msdist.spec<[["tp"]]>}) -> tensor<4x8xf32> {
  %e = msgraph.exp %x : tensor<4x8xf32>
  %s = msgraph.cumsum %e {axis = 1 : i64} : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
}

// -----

// A reshape splits a group of dims along its major dim only: 768 split in
// 2 is 384 -> 6x64 locally; a result split along a group's minor dim (64)
// is computed whole and sliced after.
// CHECK-LABEL: func.func @reshape
// CHECK: %[[X:.*]] = shard.all_slice %arg0 on @mesh grid_axes = [0] slice_axis = 0 : tensor<768xf32> -> tensor<384xf32>
// CHECK: msgraph.reshape %[[X]] : (tensor<384xf32>) -> tensor<6x64xf32>
// CHECK: %[[W:.*]] = msgraph.reshape %arg1 : (tensor<768xf32>) -> tensor<12x64xf32>
// CHECK: shard.all_slice %[[W]] on @mesh grid_axes = [0] slice_axis = 1 : tensor<12x64xf32> -> tensor<12x32xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @reshape(%x: tensor<768xf32> {msdist.spec = #msdist.spec<[["tp"]]>}, %y: tensor<768xf32>) -> (tensor<12x64xf32> {msdist.spec = #msdist.spec<[["tp"]]>}, tensor<12x64xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) {
  %a = msgraph.reshape %x : (tensor<768xf32>) -> tensor<12x64xf32>
  %b = msgraph.reshape %y : (tensor<768xf32>) -> tensor<12x64xf32>
  return %a, %b : tensor<12x64xf32>, tensor<12x64xf32>
}
}

// -----

// A sum over a split dim keeping it (size 1) still sums partial results.
// CHECK-LABEL: func.func @sum_keep_dims
// CHECK: %[[S:.*]] = msgraph.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
// CHECK: shard.all_reduce %[[S]] on @mesh grid_axes = [0] : tensor<4x1xf32> -> tensor<4x1xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @sum_keep_dims(%x: tensor<4x8xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) -> tensor<4x1xf32> {
  %s = msgraph.reduce_sum %x {axes = array<i64: 1>, keep_dims = true} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %s : tensor<4x1xf32>
}
}

// -----

// Attention split by heads (Megatron): queries, keys and values on their
// heads, no communication until the result is gathered.
// CHECK-LABEL: func.func @attention_heads
// CHECK: msgraph.attention %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
// CHECK-NOT: all_reduce
// CHECK: shard.all_gather %{{.*}} gather_axis = 1 : tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @attention_heads(%q: tensor<1x4x8x16xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %y = msgraph.attention %q, %k, %v {is_causal = true} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %y : tensor<1x4x8x16xf32>
}
}

// -----

// Causal attention never splits its queries (a query's position sets its
// mask): split queries are gathered first.
// CHECK-LABEL: func.func @attention_causal_queries
// CHECK: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 2 : tensor<1x4x4x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: msgraph.attention {{.*}} -> tensor<1x4x8x16xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @attention_causal_queries(%q: tensor<1x4x8x16xf32> {msdist.spec = #msdist.spec<[[], [], ["tp"]]>}, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %y = msgraph.attention %q, %k, %v {is_causal = true} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %y : tensor<1x4x8x16xf32>
}
}

// -----

// A convolution split by output channels needs no communication; split by
// input channels (no bias) it sums partial results.
// CHECK-LABEL: func.func @conv_channels
// CHECK: msgraph.conv %arg0, %{{.*}} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
// CHECK: %[[P:.*]] = msgraph.conv %{{.*}}, %{{.*}} : (tensor<1x2x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x6x6xf32>
// CHECK: shard.all_reduce %[[P]] on @mesh grid_axes = [0] : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32> {msdist.spec = #msdist.spec<[["tp"]]>}, %y: tensor<1x4x8x8xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}, %u: tensor<8x4x3x3xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) -> (tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>) {
  %a = msgraph.conv %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  %b = msgraph.conv %y, %u : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %a, %b : tensor<1x8x6x6xf32>, tensor<1x8x6x6xf32>
}
}

// -----

// A gather with split indices (data parallel over tokens) reads the whole
// table; a concat splits along its other dims.
// CHECK-LABEL: func.func @gather_concat
// CHECK: msgraph.gather %arg0, %{{.*}} : (tensor<16x8xf32>, tensor<2x3xi64>) -> tensor<2x3x8xf32>
// CHECK: msgraph.concat %{{.*}}, %{{.*}} {axis = 2 : i64} : (tensor<2x3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x16xf32>
// CHECK: shard.all_gather %{{.*}} gather_axis = 0 : tensor<2x3x16xf32> -> tensor<4x3x16xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["dp"]>} {
func.func @gather_concat(%table: tensor<16x8xf32>, %ids: tensor<4x3xi64> {msdist.spec = #msdist.spec<[["dp"]]>}) -> tensor<4x3x16xf32> {
  %e = msgraph.gather %table, %ids {axis = 0 : i64} : (tensor<16x8xf32>, tensor<4x3xi64>) -> tensor<4x3x8xf32>
  %c = msgraph.concat %e, %e {axis = 2 : i64} : (tensor<4x3x8xf32>, tensor<4x3x8xf32>) -> tensor<4x3x16xf32>
  return %c : tensor<4x3x16xf32>
}
}

// -----

// An embedding table split by vocabulary (Megatron's vocabulary-parallel
// embedding): each process gathers the rows it holds, indices moved into
// them (its first row a compile-time slice of [0, 8]; negative indices
// counted from 16 first), zeros for the others, and the partial results
// are summed.
// CHECK-LABEL: func.func @gather_vocabulary
// CHECK: %[[FIRSTS:.*]] = msgraph.constant dense<[0, 8]> : tensor<2xi64>
// CHECK: %[[SLICE:.*]] = shard.all_slice %[[FIRSTS]] on @mesh grid_axes = [0] slice_axis = 0 : tensor<2xi64> -> tensor<1xi64>
// CHECK: %[[FIRST:.*]] = msgraph.reshape %[[SLICE]] : (tensor<1xi64>) -> tensor<i64>
// CHECK: %[[NEG:.*]] = msgraph.less %arg1, %{{.*}} : (tensor<4x3xi64>, tensor<i64>) -> tensor<4x3xi1>
// CHECK: %[[WRAP:.*]] = msgraph.where %[[NEG]]
// CHECK: %[[LOCAL:.*]] = msgraph.sub %[[WRAP]], %[[FIRST]]
// CHECK: %[[IN:.*]] = msgraph.and
// CHECK: %[[IDX:.*]] = msgraph.where %[[IN]], %[[LOCAL]]
// CHECK: %[[G:.*]] = msgraph.gather %{{.*}}, %[[IDX]] : (tensor<8x8xf32>, tensor<4x3xi64>) -> tensor<4x3x8xf32>
// CHECK: %[[MASK:.*]] = msgraph.reshape %[[IN]] : (tensor<4x3xi1>) -> tensor<4x3x1xi1>
// CHECK: %[[Z:.*]] = msgraph.where %[[MASK]], %[[G]], %{{.*}} : (tensor<4x3x1xi1>, tensor<4x3x8xf32>, tensor<f32>) -> tensor<4x3x8xf32>
// CHECK: shard.all_reduce %[[Z]] on @mesh grid_axes = [0] : tensor<4x3x8xf32> -> tensor<4x3x8xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @gather_vocabulary(%table: tensor<16x8xf32> {msdist.spec = #msdist.spec<[["tp"]]>}, %ids: tensor<4x3xi64>) -> tensor<4x3x8xf32> {
  %e = msgraph.gather %table, %ids {axis = 0 : i64} : (tensor<16x8xf32>, tensor<4x3xi64>) -> tensor<4x3x8xf32>
  return %e : tensor<4x3x8xf32>
}
}

// -----

// Split over both axes of a 2x2 mesh, each process holds 4 rows.
// CHECK-LABEL: func.func @gather_vocabulary_2d
// CHECK: msgraph.constant dense<[0, 4, 8, 12]> : tensor<4xi32>
// CHECK: shard.all_slice %{{.*}} on @mesh grid_axes = [0, 1] slice_axis = 0 : tensor<4xi32> -> tensor<1xi32>
// CHECK: msgraph.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x4xf32>, tensor<5xi32>) -> tensor<2x5xf32>
// CHECK: msgraph.reshape %{{.*}} : (tensor<5xi1>) -> tensor<1x5xi1>
// CHECK: shard.all_reduce %{{.*}} on @mesh grid_axes = [0, 1] : tensor<2x5xf32> -> tensor<2x5xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2, 2], axes = ["dp", "tp"]>} {
func.func @gather_vocabulary_2d(%table: tensor<2x16xf32> {msdist.spec = #msdist.spec<[[], ["dp", "tp"]]>}, %ids: tensor<5xi32>) -> tensor<2x5xf32> {
  %e = msgraph.gather %table, %ids {axis = 1 : i64} : (tensor<2x16xf32>, tensor<5xi32>) -> tensor<2x5xf32>
  return %e : tensor<2x5xf32>
}
}

// -----

// A slice splits along the dims it takes whole (their local end is the
// shard's extent) and keeps the dims it cuts whole: the rows split by dp
// stay split, no communication (the q/k/v chunks of a packed projection
// under data parallelism).
// CHECK-LABEL: func.func @slice_whole_dims
// CHECK: %[[X:.*]] = shard.all_slice %arg0 on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x12xf32> -> tensor<4x12xf32>
// CHECK: %[[S:.*]] = msgraph.slice %[[X]] {ends = array<i64: 4, 8>, starts = array<i64: 0, 4>, steps = array<i64: 1, 1>} : (tensor<4x12xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: shard.all_gather %[[S]] on @mesh grid_axes = [0] gather_axis = 0 : tensor<4x4xf32> -> tensor<8x4xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["dp"]>} {
func.func @slice_whole_dims(%x: tensor<8x12xf32> {msdist.spec = #msdist.spec<[["dp"]]>}) -> tensor<8x4xf32> {
  %s = msgraph.slice %x {starts = array<i64: 0, 4>, ends = array<i64: 8, 8>, steps = array<i64: 1, 1>} : (tensor<8x12xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
}

// -----

// A slice along a split dim gathers it first.
// CHECK-LABEL: func.func @slice_split_dim
// CHECK: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 : tensor<8x6xf32> -> tensor<8x12xf32>
// CHECK: msgraph.slice %{{.*}} {ends = array<i64: 8, 8>, starts = array<i64: 0, 4>, steps = array<i64: 1, 1>} : (tensor<8x12xf32>) -> tensor<8x4xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @slice_split_dim(%x: tensor<8x12xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) -> tensor<8x4xf32> {
  %s = msgraph.slice %x {starts = array<i64: 0, 4>, ends = array<i64: 8, 8>, steps = array<i64: 1, 1>} : (tensor<8x12xf32>) -> tensor<8x4xf32>
  return %s : tensor<8x4xf32>
}
}

// -----

// An activation split by rows times a weight (a constant) of the same size
// split by columns, over one mesh axis (sequence parallelism into a
// column-parallel projection): the weight keeps its columns, the
// activation's rows are gathered. An activation of the same size keeps its
// rows (the first operand), the other is gathered.
// CHECK-LABEL: func.func @matmul_weight_keeps_its_split
// CHECK: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK: %[[W:.*]] = shard.all_slice %{{.*}} on @mesh grid_axes = [0] slice_axis = 1 : tensor<8x8xf32> -> tensor<8x4xf32>
// CHECK: msgraph.matmul %{{.*}}, %[[W]] : (tensor<8x8xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @matmul_weight_keeps_its_split(%x: tensor<8x8xf32> {msdist.spec = #msdist.spec<[["tp"]]>}) -> tensor<8x8xf32> {
  %c = msgraph.constant dense<1.0> : tensor<8x8xf32>
  %w = msdist.constraint %c {spec = #msdist.spec<[[], ["tp"]]>} : tensor<8x8xf32>
  %y = msgraph.matmul %x, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
}

// -----

// CHECK-LABEL: func.func @matmul_first_activation_keeps_its_split
// CHECK: shard.all_gather %{{.*}} on @mesh grid_axes = [0] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x8xf32>
// CHECK: msgraph.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>} {
func.func @matmul_first_activation_keeps_its_split(%x: tensor<8x8xf32> {msdist.spec = #msdist.spec<[["tp"]]>}, %w: tensor<8x8xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>}) -> tensor<8x8xf32> {
  %y = msgraph.matmul %x, %w : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
}
