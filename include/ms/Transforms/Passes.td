//===- Passes.td - ms program-level passes -----------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TRANSFORMS_PASSES_TD
#define MS_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlineKernelsPass : Pass<"ms-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "outlines each msgraph op of the entry function into a kernel";
  let description = [{
    The O0 partitioning: every msgraph op of the entry function other than a
    constant moves into its own function `kernel_<N>` (in program order,
    tagged `ms.kernel`) and is replaced by a `func.call`. What remains in the
    entry function (constants, calls, casts and the return) is the host
    program from which the execution plan is built. An op whose results have
    no elements becomes empty constants instead of a kernel.

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = msgraph.exp %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    // becomes
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = call @kernel_0(%x) : (tensor<4xf32>) -> tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    func.func @kernel_0(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel} {
      %0 = msgraph.exp %arg0 : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: @main, or the only public function)">
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def DeduplicateKernelsPass : Pass<"ms-deduplicate-kernels",
                                  "::mlir::ModuleOp"> {
  let summary = "keeps one of each set of identical kernels";
  let description = [{
    Runs after `ms-outline-kernels`. Kernels (`ms.kernel` functions) with
    the same type, the same attributes but their name, and equivalent
    bodies (the same ops with the same attributes and types, using values
    the same way; locations ignored) are one kernel: the first in the module
    stays, the calls of the others call it, and the others are erased. The
    layers of a deep model (the same structure, their weights arguments)
    then compile once: code generation runs once per distinct kernel, and
    the module holds one copy of its code, launched once per layer.

    ```mlir
    %0 = call @fused_0_matmul_add(%x, %w0, %b0) : ...
    %1 = call @fused_1_matmul_add(%0, %w1, %b1) : ...   // same body
    // becomes
    %0 = call @fused_0_matmul_add(%x, %w0, %b0) : ...
    %1 = call @fused_0_matmul_add(%0, %w1, %b1) : ...
    ```
  }];
}

def RefineEntrySignaturePass : Pass<"ms-refine-entry-signature",
                                    "::mlir::ModuleOp"> {
  let summary = "gives the entry function the result types its body proves";
  let description = [{
    Shape inference keeps a function's declared (possibly dynamic) result
    types by casting the refined values back with `tensor.cast`. The
    compiled model's signature is the refined one: this pass drops such
    casts at the return of the entry function and sets its type to the
    returned values' types.

    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
      %0 = msgraph.exp %x : tensor<4xf32>
      %1 = tensor.cast %0 : tensor<4xf32> to tensor<?xf32>
      return %1 : tensor<?xf32>
    }
    // becomes
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = msgraph.exp %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: @main, or the only public function)">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def LowerMemRefCopiesPass : Pass<"ms-lower-memref-copies"> {
  let summary = "rewrites memref.copy as linalg.copy, or as linalg.fill "
                "from a buffer of one value";
  let description = [{
    `memref.copy` between non-contiguous (strided) memrefs lowers to a call
    of `memrefCopy` from MLIR's C runner utilities, a library the runtime
    does not ship. As `linalg.copy` the copy becomes loops like every other
    kernel.

    ```mlir
    memref.copy %a, %b : memref<4xf32, strided<[2]>> to memref<4xf32>
    // becomes
    linalg.copy ins(%a : memref<4xf32, strided<[2]>>) outs(%b : memref<4xf32>)
    ```

    A copy from a buffer that holds one value is a fill of the target with
    it: the buffer a `memref.alloc` that one `linalg.fill` writes whole,
    the fill dominating the copy, its other users copies from it and
    deallocations (bufferization copies a zero tile filled once before a
    loop into a fresh tile at every iteration: attention's scores). Once
    nothing copies from it, the buffer, its fill and deallocations go.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def InterchangeReductionsPass : Pass<"ms-interchange-reductions"> {
  let summary = "moves reduction loops outside the innermost parallel loop";
  let description = [{
    A contraction written as (parallel..., reduction...) loops, such as
    `linalg.matmul` (m, n, k), reads its right operand with a stride in the
    innermost loop. Reordered to (parallel..., reduction..., last parallel),
    e.g. (m, k, n), the innermost loop walks the output row and the right
    operand's row contiguously, which LLVM vectorizes. Named contractions
    are generalized first. Each output element still sums its terms in the
    same order, so results do not change.

    ```mlir
    linalg.matmul ins(%a, %b : memref<64x128xf32>, memref<128x256xf32>)
                  outs(%c : memref<64x256xf32>)
    // becomes a linalg.generic with iterator_types
    // ["parallel", "reduction", "parallel"]
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def SerializeNestedParallelPass : Pass<"ms-serialize-nested-parallel"> {
  let summary = "turns scf.parallel loops nested in another, or too small to "
                "share, into scf.for";
  let description = [{
    Only the outermost parallel loop becomes an OpenMP parallel region; an
    inner one would fork threads once per outer iteration. Inner
    `scf.parallel` loops without reductions become nests of `scf.for` in
    the same order. With `min-parallel-work` N > 0, an outermost loop whose
    nest runs its innermost body fewer than N times (all trip counts
    static) is serialized too: forking and joining threads costs more than
    such a loop (tiny kernels, the per-call overhead of small models).
    With `min-parallel-iterations` N > 0, an outermost loop over several
    dims keeps as parallel only its leading dims whose trip counts multiply
    to at least N (all static); the others become an `scf.for` nest inside
    it: OpenMP would otherwise run one flattened loop whose every iteration
    recomputes each index by division, and whose innermost loop no longer
    vectorizes.

    ```mlir
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      scf.parallel (%j) = (%c0) to (%c8) step (%c1) { ... }
    }
    // becomes
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      scf.for %j = %c0 to %c8 step %c1 { ... }
    }
    ```
  }];
  let options = [
    Option<"minParallelWork", "min-parallel-work", "int64_t",
           /*default=*/"0",
           "Serialize outermost parallel loops whose nest runs fewer "
           "innermost iterations than this (0: never)">,
    Option<"minParallelIterations", "min-parallel-iterations", "int64_t",
           /*default=*/"0",
           "Keep parallel only the leading dims of an outermost loop that "
           "give this many iterations; the rest run as scf.for (0: all "
           "dims stay parallel)">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def FuseKernelOpsPass : Pass<"ms-fuse-kernel-ops", "::mlir::func::FuncOp"> {
  let summary = "fuses the linalg ops of a fused kernel into as few loop "
                "nests as possible";
  let description = [{
    Runs on kernels outlined from an `msfusion.group` (those with the
    `msfusion.ops` attribute; in others only a transpose of a kernel
    argument folds into its user) after conversion to linalg. An
    all-parallel producer fuses into the linalg.generic that consumes it
    when that consumer is its only user and reads each of its elements
    once: an elementwise chain becomes one loop nest, and a reduction
    absorbs the elementwise ops that feed it, while a row's statistic read
    by every element of the row keeps its own loop. A transpose or
    broadcast of a kernel argument fuses into its only user however often
    that reads each element (it becomes the user's indexing of the
    argument: a weight the target laid out at compile time, read by a
    convolution).
    Transposes and broadcasts are generalized first so they fold into the
    indexing; fills and splat constants fold into the ops that use them;
    reshapes move out of the way (fusion by expansion), except reshapes
    that only insert or remove unit dims (a kept reduction axis), which
    their readers read through (the unit dims dropped from or added to the
    indexing map). Each result element is computed by the same scalar
    operations in the same order as without fusion.

    ```mlir
    %1 = linalg.generic {...} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) { math.tanh }
    %2 = linalg.generic {...} ins(%1, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) { arith.mulf }
    // becomes
    %2 = linalg.generic {...} ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) { math.tanh; arith.mulf }
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def TileFusedKernelsPass : Pass<"ms-tile-fused-kernels",
                                 "::mlir::func::FuncOp"> {
  let summary = "tiles a fused kernel's result and fuses its producers into "
                "the tile loop";
  let description = [{
    Runs on kernels outlined from an `msfusion.group` (with `msfusion.ops`)
    after `ms-fuse-kernel-ops`. The linalg op computing the kernel's one
    result is tiled along its leading loops, into an `scf.forall` whose
    iterations run in parallel, and every linalg producer inside the kernel
    is fused into the loop (`scf::tileConsumerAndFuseProducersUsingSCF`):
    each iteration computes its rows through the whole group, so the
    group's intermediates live in per-tile buffers that stay in cache
    instead of full-size temporaries. A loop of the result is tiled only
    if, followed through the indexing maps into every producer, it is one
    parallel loop of each op, the same on every path (rows of a row-wise
    reduction or of a matmul, heads of a transposed projection, columns of
    a column sum); reduction loops are never tiled, so each result element
    is computed as without tiling. The innermost loop stays whole. Tiles
    hold about `tile-elements` elements of the result; the tile sizes
    divide the loop extents. Kernels with other tensor ops between their
    linalg ops are left as they are. The target sets the budget. With
    `row-reductions-only` (the cuda target, whose tiles are blocks), only
    kernels that reduce, and only along rows, are tiled: some op has
    reduction loops, and every such op has them innermost and read by one
    input alone, as its trailing dimensions in order; the result's op has
    none (softmax, norms; not a matrix product, not a sum down columns,
    not a kernel ending in its reduction, not an elementwise kernel).
    Tiles larger than the budget (whole rows longer than it) are made only
    where there are at least `min-tiles` of them.

    ```mlir
    %r = linalg.generic ... ins(%t : tensor<64x4096xf32>) ...   // uses %t = exp(x)
    // becomes
    %r = scf.forall (%i) = (0) to (64) step (4) shared_outs(%o = %init) -> (tensor<64x4096xf32>) {
      // exp and the consumer on rows [%i, %i + 4)
    }
    ```
  }];
  let options = [
    Option<"tileElements", "tile-elements", "int64_t", /*default=*/"16384",
           "Elements of the result per tile (the target's budget)">,
    Option<"rowReductionsOnly", "row-reductions-only", "bool",
           /*default=*/"false",
           "Tile only kernels with reductions, all along rows">,
    Option<"minTiles", "min-tiles", "int64_t", /*default=*/"2",
           "The fewest tiles for tiles larger than the budget">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // MS_TRANSFORMS_PASSES_TD
