//===- Passes.td - NPU target passes -----------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_NPU_PASSES_TD
#define MS_TARGET_NPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def NPUPackWeightsPass : Pass<"ms-npu-pack-weights", "::mlir::ModuleOp"> {
  let summary = "stores constant matmul weights in the type the cube "
                "multiplies";
  let description = [{
    Runs on outlined kernels and their callers. When the cube multiplies
    fp16 or bf16 (`precision`) and every call of a kernel passes a constant
    for an f32 operand of an `msgraph.matmul` (its only use), the constant
    is stored in that type at compile time (`#msgraph.relayout`, rounded to
    nearest, ties to even, as MTE2 rounds: the results are the same bit for
    bit) and the kernel widens its argument back with `msgraph.cast`, which
    `ms-npu-lower-kernels` folds into the contraction's loads: MTE2 reads
    half the bytes. A weight in an external-data file stays in the file,
    rounded as the module loads. With precision f32 nothing changes.
  }];
  let options = [Option<"precision", "precision", "std::string",
                        /*default=*/"\"f16\"",
                        "the type the cube multiplies: f16, bf16 or f32">,
  ];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

def NPULowerKernelsPass : Pass<"ms-npu-lower-kernels", "::mlir::ModuleOp"> {
  let summary = "lowers bufferized kernels to msnpu programs";
  let description = [{
    Runs on the module of an `msexec.executable` with target `npu`, once its
    kernels are bufferized and their linalg ops generalized. Each top-level
    linalg op of a kernel becomes one step (steps are separated by
    `msnpu.core_barrier`) whose tiles are split over the cores:

    - a contraction (one M, N and K dimension, at most one batch
      dimension) runs on the cube: tiles of A and B are loaded by MTE2 into
      L1 as fractals of the `precision` type (16x16 of f16 or bf16, 16x8
      and 8x16 of f32; converting on the way), moved by MTE1
      into L0A / L0B, multiplied by `msnpu.mmad` into L0C over K steps, and
      stored by the fixpipe; L1, L0 and L0C buffers are double-buffered;
      when the timing model says so, a tile's rows of A stay in L1 for all
      of K while the tiles of those rows run (loaded once per run);
    - an elementwise op right after a contraction that reads its result
      at the element it writes (the result written in place, or a scratch
      buffer nothing else reads) is its epilogue, fused into its step: the
      fixpipe moves each chunk of rows of a result tile from L0C to UB, the
      vector unit runs the op on it, and MTE3 stores the op's result (the
      contraction's result never goes to GM);
    - a convolution (a windowed input times a weight; grouped ones with at
      least two output channels per group) runs on the cube as two steps:
      its input's windows copied to a GM scratch buffer (im2col), then the
      weight times that buffer as a contraction (one per group);
    - an elementwise op, or a reduction of the innermost dimension, runs on
      the vector unit over 2-d tiles in UB (MTE2 in, MTE3 out,
      double-buffered), one vector instruction per op of its body (an op
      of row or column vectors only on a tile of one column or row);
    - a run of row-local ops (fills, elementwise ops and reductions of the
      last dimension over the same rows, with at least one reduction: a
      softmax, a norm), their buffers matrices `[rows..., C]`, row vectors
      `[rows...]` or read-only column vectors `[C]`, runs as one step over
      tiles of whole rows in UB: each tile loaded once, every op run on
      the UB tiles in turn, only the buffers read after the run stored;
      when it cannot (a view, an i1 buffer, a buffer loaded and stored,
      rows too long for UB) its ops run one step each;
    - a `linalg.fill` that initializes a contraction or a reduction with
      its identity is folded into it.

    Flags are generated from the schedule's producer / consumer pairs of
    each double-buffered buffer (a "full" flag from the producing pipe, an
    "empty" flag back), primed before the first tile and drained after the
    last. The tile sizes are chosen with the machine model of the
    `msnpu.config` attribute set on the module (docs/NPU.md). What the pass
    cannot lower is an error on the op.
  }];
  let options =
      [Option<"precision", "precision", "std::string", /*default=*/"\"f16\"",
              "the type the cube multiplies: f16, bf16 or f32 (sums in f32)">,
  ];
  let dependentDialects = ["::mlir::ms::npu::NpuDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // MS_TARGET_NPU_PASSES_TD
