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
    result split again slices it. An `all_slice` of an `all_reduce` over
    the same mesh axes (its only use) is one `reduce_scatter`: each rank
    receives only its block of the sum, half the traffic of the two steps
    (Megatron's sequence parallelism: the residual stream split by
    sequence after a row-parallel linear layer).

    ```mlir
    %r = shard.all_reduce %p on @mesh grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
    %s = shard.all_slice %r on @mesh grid_axes = [0] slice_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
    // becomes
    %s = shard.reduce_scatter %p on @mesh grid_axes = [0] scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
}

#endif // MS_DIALECT_DIST_TRANSFORMS_PASSES_TD
