//===- FusionOps.td - msfusion dialect: fused groups -------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The msfusion dialect marks which msgraph ops compile into one kernel. At O1
// and O2, msfusion-form-groups wraps each fusible set of ops in an
// `msfusion.group`; kernel outlining turns a group into one kernel function
// named after the ops it fused. Specification: docs/spec/msfusion.md.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_FUSION_IR_FUSIONOPS_TD
#define MS_DIALECT_FUSION_IR_FUSIONOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Fusion_Dialect : Dialect {
  let name = "msfusion";
  let cppNamespace = "::mlir::ms::fusion";
  let summary = "groups of msgraph ops compiled as one kernel";
  let description = [{
    `msfusion` sits between `msgraph` and the kernels. An `msfusion.group`
    holds msgraph ops that one kernel computes: its operands and results
    are explicit (the region is isolated from above), so whatever the
    kernel reads or writes in memory is visible at the group's boundary,
    and every intermediate inside the group stays inside the kernel.
  }];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

class Fusion_Op<string mnemonic, list<Trait> traits = []>
    : Op<Fusion_Dialect, mnemonic, traits>;

def Fusion_GroupOp : Fusion_Op<"group", [IsolatedFromAbove,
    SingleBlock, RecursiveMemoryEffects]> {
  let summary = "msgraph ops compiled as one kernel";
  let description = [{
    The body computes the results from the inputs, which it receives as
    block arguments in order; `msfusion.yield` returns the results. The
    body holds msgraph ops only, none executed by the host, and at most one
    heavy root (matmul, convolution, reduction, softmax, normalization,
    pooling); small constants are cloned in. Kernel outlining
    (`ms-outline-kernels`) makes the body one kernel named after the ops it
    holds (docs/spec/msfusion.md).

    ```mlir
    %r = msfusion.group(%x, %w, %b : tensor<8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> (tensor<8x32xf32>) {
    ^bb0(%a: tensor<8x64xf32>, %ww: tensor<64x32xf32>, %bb: tensor<32xf32>):
      %0 = msgraph.matmul %a, %ww : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
      %1 = msgraph.add %0, %bb : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
      %2 = msgraph.gelu %1 : tensor<8x32xf32>
      msfusion.yield %2 : tensor<8x32xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `(` ($inputs^ `:` type($inputs))? `)` `->` `(` type($results) `)`
    attr-dict-with-keyword $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The member with the Root fusion role, or null.
    ::mlir::Operation *getRoot();
    /// The distinct op names of the members (less cloned constants), in
    /// program order, without the dialect prefix ("matmul", "add", ...).
    ::llvm::SmallVector<::llvm::StringRef> getMemberOpNames();
    /// The terminator.
    YieldOp getYield();
  }];
}

def Fusion_YieldOp : Fusion_Op<"yield",
    [Pure, ReturnLike, Terminator, HasParent<"GroupOp">]> {
  let summary = "returns the results of a group";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // MS_DIALECT_FUSION_IR_FUSIONOPS_TD
