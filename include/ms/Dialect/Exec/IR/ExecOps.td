//===- ExecOps.td - msexec dialect: the execution plan -----*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The msexec dialect describes what the host runs: the device code of a
// target (`msexec.executable`, later `msexec.binary`) and the plan
// (`msexec.plan`): buffers in arenas, kernel launches on queues, copies,
// host steps, events and offloaded graphs. The module writer serializes it
// into the module file's meta section (docs/ModuleFormat.md).
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_IR_EXECOPS_TD
#define MS_DIALECT_EXEC_IR_EXECOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Exec_Dialect : Dialect {
  let name = "msexec";
  let cppNamespace = "::mlir::ms::exec";
  let summary = "the execution plan: buffers, launches, copies, events";
  let description = [{
    `msexec` is the host side of a compiled model, the level below `msgraph`
    once kernels are outlined. A module holds one `msexec.executable` per
    target (the device code, a nested `builtin.module` that the target's
    code generation lowers) and one `msexec.plan`: the ordered steps the
    runtime issues. Buffers are SSA values of type `!msexec.buffer<T>`
    declared by `input`, `output`, `weight` and `alloc`; memory planning
    gives every `alloc` an offset in the arena. Steps run on queues
    (`queue` attribute, default 0) in plan order; `signal`/`wait` order
    work across queues. At O2 an `offload` region holds a whole run of
    launches and copies that the target compiles into one function.
  }];
  let useDefaultTypePrinterParser = 1;
}

class Exec_Op<string mnemonic, list<Trait> traits = []>
    : Op<Exec_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Exec_BufferType : TypeDef<Exec_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "device memory holding one tensor";
  let description = [{
    A buffer holding a tensor of the given type, dense and row-major. A
    dynamic extent is allowed only for results of host steps whose size
    depends on the data; their `alloc` gives a capacity.
    ```mlir
    !msexec.buffer<tensor<4x8xf32>>
    ```
  }];
  let parameters = (ins "::mlir::RankedTensorType":$tensorType);
  let assemblyFormat = "`<` $tensorType `>`";
  let extraClassDeclaration = [{
    /// Bytes the buffer holds; 0 when an extent is dynamic.
    uint64_t getStaticByteSize() const;
    /// Bytes the buffer takes: `capacity` elements when given, else its
    /// static size.
    uint64_t getByteSize(std::optional<int64_t> capacity) const;
  }];
}

def Exec_EventType : TypeDef<Exec_Dialect, "Event"> {
  let mnemonic = "event";
  let summary = "a point in a queue that other queues can wait for";
}

def Exec_Buffer : Type<CPred<"::llvm::isa<::mlir::ms::exec::BufferType>($_self)">,
                       "msexec buffer", "::mlir::ms::exec::BufferType">;

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

def Exec_ExecutableOp : Exec_Op<"executable", [
    IsolatedFromAbove, Symbol, SingleBlock, NoTerminator]> {
  let summary = "the device code of one target";
  let description = [{
    Holds one `builtin.module` with the kernels of target `target`. The
    target's code generation phases run nested on that module; the
    serialize phase replaces the executable by an `msexec.binary`. Copies
    of the same kernels for several devices of one target (CPUs with
    different instruction sets) name the device in `variant`; the first
    copy is the one the plan refers to, the runtime loads the first whose
    binary the device can run.
    ```mlir
    msexec.executable @cpu target("cpu") variant("x86-64-v4") {
      module {
        func.func @kernel_0(%a: tensor<4xf32>) -> tensor<4xf32> { ... }
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$target,
                       OptionalAttr<StrAttr>:$variant);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `target` `(` $target `)` (`variant` `(` $variant^ `)`)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The module holding the kernels.
    ::mlir::ModuleOp getInnerModule();
  }];
}

def Exec_BinaryOp : Exec_Op<"binary", [Symbol]> {
  let summary = "serialized device code of one target";
  let description = [{
    The bytes of an executable after the serialize phase, in the module
    file section named by `format` (`cpu-elf`; `llvm-ir` text when the
    compilation stops at the LLVM IR stage). `requires` lists the device
    features the code uses (for the CPU, the instruction set extensions of
    the CPU it was compiled for); the runtime does not load it on a device
    that lacks one.
    ```mlir
    msexec.binary @cpu target("cpu") format("cpu-elf")
        requires(["avx", "avx2", "fma"]) data("\7FELF...")
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$target,
                       StrAttr:$format,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$requirements,
                       StrAttr:$data);
  let assemblyFormat = [{
    $sym_name `target` `(` $target `)` `format` `(` $format `)`
    (`requires` `(` $requirements^ `)`)? `data` `(` $data `)` attr-dict
  }];
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

def Exec_PlanOp : Exec_Op<"plan", [
    IsolatedFromAbove, Symbol, SingleBlock, NoTerminator]> {
  let summary = "the ordered steps the runtime runs for one entry point";
  let description = [{
    Buffer declarations and steps in program order. `arena_size` (bytes) is
    set by memory planning. `target` and `opt_level` are recorded in the
    module file. `ranks` (absent: 1) is the number of processes a sharded
    plan runs on, one SPMD program each; its collectives name groups of
    them.
    ```mlir
    msexec.plan @main target("cpu") opt_level(0) {
      %x = msexec.input 0 "x" : !msexec.buffer<tensor<4xf32>>
      %y = msexec.output 0 "y" : !msexec.buffer<tensor<4xf32>>
      msexec.launch @cpu::@kernel_0(%x, %y) : !msexec.buffer<tensor<4xf32>>, !msexec.buffer<tensor<4xf32>>
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$target,
                       I64Attr:$opt_level, OptionalAttr<I64Attr>:$arena_size,
                       OptionalAttr<I64Attr>:$ranks);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `target` `(` $target `)` `opt_level` `(` $opt_level `)`
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Exec_InputOp : Exec_Op<"input", [Pure]> {
  let summary = "the caller's input tensor `index`";
  let arguments = (ins I64Attr:$index, StrAttr:$name);
  let results = (outs Exec_Buffer:$buffer);
  let assemblyFormat = "$index $name attr-dict `:` type($buffer)";
}

def Exec_OutputOp : Exec_Op<"output", [Pure]> {
  let summary = "the caller's output tensor `index`";
  let description = [{
    The buffer the caller passes for output `index`; the step producing the
    output writes into it directly.
  }];
  let arguments = (ins I64Attr:$index, StrAttr:$name,
                       OptionalAttr<I64Attr>:$capacity);
  let results = (outs Exec_Buffer:$buffer);
  let assemblyFormat = "$index $name attr-dict `:` type($buffer)";
  let extraClassDeclaration = [{
    /// Bytes the caller's buffer must hold (the capacity for a dynamic type).
    uint64_t getByteSize();
  }];
}

def Exec_WeightOp : Exec_Op<"weight", [Pure]> {
  let summary = "a constant stored in the module file's weights section";
  let description = [{
    `offset` (64-byte aligned, in the weights section) is set by memory
    planning. With `per_rank`, `value` holds one block per rank of a
    sharded plan (its leading dim is the plan's `ranks`) and each rank's
    buffer is its own block: the part of a weight `all_slice` gives that
    rank, stored at compile time so that no rank slices per run.

    A weight with `file` is not stored in the module: its bytes (`value`)
    lie at `file_offset` (64-byte aligned) in that file (`ms-compile
    --external-weights`), which the runtime maps; it takes no place in the
    weights section, and an offloaded graph takes its address from the
    caller. When `value` is a `#msgraph.relayout`, its source's bytes lie
    there and the runtime computes the layout from them as it loads the
    module.
  }];
  let arguments = (ins ElementsAttr:$value, OptionalAttr<I64Attr>:$offset,
      UnitAttr:$per_rank, OptionalAttr<StrAttr>:$file,
      OptionalAttr<I64Attr>:$file_offset);
  let extraClassDeclaration = [{
    /// Returns the bytes `value` takes in the weights section: the buffer's
    /// size, or one block per rank with `per_rank`.
    int64_t getStorageBytes();
    /// Returns the distance between the blocks of consecutive ranks (the
    /// buffer's size, a multiple of 64) with `per_rank`, else 0.
    int64_t getRankStride();
  }];
  let results = (outs Exec_Buffer:$buffer);
  let assemblyFormat = "$value attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Exec_AllocOp : Exec_Op<"alloc", [Pure]> {
  let summary = "an intermediate buffer in the arena";
  let description = [{
    `offset` in the arena is set by memory planning. A buffer with a dynamic
    extent (the result of a host step whose size depends on the data) gives
    its `capacity` in elements.
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset,
                       OptionalAttr<I64Attr>:$capacity);
  let results = (outs Exec_Buffer:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes the buffer takes in the arena.
    uint64_t getByteSize();
  }];
}

def Exec_LaunchOp : Exec_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs a kernel of an executable on a queue";
  let description = [{
    Calls `kernel` (`@executable::@function`) with the buffers `args`: the
    kernel's operands, then its results. `source_op` names the op the
    kernel was made from, for reports.
  }];
  let arguments = (ins SymbolRefAttr:$kernel, Variadic<Exec_Buffer>:$args,
                       DefaultValuedAttr<I64Attr, "0">:$queue,
                       OptionalAttr<StrAttr>:$source_op);
  let assemblyFormat = [{
    $kernel `(` $args `)` attr-dict `:` type($args)
  }];
}

def Exec_CopyOp : Exec_Op<"copy"> {
  let summary = "copies a buffer into another of the same type";
  let arguments = (ins Exec_Buffer:$source, Exec_Buffer:$target,
                       DefaultValuedAttr<I64Attr, "0">:$queue);
  let assemblyFormat = [{
    $source `to` $target attr-dict `:` type($source) `to` type($target)
  }];
  let hasVerifier = 1;
}

def Exec_CollectiveOp : Exec_Op<"collective"> {
  let summary = "a collective communication among groups of ranks";
  let description = [{
    Each rank runs `op` over the group of `groups` (lists of ranks that
    partition `0 .. ranks-1`, all of one size) that holds it; its position
    in that list is its index in the group. `source` holds this rank's
    tensor, `target` receives the result. Ops and their `op_attrs`:
    `all_reduce` (`reduction`: sum, prod, max, min), `all_gather` (`axis`:
    member i's block lands at position i along it), `reduce_scatter`
    (`axis`, `reduction`: member i gets the reduction of block i),
    `all_to_all` (`split_axis`, `concat_axis`), `all_slice` (`axis`: keeps
    block i, no communication), `broadcast` (`root`: a position).

    ```mlir
    msexec.collective "all_reduce" %a to %b {reduction = "sum"}
        {groups = [array<i64: 0, 1>]}
        : !msexec.buffer<tensor<8x16xf32>> to !msexec.buffer<tensor<8x16xf32>>
    ```
  }];
  let arguments = (ins StrAttr:$op, Exec_Buffer:$source, Exec_Buffer:$target,
                       DictionaryAttr:$op_attrs,
                       TypedArrayAttrBase<DenseI64ArrayAttr, "groups of ranks">:$groups,
                       DefaultValuedAttr<I64Attr, "0">:$queue);
  let assemblyFormat = [{
    $op $source `to` $target $op_attrs attr-dict `:` type($source) `to`
    type($target)
  }];
}

def Exec_HostOp : Exec_Op<"host", [AttrSizedOperandSegments]> {
  let summary = "an operation the runtime executes on the host";
  let description = [{
    Runs the runtime's implementation of `op` (a `HostExecuted` msgraph op)
    on host memory with attributes `op_attrs`.
  }];
  let arguments = (ins StrAttr:$op, DictionaryAttr:$op_attrs,
                       Variadic<Exec_Buffer>:$ins, Variadic<Exec_Buffer>:$outs,
                       DefaultValuedAttr<I64Attr, "0">:$queue);
  let assemblyFormat = [{
    $op `ins` `(` $ins `:` type($ins) `)` `outs` `(` $outs `:` type($outs) `)`
    $op_attrs attr-dict
  }];
}

def Exec_SignalOp : Exec_Op<"signal"> {
  let summary = "marks a point in a queue";
  let arguments = (ins DefaultValuedAttr<I64Attr, "0">:$queue);
  let results = (outs Exec_EventType:$event);
  let assemblyFormat = "attr-dict `:` type($event)";
}

def Exec_WaitOp : Exec_Op<"wait"> {
  let summary = "makes a queue wait until an event is signalled";
  let arguments = (ins Exec_EventType:$event,
                       DefaultValuedAttr<I64Attr, "0">:$queue);
  let assemblyFormat = "$event attr-dict";
}

def Exec_BodyOp
    : Exec_Op<"body", [HasParent<"::mlir::ModuleOp">, IsolatedFromAbove, Symbol,
                       SingleBlock, NoTerminator]> {
  let summary = "a run of plan steps that `call` steps run with their buffers";
  let description = [{
    Launches and copies that a plan runs several times on different buffers
    (the layers of a model that repeats one layer), written once: the
    block's arguments are the buffers, which each `msexec.call` binds.
    ```mlir
    msexec.body @main_body {
    ^bb0(%x: !msexec.buffer<tensor<4xf32>>, %y: !msexec.buffer<tensor<4xf32>>):
      msexec.launch @cpu::@kernel_0(%x, %y) : ...
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Exec_CallOp
    : Exec_Op<"call", [HasParent<"PlanOp">,
                       DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "runs the steps of a body on the plan's buffers";
  let description = [{
    Runs the steps of `msexec.body @callee` in order, its block's arguments
    bound to `args`: exactly the steps it replaces.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Exec_Buffer>:$args);
  let assemblyFormat = "$callee `(` $args `)` attr-dict `:` type($args)";
  let extraClassDeclaration = [{
    /// The body it runs, or null.
    BodyOp getBodyOp();
  }];
}

def Exec_OffloadOp : Exec_Op<"offload", [SingleBlock, NoTerminator]> {
  let summary = "a run of steps compiled into one device function (O2)";
  let description = [{
    The launches and copies in the region run as one unit: on CPU one
    generated function `entry` (set by code generation) that takes the
    weights, the arena and the caller's buffers; on GPU a CUDA graph.
    ```mlir
    msexec.offload {
      msexec.launch @cpu::@kernel_0(%x, %t) : ...
      msexec.launch @cpu::@kernel_1(%t, %y) : ...
    }
    ```
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$entry,
                       DefaultValuedAttr<I64Attr, "0">:$queue);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The caller's buffers (inputs, outputs and the weights whose address
    /// only the runtime knows: one block per rank, or in a file) the region
    /// uses, in order of first use. The generated function takes the weights, the arena
    /// and then these: `void entry(void *args[2 + n])`.
    ::llvm::SmallVector<::mlir::Value> getCallerBuffers();
  }];
}

#endif // MS_DIALECT_EXEC_IR_EXECOPS_TD
