//===- Passes.td - msfusion passes -------------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_FUSION_TRANSFORMS_PASSES_TD
#define MS_DIALECT_FUSION_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def RaiseAttentionPass : Pass<"msfusion-raise-attention", "::mlir::func::FuncOp"> {
  let summary = "rewrites attention written op by op into msgraph.attention";
  let description = [{
    Run at O1 before grouping, so that attention as exporters write it
    becomes one kernel that never materializes the score matrix. Matches
    `matmul(softmax(mask(scale(matmul(Q, K^T)))), V)` on rank-4 tensors
    (batch x heads x sequence x head size), where `K^T` is any value with
    the key's last two dims swapped, the scale is an optional `mul` or `div`
    by a scalar constant, and the mask is an optional `add` of a tensor
    that broadcasts to the scores and/or a `where` choosing `-inf` (or the
    scores) under a boolean condition; a constant condition that hides
    exactly the keys after each query's diagonal becomes `is_causal`. Each
    intermediate must have no other user. Rules: docs/spec/msfusion.md.

    ```mlir
    %kt = msgraph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : ...
    %s = msgraph.matmul %q, %kt : ...
    %d = msgraph.div %s, %c8 : ...
    %p = msgraph.softmax %d : ...
    %y = msgraph.matmul %p, %v : ...
    // becomes
    %y = msgraph.attention %q, %k, %v {scale = 1.250000e-01 : f64} : ...
    ```
  }];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

def FormGroupsPass : Pass<"msfusion-form-groups", "::mlir::ModuleOp"> {
  let summary = "groups the msgraph ops of the entry function into fused "
                "kernels";
  let description = [{
    The O1 partitioning, run before kernel outlining. Each heavy op (a
    root: matmul, convolution, reduction, softmax, normalization, pooling)
    starts a group; its elementwise consumers of the same shape join it, as
    do reshapes and transposes of its values (the kernel writes them in the
    new layout), and
    a reduction, softmax or normalization also takes the elementwise
    producers of its data operand whose users are all in the group. The remaining elementwise ops form chains: an op
    joins the chain of an operand of its own shape. A group never creates a
    cycle between groups, never holds an op with a dynamic or empty operand
    or result, a host-executed op or one whose lowering reads its operands
    at computed indices (slice, gather, concat, pad, ...). Constants of at
    most 16 elements, and splats used by elementwise ops, are cloned into the
    groups that use them. A group of one op is dissolved, so a program
    with nothing to fuse compiles as at O0. Rules: docs/spec/msfusion.md.

    ```mlir
    %0 = msgraph.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %1 = msgraph.add %0, %b : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    %2 = msgraph.gelu %1 : tensor<8x32xf32>
    // becomes
    %2 = msfusion.group(%x, %w, %b : tensor<8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> (tensor<8x32xf32>) {
    ^bb0(%a: tensor<8x64xf32>, %ww: tensor<64x32xf32>, %bb: tensor<32xf32>):
      %0 = msgraph.matmul %a, %ww : ...
      %1 = msgraph.add %0, %bb : ...
      %2 = msgraph.gelu %1 : tensor<8x32xf32>
      msfusion.yield %2 : tensor<8x32xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: @main, or the only public function)">
  ];
  let dependentDialects = ["::mlir::ms::fusion::FusionDialect"];
}

#endif // MS_DIALECT_FUSION_TRANSFORMS_PASSES_TD
