//===- NpuOps.td - msnpu dialect: the virtual NPU's instructions -*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The msnpu dialect is the instruction set of ms's DaVinci-style virtual NPU
// (docs/NPU.md): buffers placed in the core's on-chip memories, data moves
// per pipe, the cube's fractal matrix multiply, vector-unit operations and
// the flags that order pipes. Kernels of the `npu` target are lowered to
// these ops inside scf.for loops and serialized to the `npu-program` section
// the runtime's simulator executes. Specification: docs/spec/msnpu.md.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_NPU_IR_NPUOPS_TD
#define MS_DIALECT_NPU_IR_NPUOPS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Npu_Dialect : Dialect {
  let name = "msnpu";
  let cppNamespace = "::mlir::ms::npu";
  let summary = "instructions of the virtual NPU";
  let description = [{
    Memrefs name memory: a memref without a memory space is global memory
    (GM, the kernel's buffers), one with `#msnpu.space<...>` lives in a
    core's L1, L0A, L0B, L0C or UB, placed by `msnpu.buffer`. Each other op
    is one instruction of one pipe; pipes run concurrently and are ordered
    only by `msnpu.set_flag` / `msnpu.wait_flag` and `msnpu.barrier`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let useDefaultAttributePrinterParser = 1;
}

//===----------------------------------------------------------------------===//
// Enums and attributes
//===----------------------------------------------------------------------===//

def Npu_MemorySpace : I32EnumAttr<"MemorySpace", "a memory of the NPU", [
    I32EnumAttrCase<"GM", 0, "gm">,
    I32EnumAttrCase<"L1", 1, "l1">,
    I32EnumAttrCase<"L0A", 2, "l0a">,
    I32EnumAttrCase<"L0B", 3, "l0b">,
    I32EnumAttrCase<"L0C", 4, "l0c">,
    I32EnumAttrCase<"UB", 5, "ub">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ms::npu";
}

def Npu_MemorySpaceAttr : EnumAttr<Npu_Dialect, Npu_MemorySpace, "space"> {
  let summary = "the on-chip memory a memref lives in";
  let assemblyFormat = "`<` $value `>`";
}

def Npu_Pipe : I32EnumAttr<"Pipe", "a pipe of an NPU core", [
    I32EnumAttrCase<"S", 0, "s">,
    I32EnumAttrCase<"MTE1", 1, "mte1">,
    I32EnumAttrCase<"MTE2", 2, "mte2">,
    I32EnumAttrCase<"MTE3", 3, "mte3">,
    I32EnumAttrCase<"M", 4, "m">,
    I32EnumAttrCase<"V", 5, "v">,
    I32EnumAttrCase<"FIX", 6, "fix">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ms::npu";
}

def Npu_PipeAttr : EnumAttr<Npu_Dialect, Npu_Pipe, "pipe"> {
  let assemblyFormat = "`<` $value `>`";
}

def Npu_UnaryFn : I32EnumAttr<"UnaryFn", "a vector-unit unary function", [
    I32EnumAttrCase<"Copy", 0, "copy">,
    I32EnumAttrCase<"Cast", 1, "cast">,
    I32EnumAttrCase<"Exp", 2, "exp">,
    I32EnumAttrCase<"Log", 3, "log">,
    I32EnumAttrCase<"Sqrt", 4, "sqrt">,
    I32EnumAttrCase<"Rsqrt", 5, "rsqrt">,
    I32EnumAttrCase<"Recip", 6, "recip">,
    I32EnumAttrCase<"Abs", 7, "abs">,
    I32EnumAttrCase<"Neg", 8, "neg">,
    I32EnumAttrCase<"Relu", 9, "relu">,
    I32EnumAttrCase<"Tanh", 10, "tanh">,
    I32EnumAttrCase<"Erf", 11, "erf">,
    I32EnumAttrCase<"Sigmoid", 12, "sigmoid">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ms::npu";
}

def Npu_UnaryFnAttr : EnumAttr<Npu_Dialect, Npu_UnaryFn, "unary"> {
  let assemblyFormat = "`<` $value `>`";
}

def Npu_BinaryFn : I32EnumAttr<"BinaryFn", "a vector-unit binary function", [
    I32EnumAttrCase<"Add", 0, "add">,
    I32EnumAttrCase<"Sub", 1, "sub">,
    I32EnumAttrCase<"Mul", 2, "mul">,
    I32EnumAttrCase<"Div", 3, "div">,
    I32EnumAttrCase<"Max", 4, "max">,
    I32EnumAttrCase<"Min", 5, "min">,
    I32EnumAttrCase<"Pow", 6, "pow">,
    I32EnumAttrCase<"Lt", 7, "lt">,
    I32EnumAttrCase<"Le", 8, "le">,
    I32EnumAttrCase<"Gt", 9, "gt">,
    I32EnumAttrCase<"Ge", 10, "ge">,
    I32EnumAttrCase<"Eq", 11, "eq">,
    I32EnumAttrCase<"Ne", 12, "ne">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ms::npu";
}

def Npu_BinaryFnAttr : EnumAttr<Npu_Dialect, Npu_BinaryFn, "binary"> {
  let assemblyFormat = "`<` $value `>`";
}

def Npu_ReduceFn : I32EnumAttr<"ReduceFn", "a vector-unit reduction", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::ms::npu";
}

def Npu_ReduceFnAttr : EnumAttr<Npu_Dialect, Npu_ReduceFn, "reduce"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

class Npu_Op<string mnemonic, list<Trait> traits = []>
    : Op<Npu_Dialect, mnemonic, traits>;

/// An instruction that runs on one pipe.
class Npu_PipeOp<string mnemonic, list<Trait> traits = []>
    : Npu_Op<mnemonic, traits> {
  code extraPipeDeclaration = [{
    /// The pipe that executes this instruction.
    ::mlir::ms::npu::Pipe getPipe();
  }];
  let extraClassDeclaration = extraPipeDeclaration;
  let hasVerifier = 1;
}

def Npu_BufferOp : Npu_Op<"buffer", [Pure]> {
  let summary = "a buffer at a fixed offset of an on-chip memory";
  let description = [{
    Names `offset` bytes into the memory of the result's memory space as a
    buffer of the result type (static shape, identity layout). Buffers are
    placed by the compiler, not allocated: two buffers may overlap, and
    `msnpu` code orders their uses with flags.

    ```mlir
    %a = msnpu.buffer [0] : memref<2x8x4x16x16xf16, #msnpu.space<l0a>>
    ```
  }];
  let arguments = (ins I64Attr:$offset);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "`[` $offset `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The memory the buffer lives in.
    ::mlir::ms::npu::MemorySpace getSpace();
  }];
}

def Npu_DmaOp : Npu_PipeOp<"dma"> {
  let summary = "copies a strided view between memories";
  let description = [{
    Copies every element of `source` to the same index of `target` (same
    shape, rank 1 to 4). The memories choose the pipe: GM to L1 or UB is
    MTE2, L1 to L0A or L0B is MTE1, UB to GM is MTE3. MTE2 may convert f32
    to f16 (round to nearest even); otherwise element types match.
    Fractal layouts are written by copying from a 4-d view of a row-major
    matrix (`memref.expand_shape` + `memref.transpose`).

    ```mlir
    msnpu.dma %tile, %l1 : memref<32x32xf32, strided<[64, 1], offset: ?>> to memref<32x32xf16, #msnpu.space<l1>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $source `,` $target attr-dict `:` type($source) `to` type($target)
  }];
}

def Npu_FillOp : Npu_PipeOp<"fill"> {
  let summary = "writes one value to every element of an L1 or UB view";
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$target,
                       F64Attr:$value);
  let assemblyFormat = "$value `,` $target attr-dict `:` type($target)";
}

def Npu_MmadOp : Npu_PipeOp<"mmad"> {
  let summary = "multiplies fractal matrices on the cube";
  let description = [{
    `c = a * b` (with `init`) or `c += a * b`, where `a` (L0A) is an M x K
    matrix of 16 x k0 fractals `memref<M/16 x K/k0 x 16 x k0>`, `b` (L0B) a
    K x N matrix of k0 x 16 fractals `memref<K/k0 x N/16 x k0 x 16>`, `c`
    (L0C) an M x N matrix of 16 x 16 fractals; a fractal row is 32 bytes
    (k0 is 16 for f16 and bf16, 8 for f32, 32 for i8), `c` is f32 (float
    inputs) or i32 (i8). All three are contiguous.

    ```mlir
    msnpu.mmad %a, %b, %c init : memref<8x4x16x16xf16, #msnpu.space<l0a>>, memref<4x8x16x16xf16, #msnpu.space<l0b>>, memref<8x8x16x16xf32, #msnpu.space<l0c>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$lhs,
                       Arg<AnyMemRef, "", [MemRead]>:$rhs,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$acc,
                       UnitAttr:$init);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $acc (`init` $init^)? attr-dict `:` type($lhs) `,`
    type($rhs) `,` type($acc)
  }];
}

def Npu_FixpipeOp : Npu_PipeOp<"fixpipe"> {
  let summary = "stores a fractal L0C matrix as rows, with a cast";
  let description = [{
    Writes the first `rows x cols` elements of the M x N fractal matrix
    `source` (L0C, `memref<M/16 x N/16 x 16 x 16>`) to the 2-d view
    `target` (UB or GM, f32 or f16; rows <= M, cols <= N), applying ReLU
    with `relu` and adding to what `target` holds with `acc`.
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$target,
                       UnitAttr:$relu, UnitAttr:$acc);
  let assemblyFormat = [{
    $source `,` $target (`relu` $relu^)? (`acc` $acc^)? attr-dict `:`
    type($source) `to` type($target)
  }];
}

def Npu_VUnaryOp : Npu_PipeOp<"vunary"> {
  let summary = "an elementwise unary function on the vector unit";
  let description = [{
    `target = fn(source)` elementwise over `target`'s shape (rank 1 or 2);
    a dimension of size 1 in `source` is broadcast. `cast` converts to the
    element type of `target`; other functions keep it.
  }];
  let arguments = (ins Npu_UnaryFnAttr:$fn,
                       Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $fn $source `,` $target attr-dict `:` type($source) `to` type($target)
  }];
}

def Npu_VBinaryOp : Npu_PipeOp<"vbinary"> {
  let summary = "an elementwise binary function on the vector unit";
  let description = [{
    `target = fn(lhs, rhs)` elementwise over `target`'s shape (rank 1 or 2);
    a dimension of size 1 in an operand is broadcast (a row of biases, a
    column of row maxima). All element types match.
  }];
  let arguments = (ins Npu_BinaryFnAttr:$fn,
                       Arg<AnyMemRef, "", [MemRead]>:$lhs,
                       Arg<AnyMemRef, "", [MemRead]>:$rhs,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $fn $lhs `,` $rhs `,` $target attr-dict `:` type($lhs) `,` type($rhs)
    `to` type($target)
  }];
}

def Npu_VScalarOp : Npu_PipeOp<"vscalar"> {
  let summary = "an elementwise binary function with a scalar operand";
  let description = [{
    `target = fn(source, scalar)` elementwise over `target`'s shape (rank 1
    or 2); a dimension of size 1 in `source` is broadcast.
  }];
  let arguments = (ins Npu_BinaryFnAttr:$fn,
                       Arg<AnyMemRef, "", [MemRead]>:$source, F64Attr:$scalar,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $fn $source `,` $scalar `,` $target attr-dict `:` type($source) `to`
    type($target)
  }];
}

def Npu_VSelectOp : Npu_PipeOp<"vselect"> {
  let summary = "an elementwise choice between two values by a mask";
  let description = [{
    `target = cond != 0 ? lhs : rhs` elementwise over `target`'s shape
    (rank 1 or 2), with `rhs` a view or, without one, the number `scalar`;
    a dimension of size 1 in an operand is broadcast. `cond` holds a
    comparison's ones and zeros (`vbinary <lt>` and the other comparisons,
    in their operands' type); `lhs`, `rhs` and `target` share an element
    type.

    ```mlir
    msnpu.vselect %mask, %x else %y, %out
        : memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>>,
          memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
    msnpu.vselect %mask, %x, %out {scalar = 0.0}
        : memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>>
        to memref<8x64xf32, #msnpu.space<ub>>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$cond,
                       Arg<AnyMemRef, "", [MemRead]>:$lhs,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$rhs,
                       OptionalAttr<F64Attr>:$scalar,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = [{
    $cond `,` $lhs (`else` $rhs^)? `,` $target attr-dict `:` type($cond) `,`
    type($lhs) (`,` type($rhs)^)? `to` type($target)
  }];
}

def Npu_VDupOp : Npu_PipeOp<"vdup"> {
  let summary = "writes one value to every element of a UB view";
  let arguments = (ins F64Attr:$value,
                       Arg<AnyMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = "$value `,` $target attr-dict `:` type($target)";
}

def Npu_VReduceOp : Npu_PipeOp<"vreduce"> {
  let summary = "reduces each row of a 2-d UB view";
  let description = [{
    `target[i] = fn_j source[i][j]` for `source` of shape r x c and `target`
    of r elements (shape `r` or `r x 1`), combined with what `target` holds
    when `acc` is set.
  }];
  let arguments = (ins Npu_ReduceFnAttr:$fn,
                       Arg<AnyMemRef, "", [MemRead]>:$source,
                       Arg<AnyMemRef, "", [MemRead, MemWrite]>:$target,
                       UnitAttr:$acc);
  let assemblyFormat = [{
    $fn $source `,` $target (`acc` $acc^)? attr-dict `:` type($source) `to`
    type($target)
  }];
}

class Npu_FlagOp<string mnemonic> : Npu_Op<mnemonic,
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let arguments = (ins Npu_PipeAttr:$source, Npu_PipeAttr:$target,
                       ConfinedAttr<I32Attr, [IntMinValue<0>,
                                              IntMaxValue<15>]>:$id);
  let assemblyFormat = "$source `to` $target `,` $id attr-dict";
  let hasVerifier = 1;
}

def Npu_SetFlagOp : Npu_FlagOp<"set_flag"> {
  let summary = "signals pipe `target` once pipe `source` is done so far";
  let description = [{
    Queued on `source`: fires when every instruction queued on `source`
    before it has completed. The first `msnpu.wait_flag` with the same
    source, target and id that has not consumed a signal yet consumes it.
  }];
}

def Npu_WaitFlagOp : Npu_FlagOp<"wait_flag"> {
  let summary = "blocks pipe `target` until the matching flag fires";
}

def Npu_BarrierOp : Npu_Op<"barrier", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits for every pipe of the core to drain";
  let assemblyFormat = "attr-dict";
}

def Npu_CoreBarrierOp : Npu_Op<"core_barrier",
    [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "waits for every pipe of every core to drain";
  let description = [{
    Ends a step of the kernel: what any core wrote before it is visible to
    every core after it. Only at the top level of a kernel.
  }];
  let assemblyFormat = "attr-dict";
}

def Npu_CoreIdOp : Npu_Op<"core_id", [Pure]> {
  let summary = "the id of the core running the program (0 .. cores-1)";
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
}

def Npu_PerCoreOp : Npu_Op<"per_core", [Pure]> {
  let summary = "a value that depends on the core";
  let description = [{
    `values[core_id]`: how work that does not divide evenly is split, e.g.
    the number of tiles each core computes.
  }];
  let arguments = (ins DenseI64ArrayAttr:$values);
  let results = (outs Index:$result);
  let assemblyFormat = "$values attr-dict";
  let hasVerifier = 1;
}

#endif // MS_DIALECT_NPU_IR_NPUOPS_TD
