//===- Passes.td - msdist passes ---------------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_TRANSFORMS_PASSES_TD
#define MS_DIALECT_DIST_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MaterializePass : Pass<"msdist-materialize", "::mlir::ModuleOp"> {
  let summary = "turns the mesh and specs into upstream shard annotations";
  let description = [{
    Runs first in the `dist` phase of a sharded compile (a module with
    `msdist.mesh`). Creates `shard.grid @mesh`; annotates every entry
    argument as replicated (the caller passes global values) and, when it
    has an `msdist.spec`, splits it for its users (an `all_slice`: no
    communication); replaces each `msdist.constraint` with a pair of
    `shard.shard` ops; annotates each result with its spec (default:
    replicated, so results are global). Errors: a spec naming an unknown
    axis, using an axis twice, with more dims than its tensor, or
    splitting a dim its axes' device count does not divide.

    ```mlir
    // module attributes {msdist.mesh = #msdist.mesh<shape = [2], axes = ["tp"]>}
    func.func @main(%w: tensor<16x32xf32> {msdist.spec = #msdist.spec<[[], ["tp"]]>})
    // becomes
    shard.grid @mesh(shape = 2)
    %r = shard.sharding @mesh split_axes = [[]] : !shard.sharding
    %0 = shard.shard %w to %r : tensor<16x32xf32>
    %s = shard.sharding @mesh split_axes = [[], [0]] : !shard.sharding
    %1 = shard.shard %0 to %s annotate_for_users : tensor<16x32xf32>
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "entry function (default: @main, or the only public function)">,
  ];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def DecomposeReshardsPass : Pass<"msdist-decompose-reshards",
                                 "::mlir::func::FuncOp"> {
  let summary = "splits reshards into the single steps upstream partitions";
  let description = [{
    Runs after `sharding-propagation`, before `shard-partition`. Upstream
    partitioning turns a change of sharding into one collective (split a
    dim further: `all_slice`; unsplit a dim's last axis: `all_gather`; move
    a dim's last axis to another dim: `all_to_all`) and, in a release
    build, silently produces wrong shapes for any change that needs more
    than one. This pass rewrites each such change into a chain of single
    steps (unsplit what the target does not keep, then split what it
    adds), so that `[[0], [1]] -> [[1], [0]]` becomes four steps instead
    of a wrong program. It also checks that every sharded dim is divisible
    by its axes' device count (an error naming the op otherwise).
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def CombineCollectivesPass : Pass<"msdist-combine-collectives",
                                  "::mlir::func::FuncOp"> {
  let summary = "combines collectives that upstream partitioning emits apart";
  let description = [{
    Runs after `shard-partition`. Upstream has no partial-sum layout: a
    split contraction is all-reduced at once, and a user that wants the
    result split again slices it. This pass carries the partial sums on
    where that saves communication (each rule for an `all_reduce` summing
    with no other use):

    - a `reshape` or `transpose` of a sum is the sum of the reshape or
      transpose (the same elements), so that the rules below see past it;
    - the `add` of two sums over the same mesh axes is one sum of the
      addition, as is `(y + sum) + sum` (the residual plus a parallel
      attention and feed-forward block, both row-parallel: one collective
      instead of two);
    - an `all_slice` of a sum over the same mesh axes is one
      `reduce_scatter`: each rank receives only its block of the sum, half
      the traffic of the two steps (Megatron's sequence parallelism: the
      residual stream split by sequence after a row-parallel linear layer).

    ```mlir
    %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
    %s = shard.all_slice %r on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
    // becomes
    %s = shard.reduce_scatter %p on @mesh grid_axes = [0] scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

def MultiCopyPass : Pass<"msdist-multi-copy", "::mlir::func::FuncOp"> {
  let summary = "splits the regions around collectives into copies whose "
                "communication overlaps the next copy's compute";
  let description = [{
    Runs after partitioning (MindSpore's multi-copy parallelism, found
    automatically). From each collective, a region grows through producers
    and users that can be split along one dim with no dependency between
    the pieces: a parallel loop of the op's loop nest (the sharding rules),
    never a summed, normalized or broadcast one, and never a collective's
    gather or scatter axis. Dims are tried from the first (batch) on, so a
    batch of 1 splits by sequence where the ops are token-wise. Every op of
    the region is cloned once per copy on its piece (collectives too);
    region inputs are sliced and values used after the region are
    concatenated. Ops are then ordered so that copy `i`'s collective comes
    right after copy `i`'s compute of that stage and before copy `i + 1`'s:
    on the plan's communication queue it runs while copy `i + 1` computes.

    With `report`, a remark at each collective says how it was split, and
    one at each op that stopped a region says why (a summed dim, a
    normalized axis, a size the copies do not divide, ...).

    ```mlir
    %p = msgraph.matmul %x, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
    %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<4x8xf32> -> tensor<4x8xf32>
    // with copies=2 becomes
    %x0 = msgraph.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 8>, ...}
    %x1 = msgraph.slice %x {starts = array<i64: 2, 0>, ends = array<i64: 4, 8>, ...}
    %p0 = msgraph.matmul %x0, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
    %r0 = shard.all_reduce %p0 on @mesh grid_axes = [0] : tensor<2x8xf32> -> tensor<2x8xf32>
    %p1 = msgraph.matmul %x1, %w : (tensor<2x8xf32>, tensor<8x8xf32>) -> tensor<2x8xf32>
    %r1 = shard.all_reduce %p1 on @mesh grid_axes = [0] : tensor<2x8xf32> -> tensor<2x8xf32>
    %r = msgraph.concat %r0, %r1 {axis = 0 : i64} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let options = [
    Option<"copies", "copies", "int64_t", /*default=*/"2",
           "Number of copies (at least 2)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Remark how each collective was split and why regions stop">,
  ];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

#endif // MS_DIALECT_DIST_TRANSFORMS_PASSES_TD
