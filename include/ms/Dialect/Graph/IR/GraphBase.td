//===- GraphBase.td - msgraph dialect definition -----------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The msgraph dialect: framework-level tensor operations produced by the ONNX
// importer and the Python tracer. Semantics and numbered constraints live in
// docs/spec/msgraph.md; verifiers cite them as `<op>_c<N>`.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_IR_GRAPHBASE_TD
#define MS_DIALECT_GRAPH_IR_GRAPHBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def Graph_Dialect : Dialect {
  let name = "msgraph";
  let cppNamespace = "::mlir::ms::graph";
  let summary = "framework-level tensor operations";
  let description = [{
    The `msgraph` dialect holds the tensor operations that ONNX models and
    traced Python functions are made of: broadcasting elementwise math,
    reductions, data movement, and composite operations (matmul, conv,
    softmax, normalizations) kept whole so that fusion and kernel selection
    see them. All values are ranked tensors whose dimensions may be static or
    dynamic (`?`). Element types are f16, bf16, f32, f64, i1, signless
    i8/i16/i32/i64 (signed in ONNX terms) and ui8/ui16/ui32/ui64, plus
    `!msgraph.string` for the string ops, which the runtime executes itself.
  }];
  let hasConstantMaterializer = 1;
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types and traits
//===----------------------------------------------------------------------===//

def Graph_StringType : TypeDef<Graph_Dialect, "String"> {
  let mnemonic = "string";
  let summary = "a UTF-8 string of any length";
  let description = [{
    The element type of string tensors (ONNX `STRING`). A string has no fixed
    size, so string tensors never reach code generation: only ops with the
    `HostExecuted` trait take or produce them, and the runtime runs those
    itself (docs/spec/msgraph.md, "String ops").
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def Graph_RelayoutElementsAttr
    : AttrDef<Graph_Dialect,
              "RelayoutElements", [ElementsAttrInterface, TypedAttrInterface]> {
  let mnemonic = "relayout";
  let summary =
      "a constant's elements in another layout, computed when written";
  let description = [{
    The elements of `source` reshaped to `shape`, transposed by
    `permutation` and converted to the element type of the attribute's
    type (the same, or f32 to bf16 rounded to nearest, ties to even):

    ```mlir
    // A [4, 64] matrix as two panels of 32 columns, [2, 4, 32].
    #msgraph.relayout<dense<...> : tensor<4x64xf32>, shape = [4, 2, 32],
                      permutation = [1, 0, 2]> : tensor<2x4x32xf32>
    ```

    Code generation stores constant weights in the layouts its kernels read
    (`ms-cpu-pack-weights`). This attribute names such a layout without
    computing it: the compiler keeps only the source (a model's weights are
    held once, not once more per layout) and the module writer computes the
    bytes as it writes them. Constraints relayout_c1..relayout_c5
    (docs/spec/msgraph.md).
  }];
  let parameters =
      (ins AttributeSelfTypeParameter<"", "::mlir::ShapedType">:$type,
          "::mlir::DenseElementsAttr":$source,
          ArrayRefParameter<"int64_t">:$shape,
          ArrayRefParameter<"int64_t">:$permutation);
  let assemblyFormat = [{
    `<` $source `,` `shape` `=` `[` $shape `]` `,`
        `permutation` `=` `[` $permutation `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Passes the elements' little-endian bytes, in order, to `write` in
    /// pieces of about 1 MiB (or one row of the innermost dim, if longer).
    void writeBytes(::llvm::function_ref<void(::llvm::ArrayRef<char>)> write) const;
    /// Returns the elements as a dense attribute (a copy: for readers that
    /// need them all at once).
    ::mlir::DenseElementsAttr materialize() const;
    /// Returns the number of bytes writeBytes passes.
    uint64_t getNumBytes() const;
  }];
}

/// Ops the runtime executes itself instead of a compiled kernel.
def Graph_HostExecuted : NativeOpTrait<"HostExecuted"> {
  let cppNamespace = "::mlir::OpTrait::ms";
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Graph_FloatElement : AnyTypeOf<[F16, BF16, F32, F64], "floating-point">;
def Graph_SignedIntElement : AnyTypeOf<[I8, I16, I32, I64], "signed integer">;
def Graph_UnsignedIntElement
    : AnyTypeOf<[UI8, UI16, UI32, UI64], "unsigned integer">;
def Graph_BoolElement : AnyTypeOf<[I1], "boolean">;

def Graph_Tensor : RankedTensorOf<[F16, BF16, F32, F64, I1, I8, I16, I32, I64,
                                   UI8, UI16, UI32, UI64]>;
def Graph_NumericTensor : RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32,
                                          I64, UI8, UI16, UI32, UI64]>;
def Graph_SignedTensor : RankedTensorOf<[F16, BF16, F32, F64, I8, I16, I32,
                                         I64]>;
def Graph_FloatTensor : RankedTensorOf<[F16, BF16, F32, F64]>;
def Graph_BoolTensor : RankedTensorOf<[I1]>;
def Graph_IntegerTensor : RankedTensorOf<[I8, I16, I32, I64, UI8, UI16, UI32,
                                          UI64]>;
def Graph_BitsTensor : RankedTensorOf<[I1, I8, I16, I32, I64, UI8, UI16, UI32,
                                       UI64]>;
def Graph_IndexTensor : RankedTensorOf<[I32, I64]>;
def Graph_ShapeTensor : 1DTensorOf<[I64]>;
def Graph_StringTensor : RankedTensorOf<[Graph_StringType]>;

#endif // MS_DIALECT_GRAPH_IR_GRAPHBASE_TD
