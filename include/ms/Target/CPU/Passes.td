//===- Passes.td - CPU target passes -----------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CPU_PASSES_TD
#define MS_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUEmitEntryPointsPass : Pass<"ms-cpu-emit-entry-points",
                                  "::mlir::ModuleOp"> {
  let summary = "adds the functions the runtime calls to lowered CPU "
                "executables";
  let description = [{
    Runs once the kernels of `msexec.executable`s with target `cpu` are in
    the LLVM dialect (bare-pointer calling convention). Each kernel that the
    plan launches gets `void ms_<kernel>(void **args)` calling it with
    args[0..n-1]. Each `msexec.offload` region (O2) becomes one function
    `void ms_graph_<i>(void **args)`: args[0] is the weights section,
    args[1] the arena, then the caller's buffers the region uses; it calls
    the region's kernels in order with constant offsets into the weights
    and the arena, and copies with memmove. The region gets `entry`. Kernels
    become internal, so LLVM inlines them into the graph functions.

    ```mlir
    msexec.offload {
      msexec.launch @cpu::@kernel_0(%x, %t) : ...
    }
    // becomes, in the executable:
    llvm.func @ms_graph_0(%args: !llvm.ptr) {
      // %t = arena + offset, %x = args[2]
      llvm.call @kernel_0(%x, %t) : (!llvm.ptr, !llvm.ptr) -> ()
      llvm.return
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUContractionKernelsPass : Pass<"ms-cpu-contraction-kernels",
                                     "::mlir::func::FuncOp"> {
  let summary = "register-tiled kernels for f32 and bf16 (pair form) "
                "matmuls, batch matmuls and convolutions";
  let description = [{
    Rewrites each f32 contraction on tensors (a `linalg.generic` whose body
    is `out + a * b` with one reduction loop `k`, not inside another loop)
    whose columns are contiguous in B and C into a register-tiled kernel:
    an `scf.forall` over the other parallel loops, blocks of `2 * lanes`
    (or `lanes`) columns and blocks of up to `rows` rows, in that order (a
    panel of B stays in cache while the rows of A stream by; with at most
    four blocks of columns the row blocks come first, so that each block of
    A's rows is read once). The columns are C's innermost loop and the loops
    before it that B also has innermost, in the same order (a conv's output
    rows and columns), their dims merged; when no block width divides them
    the last block is partial (its reads and writes masked). Each
    iteration keeps its block of C in `rows` vectors across the whole `k`
    loop: per `k`, one vector load of B's row, and per row one broadcast of
    A's element and one `vector.fma`. The block starts from C's initial
    value and is written once. When the tallest block that divides the
    rows is at most 4 rows (197 rows; 1024 in blocks of up to 6), the
    blocks are `rows` tall and the
    iteration holding the last, shorter one runs the kernel on its rows
    (an `scf.if` on the block's height). A reduction longer than `k-block`
    runs in blocks of 3/4 `k-block` to `k-block` when its length has such a
    divisor (an `scf.for` around the forall, partial sums in the
    destination), so that a block of A's rows stays in cache across the
    column blocks (not when the row blocks come first). When B is a plain
    `[k, columns]` matrix whose rows lie a multiple of 4 KiB apart (all of a
    panel's rows would share a few cache sets), each block of k of the
    panel is first copied to a contiguous tensor, which the blocks of rows
    read. A B that is a transpose of panels `[columns / c, k, c]`, reshaped
    (a constant weight stored so by `ms-cpu-pack-weights`, c a multiple of
    the block's columns), is read from the panels instead: column `n` at
    panel `n / c`, column `n % c`. Each result element is the same sum in the same order as the loop
    nest's, with fused multiply-adds.

    A contraction in *pair form* (bf16 operands, `out + extf(a) *
    extf(b)`, its reduction split into pairs c and, as its last loop, the
    pair's element t: `lib/Target/CPU/PairContraction.h`) runs its k loop
    by pairs: per pair one read of `2 * columns` bf16 of B (the block's
    columns, each pair interleaved; from a tensor `[..., K / 2, columns,
    2]` or from pair panels `[columns / w, K / 2, w, 2]` read as `(n
    floordiv w, c, n mod w, t)`) and per row one pair of A as an i32 word,
    summed into the f32 registers by `x86vector.avx512.dot` (vdpbf16ps) per
    16 columns with `bf16-dot`, else by two fused multiply-adds of the
    pairs' halves. A matmul whose B is unpacked from bf16 pair panels
    (`ms-cpu-pack-weights precision=bf16`) with A's k innermost is first
    rewritten into pair form: A rounded to bf16 once (one elementwise
    generic), B read from the panels. A convolution whose weight is
    computed from a kernel argument marked `ms.conv_pairs` (bf16, same
    pass) becomes a contraction in pair form on that argument: with pair
    panels of input channels `[M / 32, C / 2 * K..., 64]`, the input
    rounded to bf16 in pairs of channels (`[..., C / 2, ..., W, 2]`, each
    row holding two channels' rows interleaved) and read in place; with
    rows `[M, C K...]` (a zero appended to each row when C K... is odd),
    an im2col copy in pairs of the merged reduction (`[..., C K... / 2,
    o..., 2]`, zeros past its end). With `bf16` (`--precision bf16`) every
    other f32 contraction with an even K runs in pair form too, both
    operands rounded to bf16 as it runs: an operand whose innermost index
    is k split into pairs in place, one with k elsewhere laid out in pairs
    of its k rows (each row of the pairs two rows interleaved); one whose B
    has k innermost, or whose operands are read through index expressions
    (a conv's input in place), stays f32.

    A convolution (`out[..., o...] += in[..., o * s + w * d] * weight[...,
    r...]`, as msgraph.conv lowers) whose weight has at least `rows / 2`
    output channels is first rewritten as an im2col copy (an `scf.forall`
    copying one row of output positions per iteration as a vector read
    whole from the input, every `s`-th element kept) and a contraction of
    the weight with it over the merged reductions, which the kernel then
    covers with the output positions as columns; unit output dims only C
    has (a group of one) are dropped, and an elementwise user reading them
    at index 0 reads the contraction directly (and stays its epilogue).
    A weight stored with its output channels innermost
    (ms-cpu-pack-weights) makes the channels the columns and the output
    positions the rows: then there is no copy, the kernel reads the input
    in place (one element per row and k, k's digits being the reductions:
    input channel, kh, kw). When the im2col copy would exceed 1 MiB
    (ResNet's stem and 56x56 convs write and read 7 MB), the conv is first
    tiled by rows of output
    positions with its elementwise user and its output's fill (an
    `scf.forall` over at least 8 tiles, each copy at most 640 KiB and a
    multiple of `2 * lanes` positions where rows give one): each tile's
    copy stays in L2 for its kernel.

    ```mlir
    %c = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%init : tensor<64x128xf32>)
    // becomes
    %c = scf.forall (%n, %m) = (0, 0) to (128, 64) step (32, 8) shared_outs(%out = %init) {
      %acc = scf.for %k = 0 to 256 iter_args(%r0 = ..., ..., %r7 = ...) {
        %row = vector.transfer_read %b[%k, %n] : vector<32xf32>
        %x = tensor.extract %a[%m, %k]  // and rows m+1 .. m+7
        %r0n = vector.fma (vector.broadcast %x), %row, %r0
      }
      // the 8 vectors written to %out[%m, %n] (8x32)
    }
    ```
  }];
  let options =
      [Option<"lanes", "lanes", "int64_t", /*default=*/"16",
              "f32 lanes of one vector register (kernels in an executable "
              "with a CPU variant: that CPU's)">,
       Option<"rows", "rows", "int64_t", /*default=*/"8",
              "most rows of C a register block holds (kernels in an "
              "executable with a CPU variant: that CPU's)">,
       Option<"kBlock", "k-block", "int64_t", /*default=*/"512",
              "longest reduction run in one pass over C (longer ones run in "
              "blocks, 0: never)">,
       Option<"bf16", "bf16", "bool", /*default=*/"false",
              "contractions multiply bf16 (--precision bf16): each f32 "
              "contraction whose operands' pairs of k can be laid out runs "
              "in pair form, both operands rounded">,
       Option<"bf16Dot", "bf16-dot", "bool", /*default=*/"false",
              "contractions in pair form: the CPU's bf16 dot products "
              "(AVX512-BF16) rather than f32 fused multiply-adds of the pairs' "
              "halves (kernels in an executable with a CPU variant: that "
              "CPU's)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
}

def CPUPackWeightsPass : Pass<"ms-cpu-pack-weights", "::mlir::ModuleOp"> {
  let summary = "stores constant matmul and conv weights in the layouts the "
                "contraction kernels read fastest";
  let description = [{
    Runs on outlined kernels and their callers. When every call of a kernel
    passes a constant for a weight, the constant is stored in the kernel's
    layout at compile time and the kernel turns its argument back into the
    op's layout with msgraph ops that the kernel code generation folds into
    its reads (`ms-cpu-contraction-kernels`). Weights in external-data files
    (the module attribute `msgraph.external_data`) stay as they are, mapped
    from their files; so do conv weights stored `[C, K..., M]` too large
    to fold (over 4M elements).

    - `msgraph.matmul` by a static f32 `[K, N]` weight with N a multiple of
      32 (at least 64): the weight is stored as panels of 32 columns,
      `[N / 32, K, 32]`; the kernel's block of columns then reads 128
      contiguous bytes per k, each panel in order, instead of rows 4*N
      bytes apart.
    - `msgraph.conv` without groups with a multiple of 8 output channels
      and fewer output positions than channels, or of stride 1 with a
      number of positions that is not a multiple of 32 (ResNet's 28x28
      convs: vectorized along their positions, each tile's last block was
      partial): its weight `[M, C, K...]` is stored `[C,
      K..., M]`, so that the kernel vectorizes along the channels
      (ResNet's 7x7 outputs fill blocks of 32 positions to 77%; their 512
      channels fill them all); with M a multiple of 32 (at least 64), as
      panels of 32 channels of that `[C * K..., M]` matrix, `[M / 32, C *
      K..., 32]` (turned back by a transpose, a reshape and the conv's
      transpose), so that a block of channels reads 128 contiguous bytes
      per k, not rows 4*M bytes apart.
    - `msgraph.conv` 3x3 of stride 1 without groups or dilation, with even
      output rows and columns, at least 32 channels each way, 14x14
      positions or more and at most 4 MiB of transformed filter: its weight
      is stored as Winograd's filter transform `G g G^T`, `[16, M, C]`,
      the argument marked `ms.winograd_filter` (read by
      `ms-cpu-winograd-convs`) and unpacked for the conv by `Gp U Gp^T`
      (a reshape, a transpose and two matmuls by constants).

    ```mlir
    func.func @k(%x: tensor<128x768xf32>, %w: tensor<768x2048xf32>) ...
      %y = msgraph.matmul %x, %w ...
    %r = call @k(%x, %cst) : (..., tensor<768x2048xf32>) -> ...
    // becomes
    func.func @k(%x: tensor<128x768xf32>, %w: tensor<64x768x32xf32>) ...
      %0 = msgraph.transpose %w {permutation = array<i64: 1, 0, 2>} ...
      %1 = msgraph.reshape %0 : (tensor<768x64x32xf32>) -> tensor<768x2048xf32>
      %y = msgraph.matmul %x, %1 ...
    %r = call @k(%x, %cst_packed) : (..., tensor<64x768x32xf32>) -> ...
    ```

    With `precision=bf16`, weights are stored in bfloat16 (rounded to
    nearest, ties to even) in the layouts of bf16 pair contractions
    (AVX512-BF16's dot products of pairs; `ms-cpu-contraction-kernels`),
    each unpacked back to f32 with a cast for any other reader:

    - a matmul weight with an even K: the two rows k = 2i and 2i + 1 of
      each panel interleaved, `[N / 32, K / 2, 64]` (unpacked by a
      reshape, a transpose, a reshape and a cast before the panels' own);
    - a conv weight stored channels-innermost above, with M a multiple of
      32 and C even: pair panels of input channels, `[M / 32, C / 2 *
      K..., 64]` (element `[p, i, 2j + t]` = `w[32p + j, 2c + t, r...]`
      for i = c K... + r), the argument marked `ms.conv_pairs`;
    - a Winograd filter with C even: its transform in bf16, `[16, M, C]`;
    - any other conv without groups (those two with C odd or M no multiple
      of 32 included; read through an im2col copy): rows `[M, C K...]`,
      marked `ms.conv_pairs`; when C K... is odd (3 input channels: a
      stem) a computed constant `[M, C K... + 1]`, each row ending in a
      zero (unpacked by a cast and a slice).

    Grouped convolutions keep their f32 weights.
  }];
  let options =
      [Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
              "precision of matmul and conv weights: f32, or bf16 (stored in "
              "bfloat16 for pair contractions)">,
  ];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

def CPUWinogradConvsPass
    : Pass<"ms-cpu-winograd-convs", "::mlir::func::FuncOp"> {
  let summary = "3x3 stride-1 convolutions as Winograd F(2x2, 3x3)";
  let description = [{
    Rewrites each f32 NCHW convolution on tensors (`out[n, 0, m, oh, ow] +=
    in[n, c, oh + kh, ow + kw] * w[m, c, kh, kw]`, 3x3, output rows and
    columns even) whose weight is computed from a kernel argument marked
    `ms.winograd_filter` (`ms-cpu-pack-weights`: the filter transform `U =
    G g G^T` of each 3x3 filter, `[16, M, C]`) into Winograd's F(2x2, 3x3)
    algorithm, 16 multiplications per 2x2 block of outputs (a tile) and
    channel instead of 36: one `scf.forall` over images and blocks of tile
    rows (the largest whose two buffers, `[16, C or M, columns]` with the
    block's tiles rounded up to whole 32-column register blocks, stay
    within 256 KiB each, and that share best between two threads), each
    iteration

    - the input transform `V[16, C, tiles] = B^T d B` of each tile's 4x4
      input patch, `lanes` tiles per vector along a tile row (two reads of
      `2 * lanes` input columns per patch row, `vector.deinterleave`d into
      the patch's four columns);
    - the 16 matmuls `M[x, m, t] = sum_c U[x, m, c] * V[x, c, t]`, one
      `linalg.generic` for `ms-cpu-contraction-kernels`;
    - the output transform `A^T M A` added to the conv's initial value
      (its fill value, or its elements), each tile's two output columns
      `vector.interleave`d back.

    A filter transform over 1 MiB would not stay in L2 from one block to
    the next (ResNet's 14x14 convs: 4 MiB); such a conv runs each phase
    over all its tiles (of all images) instead: the input transform as an
    `scf.forall` over input channels, the 16 matmuls once (the filter read
    once), the output transform as an `scf.forall` over output channels.

    A row's last vector of tiles is partial (masked at the tensors' ends;
    the next row's vector overwrites the spill). The
    argument's unpacking to the weight is left to the canonicalizer (dead).

    A filter in bf16 (`ms-cpu-pack-weights precision=bf16`) makes the
    matmuls bf16 pair contractions: the input transform runs on pairs of
    input channels, their two transforms interleaved and rounded to bf16,
    `V[16, C / 2, 2 * columns]`, and the 16 matmuls are one contraction in
    pair form (`lib/Target/CPU/PairContraction.h`) of the filter and V
    split into pairs.

    ```mlir
    // U: [16, 64, 64], the conv 64 -> 64 channels on 56x56 outputs
    %y = scf.forall (%n, %b) in (1, 14) shared_outs(%o = %init)
        -> (tensor<1x1x64x56x56xf32>) {
      // V: tensor<16x64x64xf32> (2 rows of 28 tiles), vector.deinterleave
      // M = linalg.generic ins(%u, %v), then vector.interleave into %o
    }
    ```
  }];
  let options = [Option<"lanes", "lanes", "int64_t", /*default=*/"16",
                        "f32 lanes of one vector register: tiles per vector">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def CPUPoolingKernelsPass
    : Pass<"ms-cpu-pooling-kernels", "::mlir::func::FuncOp"> {
  let summary = "pooling (windowed reductions) one output row per vector";
  let description = [{
    Rewrites a `linalg.generic` that reduces a window of its input into
    each output element with one elementwise floating-point op (`yield
    f(out, in)`: max pooling's `maximumf`, sum pooling's `addf`), the output
    at its parallel loops in order and the input's last dim `ow * s + kw *
    d` for the output's last loop `ow` (at most 256 long), into an
    `scf.forall` over the output rows. Each iteration holds its row in one
    vector, from the output's initial values; for each window position (a
    nest of `scf.for` over the reduction loops, in order) it reads the
    input row the window position reads whole, keeps every `s`-th element
    (`vector.shuffle`) and applies the op on vectors. Each element is
    combined in the same order as by the loop nest. A second input only
    giving the window's shape (its value unused) is allowed.

    ```mlir
    // max pool 3x3 stride 2: out[n, c, oh, ow] = max(pad[n, c, 2oh+kh, 2ow+kw])
    %r = linalg.generic {... ["parallel" x4, "reduction" x2]} ins(%pad, %window) outs(%fill)
    // becomes
    %r = scf.forall (%n, %c, %oh) in (1, 64, 56) shared_outs(%o = %fill) {
      %acc = vector.transfer_read %o... : vector<56xf32>
      scf.for %kh, %kw ... { vector.transfer_read %pad...: vector<111xf32>;
                             vector.shuffle [0, 2, ..., 110]; arith.maximumf }
      ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
}

def CPUExecutableVariantsPass : Pass<"ms-cpu-executable-variants",
                                     "::mlir::ModuleOp"> {
  let summary = "copies the CPU kernels once per CPU they are compiled for";
  let description = [{
    With several CPUs in `target-cpus` (best first), each `msexec.executable`
    of target `cpu` becomes one copy per CPU, the first keeping its name
    (the plan's kernels stay where they are), the others named
    `<name>_<i>`, each with the CPU as its `variant`. The code generation
    after it reads the variant: the contraction kernels take that CPU's
    register blocks, serialization compiles for it, and each binary
    records the extensions it needs, so that the runtime loads the first
    variant the host can run. With one CPU nothing changes.

    ```mlir
    // target-cpus=x86-64-v4,x86-64-v3
    msexec.executable @cpu target("cpu") { module { ... } }
    // becomes
    msexec.executable @cpu target("cpu") variant("x86-64-v4") { module { ... } }
    msexec.executable @cpu_1 target("cpu") variant("x86-64-v3") { module { ... } }
    ```
  }];
  let options = [
    ListOption<"targetCpus", "target-cpus", "std::string",
               "CPUs to compile for, best first">,
  ];
}

def CPUExpandArithPass : Pass<"ms-cpu-expand-arith"> {
  let summary = "expands the arith ops LLVM has no instruction for, leaving "
                "min and max to LLVM";
  let description = [{
    Expands `arith.ceildivsi`, `arith.ceildivui`, `arith.floordivsi`, the
    bf16 `arith.extf` and `arith.truncf` and the scaling conversions into
    integer arithmetic, as upstream `arith-expand` does, but keeps the
    float and integer min and max ops: arith-to-llvm lowers them to LLVM's
    intrinsics (`llvm.maximum`, `llvm.smax`, ...), whose reductions LLVM's
    loop vectorizer turns into vector reductions, where `arith-expand`'s
    compares and selects (NaN checks included) stay a scalar chain. A row
    max (softmax, attention) over 128 floats ran one element per cycle or
    slower that way.

    ```mlir
    %q = arith.floordivsi %a, %b : i64   // becomes divisions and selects
    %m = arith.maximumf %x, %y : f32     // stays for arith-to-llvm
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
}

def CPULegalizeBF16MemoryPass : Pass<"ms-cpu-legalize-bf16-memory"> {
  let summary = "loads and stores of bf16 as i16 ones";
  let description = [{
    Makes each `llvm.load`, `llvm.store`, `llvm.intr.masked.load` and
    `llvm.intr.masked.store` of bf16 (a scalar or a vector) load or store
    i16 of the same bits, bitcasts around it (which LLVM folds away). Then
    no bf16 value is left for LLVM's optimizer to carry across a select or
    a phi, or to mask: the X86 backend without AVX512-BF16 promotes such a
    value to f32 and rounds it back with compiler-rt's `__truncsfbf2`,
    which the kernels' shared objects do not link (and which would round a
    NaN's payload away). The bits only move, so i16 says the same. The bf16
    values come from the bf16 pair contractions (the operands rounded to
    bf16, the Winograd input transform, the pair panels read as bf16).

    ```mlir
    llvm.intr.masked.store %v, %p, %m {alignment = 2 : i32}
        : vector<16xbf16>, vector<16xi1> into !llvm.ptr
    // becomes
    %w = llvm.bitcast %v : vector<16xbf16> to vector<16xi16>
    llvm.intr.masked.store %w, %p, %m {alignment = 2 : i32}
        : vector<16xi16>, vector<16xi1> into !llvm.ptr
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPULegalizeBoolMemoryPass : Pass<"ms-cpu-legalize-bool-memory"> {
  let summary = "loads and stores of vectors of i1 as bytes";
  let description = [{
    Makes each `llvm.load`, `llvm.store`, `llvm.intr.masked.load` and
    `llvm.intr.masked.store` of a vector of i1 load or store a vector of
    i8: compared with zero after a load, zero-extended before a store (the
    pass-through value of a masked load too). A tensor of booleans holds a
    byte per element, as scalar i1 loads and stores read and write it, but
    LLVM packs a vector of i1 in memory into bits: a `<32 x i1>` load reads
    4 bytes. Such vectors come from the contraction kernels' epilogues
    (a `where` on a boolean mask read along the columns). Scalars and the
    masks of masked accesses stay.

    ```mlir
    %m = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<32xi1>
    // becomes
    %b = llvm.load %p {alignment = 1 : i64} : !llvm.ptr -> vector<32xi8>
    %z = llvm.mlir.zero : vector<32xi8>
    %m = llvm.icmp "ne" %b, %z : vector<32xi8>
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUApproximateMathPass : Pass<"ms-cpu-approximate-math"> {
  let summary = "f32 exp, erf, log and their kin as polynomial "
                "approximations (vectorizable, no libm call)";
  let description = [{
    Rewrites f32 `math.exp`, `math.expm1`, `math.erf`, `math.erfc`,
    `math.log`, `math.log1p`, `math.log2` and `math.tanh` (scalar or vector)
    into upstream MLIR's polynomial approximations: arithmetic, selects and
    fused multiply-adds, which LLVM vectorizes in loops and keeps in vector
    registers in the contraction kernels' epilogues, where a libm call would
    run once per element. The approximations keep the special values (inf,
    NaN, zero, negative arguments of log); a subnormal argument of log or
    log2 is scaled by 2^24 first (the approximation clamps it to the
    smallest normal). Measured against float64 over the whole f32 range
    (`test/e2e/ops/approximate-math.mlir`): exp within 4.6 ulp, tanh 3.7,
    erf 2.2, log 0.7. Other types and functions are left to math-to-llvm
    and math-to-libm.

    ```mlir
    %y = math.exp %x : vector<16xf32>
    // becomes a range reduction (x = k ln2 + r), a degree-6 polynomial in r
    // (math.fma) and a scaling by 2^k built from k's bits
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def CPUReassociateReductionsPass : Pass<"ms-cpu-reassociate-reductions"> {
  let summary = "lets LLVM reorder float sums and products of reductions, "
                "so that it vectorizes them";
  let description = [{
    Marks the combiner of each float reduction in a `linalg.generic` (the
    `arith.addf` or `arith.mulf` of the body that takes the output's running
    value and is yielded) `reassoc`. A reduction over the innermost loop
    (a layer norm's mean and variance, softmax's sum) is otherwise a chain
    of dependent scalar adds, one per element at the add's latency: LLVM
    vectorizes it only when it may reorder the sum. Reordered, a sum of
    n terms differs from the sequential one by rounding (within n ulp of
    the exact sum either way, usually far less); ONNX Runtime's and the
    BLAS kernels' reductions are reordered the same way. Max and min need
    no flag: they are exact in any order.

    ```mlir
    linalg.generic {iterator_types = ["parallel", "reduction"]} ... {
    ^bb0(%in: f32, %acc: f32):
      %s = arith.addf %acc, %in : f32
      linalg.yield %s : f32
    }
    // becomes
      %s = arith.addf %acc, %in fastmath<reassoc> : f32
    ```
  }];
}

#endif // MS_TARGET_CPU_PASSES_TD
