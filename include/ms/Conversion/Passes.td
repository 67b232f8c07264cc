//===- Passes.td - ms conversion passes --------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_CONVERSION_PASSES_TD
#define MS_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// GraphToLinalg
//===----------------------------------------------------------------------===//

def ConvertGraphToLinalgPass : Pass<"convert-msgraph-to-linalg", "::mlir::ModuleOp"> {
  let summary = "lowers msgraph ops to linalg, tensor, arith and math";
  let description = [{
    Rewrites every msgraph op into upstream tensor-level IR: elementwise
    math and reductions become `linalg.generic`, convolutions and pooling
    become windowed `linalg.generic`s over padded inputs, reshapes become
    `tensor.collapse_shape`/`tensor.expand_shape`, constants become
    `arith.constant`. Unsigned element types become signless; the choice of
    arith op (`divui`, `cmpi ult`, `uitofp`, ...) keeps their meaning.
    Function signatures are converted with them.

    #### Input invariant

    Ranked tensors with static shapes (run `msgraph-infer-shapes` first); an
    op with a dynamic dimension is reported, not lowered.

    #### Output IR

    No msgraph ops; `linalg`, `tensor`, `arith`, `math`, `scf` (the loop
    of a cumulative op) and `func` on signless tensors, ready for one-shot
    bufferization.
  }];
  let options = [
    Option<"tensorCoreAttention", "tensor-core-attention", "bool", "false",
           "lay out half-precision attention's K and V for tensor cores: "
           "both products sum over their operands' innermost dimension (K "
           "as given, V transposed) instead of K transposed for products "
           "that walk a key row">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // MS_CONVERSION_PASSES_TD
