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
  let extraClassDeclaration = [{
    /// Maps the regular file at `path` read-only for the context's
    /// lifetime (once per file) and returns its real path and bytes; on
    /// failure, the reason, as "cannot map '<path>': <why>" with its error
    /// code. Thread-safe. (The bytes are always a file mapping: pages read
    /// from it may be given back, ms::format::releaseMappedPages.)
    ::llvm::Expected<std::pair<::llvm::StringRef, ::llvm::StringRef>>
    mapFile(::llvm::StringRef path);

    /// Returns the real path of a file mapFile mapped that is no longer the
    /// file it mapped, with the size and modification time it had (replaced
    /// or written since: constants read or computed from it may not be its
    /// bytes); empty if there is none.
    std::string findChangedMappedFile();

  private:
    struct MappedFile {
      /// Null for an empty file.
      std::unique_ptr<::llvm::sys::fs::mapped_file_region> region;
      ::llvm::sys::fs::file_status status;
    };
    /// The files mapFile mapped, by real path.
    ::llvm::StringMap<MappedFile> mappedFiles;
    std::mutex mappedFilesMutex;

  public:
  }];
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
    The elements of `source` (dense or mapped) reshaped to `shape`,
    transposed by `permutation` and converted to the element type of the
    attribute's type (the same, or f32 to bf16 rounded to nearest, ties to
    even):

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
          "::mlir::ElementsAttr":$source, ArrayRefParameter<"int64_t">:$shape,
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

def Graph_MappedElementsAttr
    : AttrDef<Graph_Dialect,
              "MappedElements", [ElementsAttrInterface, TypedAttrInterface]> {
  let mnemonic = "mapped";
  let summary = "a constant's elements read in place from a mapped file";
  let description = [{
    The elements of the attribute's type stored at byte `offset` of the file
    at `path` (little-endian, row-major, as in a `dense` attribute's raw
    data):

    ```mlir
    #msgraph.mapped<"/models/bert.onnx", offset = 4096> : tensor<768x768xf32>
    ```

    The ONNX importer refers to a model's large initializers this way
    instead of copying them: the file stays mapped (read-only) for as long
    as the compiler's context lives, and readers take the bytes from the
    mapping. Attributes are uniqued by path, offset and type, so a weight's
    bytes are neither copied nor hashed. The file must not change while the
    compiler runs. Constraints mapped_c1..mapped_c2 (docs/spec/msgraph.md).
  }];
  let parameters =
      (ins AttributeSelfTypeParameter<"", "::mlir::ShapedType">:$type,
          StringRefParameter<"the file's real path">:$path, "uint64_t":$offset,
          AttrParameter<"const char *", "the elements' mapped bytes">:$data);
  let hasCustomAssemblyFormat = 1;
  // (Built by `map`, which finds `data` in the mapping, and `reshaped`.)
  let skipDefaultBuilders = 1;
  let extraClassDeclaration = [{
    /// Returns the elements of `type` at `offset` of the file at `path`,
    /// mapping it (GraphDialect::mapFile); on failure, the reason
    /// (mapped_c1, mapped_c2).
    static ::llvm::Expected<MappedElementsAttr>
    map(::mlir::ShapedType type, ::llvm::StringRef path, uint64_t offset);
    /// Returns the same bytes as elements of `type`, a static type of as
    /// many elements of the same element type.
    MappedElementsAttr reshaped(::mlir::ShapedType type) const;
    /// Returns the elements' bytes.
    ::llvm::ArrayRef<char> getRawData() const;
    /// Returns the elements as a dense attribute (a copy: for readers that
    /// need their values).
    ::mlir::DenseElementsAttr materialize() const;
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
