//===- Passes.td - msgraph transformation passes -----------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_TRANSFORMS_PASSES_TD
#define MS_DIALECT_GRAPH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Graph optimization
//===----------------------------------------------------------------------===//

def EliminateDeadCodePass : Pass<"msgraph-dce"> {
  let summary = "removes ops whose results are unused and that have no effects";
  let description = [{
    Erases, innermost first, every operation that is trivially dead: no
    uses of its results and no side effects. Chains of dead ops disappear in
    one run because users are visited before their producers.

    ```mlir
    %0 = msgraph.exp %x : tensor<4xf32>   // unused: erased
    return %x : tensor<4xf32>
    ```
  }];
  let statistics = [
    Statistic<"numErased", "num-erased", "Number of erased operations">
  ];
}

def DecomposeAttentionPass : Pass<"msgraph-decompose-attention"> {
  let summary = "rewrites attention as matmuls and a softmax";
  let description = [{
    For targets without a fused attention kernel (the npu, whose cube runs
    matmuls): each `msgraph.attention` of static shape becomes
    `softmax(Q K^T * scale [capped] + mask + causal) V` in msgraph ops.
    Query heads that share a key/value head (grouped-query attention) are
    merged into the rows of one matmul per key head; the causal mask is a
    constant of 0 and -inf. The softmax is written out (max, exp, sum,
    divide) with the row maximum and sum clamped, so that a query that sees
    no key gets zeros as the op specifies.

    ```mlir
    %y = msgraph.attention %q, %k, %v : (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
    // becomes
    %kt = msgraph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : ...
    %s = msgraph.matmul %q, %kt : ...
    %ss = msgraph.mul %s, %scale : ...
    %p = ... softmax of %ss over keys (max, sub, exp, sum, div) ...
    %y = msgraph.matmul %p, %v : ...
    ```
  }];
}

def FoldConstantsPass : Pass<"msgraph-fold-constants"> {
  let summary = "evaluates ops whose operands are all constants";
  let description = [{
    Walks each region in order and folds every msgraph op whose operands are
    constants, replacing it with an `msgraph.constant`. Because results feed
    later ops in the same walk, whole subgraphs that depend only on constants
    (weight preprocessing, shape arithmetic) collapse to constants. Results
    with more than `max-elements` elements (splats excepted) are left alone so
    that folding never bloats the module.

    ```mlir
    %a = msgraph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %b = msgraph.exp %a : tensor<2xf32>
    // becomes
    %b = msgraph.constant dense<[2.71828175, 7.38905621]> : tensor<2xf32>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"1 << 20",
           "Largest non-splat folded result, in elements">
  ];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Number of folded operations">
  ];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

def InferShapesPass : Pass<"msgraph-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "refines dynamic dimensions from what operands make known";
  let description = [{
    Walks a function in order and, for every msgraph op that infers its
    result types, replaces each dynamic result dimension that inference can
    now prove static. Reshapes and expands whose shape operand is a constant,
    and `constant_of_shape` with a constant shape, take their static shape
    from it, and `range` with constant operands gets its length. Users
    outside msgraph keep the type they were written against through a
    `tensor.cast`. A private function without callers gets its result types
    updated; any other function keeps its signature, with casts before the
    return.

    ```mlir
    %0 = msgraph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
    // becomes
    %0 = msgraph.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
  let statistics = [
    Statistic<"numRefined", "num-refined", "Number of refined results">
  ];
}

#endif // MS_DIALECT_GRAPH_TRANSFORMS_PASSES_TD
