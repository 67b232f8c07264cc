//===- Passes.td - CUDA target passes ----------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CUDA_PASSES_TD
#define MS_TARGET_CUDA_PASSES_TD

include "mlir/Pass/PassBase.td"

def CUDAMapToGPUPass : Pass<"ms-cuda-map-to-gpu", "::mlir::ModuleOp"> {
  let summary = "runs bufferized kernels' loop nests as GPU kernels";
  let description = [{
    Runs on the module of an `msexec.executable` with target `cuda`, once
    its kernels are bufferized and their linalg ops are loops. Each kernel
    function's body becomes a sequence of `gpu.launch_func`s of functions
    in one `gpu.module @ms_cuda` (the module becomes a
    `gpu.container_module`):

    - a top-level `scf.parallel` (static bounds) is one launch: its
      iterations are linearized, 256 per block, one per thread (the
      innermost loop dimension on adjacent threads, so that neighbouring
      threads touch neighbouring elements), with a bounds check. Where the
      body allows it, a thread takes W adjacent iterations of the innermost
      dimension at once: W a power of two with at most 16 bytes a tensor
      (4 f32, 8 f16) dividing that dimension's trip count and lower bound
      (unit step); every load and store indexing the unit-stride last
      dimension of its memref with that induction variable (the others
      invariant across the W, the memref's static offset and other strides
      multiples of W, not a `memref.view`, a global aligned to W elements),
      other loads invariant, the rest
      elementwise-mappable ops without effects on integers, indices and
      floats. Those accesses become `vector.load`/`vector.store` of W
      elements with their alignment (W times the element size: 128-bit
      accesses once lowered), ops on their values the same ops on vectors,
      invariant operands `vector.broadcast`, the induction variable taken
      as a value the W indices (`first + [0, W)`); the runtime keeps
      tensors 16-byte aligned on the cuda device;
    - a reduction shared by the threads of blocks: a nest of `scf.for`s
      (perfectly nested, static bounds, at least 32 iterations in all)
      whose writes are all accumulators (`store(combine(load(acc[idx]),
      x), acc[idx])`, `idx` invariant in the nest, f32 or i32, combined by
      add, mul, min, max, and, or or xor) and whose other ops only read
      what it does not write; at the top of the kernel (a whole-tensor
      reduction), or the last op of a top-level `scf.parallel` (static
      bounds, the ops before it side-effect-free) when its reads run along
      the rows (they index their trailing dimensions with the nest's
      induction variables in order, or are invariant) or the loop has
      fewer than 264 iterations (rows). Each row's iterations, linearized,
      are taken by a block's threads in turn (a power of two from 32 to
      256), each combining its part from the identity, then
      `gpu.all_reduce` (warp shuffles and shared memory once lowered)
      gives the block's total, which thread 0 combines into the
      accumulator. A long reduction of few rows is split into chunks of one
      length, about 4096 iterations or more, about 528 blocks in all (4
      per SM of an H100): thread 0 of each chunk's block stores its total in a scratch
      buffer (a top-level `memref.alloc`), and a second launch of a block
      per row combines the chunks' totals into the accumulator. Rows read
      across (not along them), at least 264 of them, keep a thread each,
      unless their blocks are fewer than 264 and their nests long: each
      row is then split into chunks of about 64 iterations or more, a thread
      per chunk of a row (the rows of a chunk on adjacent threads), about
      528 blocks in all, whose totals a second launch of a thread per row
      combines into the accumulator (the sums of a few hundred columns).
      The second launch recomputes only where the accumulators are, so a
      reduction whose accumulators' places are read from memory is not
      split.
      All are written as `gpu.launch`s and then outlined like any other.
      Sums thus add in another order than on the CPU. A matmul of many
      outputs (reads down a column) keeps one thread per output;
    - a top-level `scf.forall` (a tiled loop: fused attention is tiled by
      batch and head) with static bounds, static allocations and parallel
      loops inside is one launch of a block per tile: its allocations are
      slices (`memref.view`) of a workgroup buffer, the block's shared
      memory, where they take at most 48 KiB (with 32 values for each
      block reduction's `gpu.all_reduce`) and only views, loads, stores
      and deallocations reach them (their types and their views' take the
      workgroup memory space), else of one global scratch buffer at the
      block's offset; each inner parallel loop's iterations are taken by
      the block's threads in turn (a power of two from 32 to 256, for the
      widest loop),
      a sequential loop holding parallel loops (flash attention's loop over
      key blocks) runs on every thread with its steps mapped the same way,
      any other op with effects runs on thread 0, and `gpu.barrier` follows
      each such step (and precedes one that follows reads). In a parallel
      loop's `scf.for`, a place of the tile's own allocation that the loop
      loads and then stores once an iteration, at indices invariant in it,
      and touches nowhere else (a product's term loop, a row's max or sum)
      is carried in a register (`iter_args`: loaded before the loop, stored
      after it) instead of being stored at every iteration; one in a kernel
      argument stays in memory, since another argument may be the same
      buffer. A parallel loop whose iterations (rows) each reduce with an
      `scf.for` carrying values (ops before it only read, its body only
      reads, ops after it anything) runs two ways. With at most half as
      many rows as threads, constant bounds (the lower one not negative)
      and each carried value combined once an iteration (add, mul, min,
      max, ... as above, f32 or i32), a row is split over L adjacent
      threads (threads / rows rounded down to a power of two, at most 32,
      at most the row's terms; at least 2): each takes every
      L-th term from the identity, `gpu.shuffle xor` combines the parts
      within the L, then the row's initial value joins, and the row's first
      thread runs the ops after the loop; threads past the rows redo the
      last row (they must join the shuffles) and keep nothing. With J = 2
      to 16 iterations a thread (the trip count a multiple of the threads)
      and loop bounds the iterations share, a thread runs its J iterations
      at once: their ops before the loop, one loop carrying all J sets of
      values, their ops after it; an iteration's indices are the thread's
      first's where its shift (a multiple of the threads) is a whole
      number of a dimension's period, so that the iterations' loads of a
      common operand (a product's column, read by J rows) are one after
      CSE. A sequential loop directly in the tile (the tile is one row)
      whose only writes are such sums into the tile's own allocations
      (`store(combine(load(acc[idx]), x), acc[idx])`, `idx` invariant) is
      carried in registers the same way and shared by the whole block: each
      thread takes every threads-th term from the identity,
      `gpu.all_reduce` (uniform) gives every thread the total, which the
      loop's initial value joins; the stores after it run on thread 0;
    - a top-level `gpu.launch` (`ms-cuda-tile-matmul`'s products; x-only
      constant grid and block, synchronous, one block) is one launch as
      written: its workgroup buffers become the function's, 128-byte
      aligned (tiles are read in pairs and vectors, and TMA loads boxes
      into them); a TMA tensor map it uses (`nvgpu.tma.create.descriptor`,
      which stays on the host) is a parameter, the function's an
      `!llvm.ptr` (cast back with `builtin.unrealized_conversion_cast`, as
      the NVGPU-to-NVVM lowering takes it) and the launch's the map cast
      the same way;
    - a run of other top-level ops with effects (sequential loops, stores)
      is one launch of one thread;
    - side-effect-free ops (constants, index arithmetic, views such as
      `memref.subview`) are cloned into each launch that uses them, so that
      every kernel parameter is a memref of the function (an argument), a
      top-level `memref.alloc` (scratch the runtime allocates per call) or
      a tensor map.

    The GPU functions are named `<kernel>_<i>`. What the pass cannot map is
    an error on the op: a loop with dynamic bounds, a parallel loop with
    reductions, an allocation inside a loop, a value produced by one launch
    and used by another other than through memory.

    ```mlir
    func.func @kernel_0(%a: memref<1000xf32>, %b: memref<1000xf32>) {
      scf.parallel (%i) = (%c0) to (%c1000) step (%c1) { ... }
      return
    }
    // becomes
    func.func @kernel_0(%a: memref<1000xf32>, %b: memref<1000xf32>) {
      gpu.launch_func @ms_cuda::@kernel_0_0 blocks in (%c4, %c1, %c1)
          threads in (%c256, %c1, %c1) args(%a : ..., %b : ...)
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def CUDAEmitGraphsPass : Pass<"ms-cuda-emit-graphs", "::mlir::ModuleOp"> {
  let summary = "names the offloaded graphs (O2) of cuda executables";
  let description = [{
    Runs on the top-level module once the plan is placed
    (`msexec-plan-memory`, `msexec-offload-graph`). Each `msexec.offload`
    region whose launches are all of `msexec.executable`s with target
    `cuda` gets the entry `ms_graph_<i>`, numbered in plan order. The
    target's serialization writes each such region into the `cuda-ptx`
    section as a CUDA graph: its launches and copies in order, every buffer
    as an argument of the graph step and a constant byte offset (the
    weights section and the arena are arguments 0 and 1, then the caller's
    buffers). The runtime captures the graph once per set of argument
    addresses and replays it.

    Errors: a region that launches another target's kernels, and a buffer
    that is not placed (no offset in the weights or the arena).

    ```mlir
    msexec.offload {
      msexec.launch @cuda::@kernel_0(%x, %t) : ...
      msexec.launch @cuda::@kernel_1(%t, %y) : ...
    }
    // becomes
    msexec.offload attributes {entry = "ms_graph_0"} { ... }
    ```
  }];
}

def CUDATileMatmulPass : Pass<"ms-cuda-tile-matmul", "::mlir::ModuleOp"> {
  let summary = "runs matrix products as shared-memory tiled launches (on "
                "tensor cores for f16/bf16 operands or with --precision "
                "tf32, bf16 or f16)";
  let description = [{
    Runs on the module of an `msexec.executable` with target `cuda`, once
    its kernels are bufferized. Each top-level linalg op of a kernel that
    computes `out += lhs * rhs` in f32 over one reduction loop, with static
    shapes, projected-permutation maps, the output's last two dimensions an
    M dimension of `lhs` and an N dimension of `rhs`, M and N at least 16
    and K at least 8 (`linalg.matmul`, `linalg.batch_matmul`, a broadcast
    batch product as a generic) becomes one `gpu.launch` of 256 threads per
    block (two launches when K is split, below):

    - a block per tile of the output (128 x 128 when that gives at least
      264 blocks, two per multiprocessor of an H100; else 64 x 64) and per
      index of the output's other (batch) dimensions;
    - each step of K (8 for large tiles, 16 for small) the block's threads
      copy the tile's rows of `lhs` and columns of `rhs` into shared memory
      (`[k][row]`, rows padded by 16 bytes), numbering elements along each
      operand's innermost dimension so that neighbouring threads read
      neighbouring addresses, 4 at a time (one 128-bit `vector.load`) where
      that dimension's extent, the operand's offset and strides allow
      (`getAlignedVectorWidth`, as `ms-cuda-map-to-gpu`'s elementwise
      accesses; else 2 or 1); elements past the end read as zero; thread
      `(ty, tx)` of the 16 x 16 grid accumulates rows `4 ty + 64 g + [0, 4)`
      and columns `4 tx + 64 g + [0, 4)` of the tile in registers, reading
      each group of 4 from the shared tiles as one 128-bit load; the launch
      asks for two blocks resident per multiprocessor
      (`ms.min_blocks_per_sm`, ptxas's `.minnctapersm`: at most 128
      registers a thread);
    - the shared tiles have two stages: the first step is staged before
      the loop over K; each step then loads the next step's elements into
      registers, computes from its own stage, stores them into the other
      stage and waits at one barrier, so that the global loads are in
      flight while the block computes (the last step reloads itself into
      the stage nothing reads again);
    - at the end each thread adds its sums to its outputs (bounds-checked
      when the tile overruns the matrix). A `linalg.fill` of the output
      just before the product is folded in: its value is added instead of
      reading the output;
    - a product of fewer than 264 small tiles (a linear layer of few rows
      and columns, such as BERT-base's output and FFN down projections at
      1,024 tokens: 192 tiles) splits K into parts of whole steps, as many
      as keep the blocks at most 528 (four per multiprocessor, all resident
      at once) but at most K / 256 (the last part may be shorter) and at
      most 16: a block per tile and
      part stores its sums in a scratch buffer (`[part][batch][row]
      [column]`, a `memref.alloc` of the kernel), and a second launch, a
      thread per output (or group of adjacent outputs, below), adds the
      parts up in order (the result does not
      depend on which block finished first), then the fill's value or the
      output's contents, then the epilogue below.

    Each thread sums its outputs' terms in order of K from zero (multiplies
    and adds may contract to fused multiply-adds; with K split, each part
    from zero, then the parts in order), then adds the fill value
    or the output's contents: where those are not zero, rounding may differ
    from the CPU's `((c + t0) + t1) + ...`. Every loop of the op must be one
    of the output's or K (an op with a second reduction, with a loop only an
    operand indexes, or with K in the output is left alone), and an empty
    batch is left to the loops, which run nothing. Smaller products
    (a matrix-vector product) and other element types (but half
    precision widened just before, below) are left to
    `ms-cuda-map-to-gpu`'s thread per output; `ms-cuda-map-to-gpu` outlines
    the launches as they are.

    The elementwise ops right after the product (an O1 group's bias,
    activation, residual add, cast) run in its launch, on each output as it
    is stored, instead of reading it back: linalg generics over the output's
    shape with parallel loops only, each writing one buffer through the
    identity, bodies free of memory effects (constants from outside copied
    in, `linalg.index` read as the output's indices); a buffer the product or an earlier such op wrote is read through
    the identity (the value in registers), other buffers anywhere, but none
    of them is written by these ops, nor is a buffer the product reads. Each
    buffer written is stored once, with its last value; one the kernel
    allocated that nothing else uses is not stored at all. A thread
    finishes its adjacent columns (a SIMT group of 4, a tensor-core
    fragment's pair) as one vector, loaded and stored as one access, where
    the columns' extent is a multiple of it, every buffer written or read
    along the columns allows aligned vectors (`getAlignedVectorWidth`) and
    the ops on them are elementwise-mappable (the column's index read as
    the group's indices, a vector); else one output at a time. With K
    split, the parts' sums are stored and combined (a thread per group) in
    the same groups. With a tf32,
    bf16 or f16 precision, products left to `ms-cuda-map-to-gpu` (matrix products
    and convolutions; not a sum of squares) multiply operands rounded the
    same way.

    With `precision=tf32`, `bf16` or `f16` (`--precision`), the products
    multiply
    on tensor cores instead (`mma.sync.m16n8k16`, `m16n8k8` for TF32, f32
    accumulators, sm_80 and later): tiles of 128 x 128 (or 64 x 64) and 64
    bytes of K a step (32 halves, 16 TF32 words), double-buffered as above,
    `lhs` and `rhs` rounded to the precision's type as they are staged into
    shared memory (TF32 as the bits of the f32 rounded to nearest, ties
    away, as `cvt.rna.tf32.f32`): `lhs` as `[row][k]`, `rhs` as
    `[column][k]`, or for halves as `[k][column]` when K is not its
    innermost dimension (a linear layer's `[K][N]` weights), so that a
    thread's group of elements is stored as one vector (a tensor-core
    tile takes groups only along its rows); rows padded by 16 bytes so
    that the lanes of a warp read distinct banks. The 8 warps of a block are a 2 x 4 grid, each owning a
    64 x 32 (or 32 x 16) piece of the tile as 16 x 8 accumulator fragments
    that each `mma.sync` (an `nvvm.mma.sync`) updates by 16 (TF32: 8) of
    K; operand fragments come from shared memory by `nvgpu.ldmatrix` (four
    8 x 8 matrices of 16-bit elements a load, 8 x 4 for TF32 words: one
    fragment of A, or two of B; the lanes give the rows' addresses;
    `[k][column]` tiles are read transposed); the fragments' elements are
    added to the outputs as in f32.

    Half-precision products run on tensor cores without `precision`: an
    operand that a generic just before widened from f16 or bf16 to a
    buffer of the kernel (`extf` over its shape, through the identity or a
    transpose; the msgraph lowering of an f16 or bf16 matmul) that nothing
    else reads, with nothing between writing the halves, is read as the
    halves themselves, and when both operands are of one half type the
    products multiply in it (a product of two halves is exact in f32, so
    only the sums differ from the widened product's: their order, and the
    tensor cores' adds within an mma.sync); the widenings and their
    buffers go (a dealloc of the halves between the widening and the
    product moves after the product). With a precision, an operand widened
    from that precision's type is read the same way; other operands stay
    as they are.

    Halves read as they are, 16 bytes to a group and contiguous in their
    tile (K innermost for `[row][k]`, the rows' dimension for
    `[k][column]`, extents divisible by 8), are copied to shared memory by
    `cp.async` (`nvgpu.device_async_copy`, bypassing L1; a group past the
    matrix's end copies no bytes and is zero-filled), committed as one
    group a step (`nvvm.cp.async.commit.group`), not through registers.
    When both operands are, the tiles take as many stages as fit 80 KiB,
    at most 4 (a 64 x 64 tile: 4 stages, 38,912 bytes; 128 x 128: 4
    stages, 75,776 bytes; wgmma below): the first stages - 1 steps' copies start before
    the loop, and step s waits until at most stages - 2 groups are in
    flight (`nvvm.cp.async.wait.group`), waits for the block, starts step
    s + stages - 1 into the stage step s - 1 read, then computes: one
    barrier a step. Steps past the part's last copy no bytes (their stages
    zero-filled; nothing reads them). Tiles over 48 KiB are in dynamic shared memory (the
    launch's `dynamic_shared_memory_size`, `memref.view`s of
    `gpu.dynamic_shared_memory`; the runtime opts the kernel in). With one
    operand copied so, the other goes through registers as above and each
    step waits for its own copies before its barrier.

    With `arch=sm_90a` (`--cuda-arch`, the default there), a product of
    halves whose operands both go by cp.async runs on Hopper's warpgroup
    products instead of mma.sync: the block's 256 threads are two
    warpgroups, each owning a 64-row piece of the tile (128 x 128: 64 x
    128 each; 64 x 64: 64 x 32 each), updated by
    `wgmma.mma_async.m64n{128,32}k16` (`nvvm.wgmma.mma_async`, f32 sums)
    straight from shared memory. The shared tiles are then
    `[stage][w / 8][k / 8]` core matrices of 8 x 8 halves, 128 contiguous
    bytes each, unpadded (rows of 8 terms where K is the operand's
    innermost dimension, else rows of 8 columns, which wgmma reads
    transposed), 8 neighbouring threads copying the 8 rows of a core matrix
    (distinct banks): 16,384 bytes a stage of a 128 x 128 tile, 8,192 of
    a 64 x 64 one, up to 5 stages (81,920 bytes of dynamic shared memory;
    40,960 static). Each
    step orders its landed copies before wgmma's reads
    (`nvvm.fence.proxy` async.shared, before the barrier), then each
    warpgroup runs `wgmma.fence`, one product per 16 terms from
    descriptors (the piece's shared address / 16; 128 bytes between core
    matrices along K at bit 16, a step's 32 terms' 512 bytes along the
    rows at bit 32; unswizzled) and commits them; they run on while the
    next step waits for its copies and the block, and end by its end
    (`wgmma.wait_group 1`), so the copies run stages - 2 steps ahead (the
    stage copied into at step s was read by step s - 2; hence a stage
    more than mma.sync's), and the last step's end after the loop. Warp q of
    a warpgroup holds mma.sync's accumulator fragments of rows 16 q to
    16 q + 15 of its piece, whose elements are added to the outputs as
    above.

    On wgmma, operands whose layout a TMA tensor map can describe (with
    `tma`, the default) are loaded by the Tensor Memory Accelerator
    instead of cp.async: static strides, the innermost unit, the others
    and the offset multiples of 16 bytes, the tile's rows or columns one
    dimension or several contiguous ones (collapsed by
    `memref.collapse_shape`), the memref a view of a kernel argument or
    buffer, at most 5 dimensions. Before the launch the host makes a
    tensor map of each operand (`nvgpu.tma.create.descriptor` of the view
    cast unranked, zeros past the end, rows swizzled), which the launch
    takes as a parameter; the runtime encodes it for the run's buffers
    (docs/ModuleFormat.md). A box's rows are `span` elements of the
    operand's innermost dimension, swizzled by rows of their bytes (32, 64
    or 128; `swizzle_64b` for the step's 32 halves). An operand whose
    innermost dimension is K is then `[stage][k / span][w][span]` in
    shared memory (span: the step's terms), a box of the step's terms of
    the tile's w rows a load; its descriptors are K-major swizzled (layout
    type at bit 62, 8 rows' bytes apart at bit 32, 16 at bit 16, 2 bytes a
    term on from the start). One whose innermost dimension is its columns
    is `[stage][w / span][k][span]` (span: up to 128 bytes of columns, but
    no more than a warpgroup's, so that each warpgroup's columns start a
    box), a box of span columns of the step's terms a load; its
    descriptors are MN-major swizzled (a box's bytes apart at bit 16, 8
    terms' rows at bit 32). The tiles are then dynamic shared memory
    with 1,008 bytes more than they take: the block starts its tiles at
    the array's first address that is a multiple of 1,024 (a box starts
    the swizzle's pattern of 8 rows, as the descriptors' base offset of 0
    assumes; the driver guarantees the array only 16 bytes once the
    static barriers come first). The pipeline then runs on
    mbarriers, two per stage (`nvgpu.mbarrier.create`/`init` by thread 0,
    `nvvm.fence.mbarrier.init`, then the block's one barrier): `loaded`
    (one arrival) and `released` (one per warp). Thread 0 starts a step's
    loads: it waits until every warp has released the stage's previous
    use (`nvgpu.mbarrier.try_wait.parity`; a stage's first use waits on
    the phase before the first, which counts as complete), arrives at
    `loaded` expecting the step's bytes
    (`nvgpu.mbarrier.arrive.expect_tx`) and issues the loads
    (`nvgpu.tma.async.load`), which complete them. Step s waits for its
    stage's `loaded` phase (parity s / stages mod 2) instead of its copies
    and the block: no barrier of the block's, and no proxy fence (TMA
    writes through the async proxy that wgmma reads through); thread 0
    then starts step s + stages - 2 (the stage step s - 2 read); after its
    products, whose `wgmma.wait_group 1` ended step s - 1's, lane 0 of
    each warp releases the stage of step s - 1 (an arrival expecting no
    bytes, `nvgpu.mbarrier.arrive.expect_tx` of 0 predicated on the lane,
    rather than an arrival under a branch: ptxas serialized the wgmmas of
    a loop with a branch there, C7520).
    Steps past the part's last start no loads.

    With `producer-warp` (the default) the loads are warp-specialized, as
    in CUTLASS's and DeepGEMM's sm90 kernels, but by one warp where they
    give a whole producer warpgroup, and with no register reallocation
    (`setmaxnreg`, which needs whole warpgroups): the block has a ninth
    warp (288 threads) after the two warpgroups. Once the barriers are
    initialized the block splits (`scf.if` on the thread id): its 256
    threads only wait for each step's `loaded` phase, multiply, release
    and add their sums to the outputs; thread 256 runs every step of the
    part, waiting for the stage's previous use to be released, then
    arriving at `loaded` and issuing the loads, so the loads run up to
    `stages` - 1 steps ahead of the products (`stages` - 2 without it)
    whatever either warpgroup is doing, and no product thread waits for
    the slower warpgroup's releases. The other lanes of the ninth warp run
    nothing; no warp of it runs wgmma (whose warps make whole
    warpgroups). Without it, thread 0 issues the loads between its
    products as described above.

    With `wide-tiles` (off by default until measured on a GPU), products
    with a producer warp whose 128 x 128 tiles would be large take 128 x
    256 tiles where at least 132 remain (one block per multiprocessor of
    an H100 SXM or H200), they pad no more columns (N mod 256 is 0 or over
    128) and TMA can load both operands' boxes: each warpgroup's piece is
    64 x 256, one `wgmma.m64n256k16` a 16 terms (128 f32 accumulators a
    thread), and as many stages as fit 200 KiB, up to 8 (8 of 24,576
    bytes: 192 KiB), as CUTLASS's and DeepGEMM's sm90 kernels take 128 x
    256 tiles. K is not split for them.

    With `persistent-blocks` N (0, a block a tile, by default until
    measured on a GPU), products with a producer warp whose K is not split
    and that have more than N tiles launch N blocks (the blocks resident
    at once: 132 on an H100 SXM or H200, one a multiprocessor, whose
    registers the tile loop of 128 x 128 tiles takes too many of for two),
    each taking tiles b, b + N, ... in turn,
    as CUTLASS's persistent sm90 kernels do: both the producer and the
    products loop over the block's tiles (`scf.for`), numbering the steps
    of K on from the previous tile's, so that the stages' barriers go on
    through their phases and the producer loads the next tile's first
    steps while the products still store the last tile's outputs.

    With `precision=bf16` or `f16`, an f32 operand that at least 3 tiles of
    the output read (A: tiles along N; B: along M) is first rounded into a
    buffer of halves of the kernel (`memref.alloc`, a `linalg.generic` of
    `arith.truncf` before the product, which `ms-cuda-map-to-gpu` makes an
    elementwise launch, and a `memref.dealloc` before the return), which
    the product then reads as above: 6 bytes an element once, then 2 a
    reading tile, where rounding as each block stages it reads 4 a reading
    tile. The rounding is the same (`arith.truncf`, to nearest even).

    Products of a tile inside a tiled loop (`scf.forall` of static bounds,
    which `ms-cuda-map-to-gpu` runs as a block program: attention's scores
    `Q K^T` and `P V`), directly or in sequential loops without results
    (steps every thread runs, not under a branch), run on tensor cores where
    their factors are halves of one type (f16 or bf16, widened by `extf` in
    the body), or f32 that `precision=bf16`/`f16` rounds, or, for a product
    the attention lowering marked `ms.probabilities` (`P V`), f32
    probabilities that take the other factor's half type (rounded as flash
    attention rounds them): a generic of two parallel loops then K (any
    layouts of the operands), static, at most 8 fragments a warp. It becomes
    one step of the program, an `scf.parallel` of 256 iterations (the
    block's threads; the block program then has 256): warp w takes the 16 x
    8 output fragments f = w s to w s + s - 1 (s = the fragments / 8,
    rounded up; a warp past them skips the step, and a slot past them starts
    from zeros and stores nothing, so that it reads no other warp's outputs)
    and updates each from the output's contents, 16 terms an `nvvm.mma.sync`
    (m16n8k16, f32 sums; where M, N or K is not a multiple of 16, 8 or 16, a
    fragment's rows or columns past the tile read its last one and their
    sums are neither read nor stored, a condition per element, and terms
    past K read as zeros), each lane loading its fragments' elements where
    they are (`memref.load`, rounded by `arith.truncf`; A's once a step
    where s divides a row of fragments, so that a warp's fragments share
    their rows), then storing its sums. Other products inside tiled loops
    stay as they are (and with a precision multiply rounded factors, as
    above).
  }];
  let options =
      [Option<"precision", "precision", "std::string", /*default=*/"\"f32\"",
              "the type products multiply in: f32 (shared-memory SIMT "
              "tiles), tf32, bf16 or f16 (tensor cores, f32 sums)">,
       Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"",
              "the architecture (--cuda-arch): on sm_90a, products of "
              "halves whose operands both go by cp.async run on wgmma">,
       Option<"tma", "tma", "bool", /*default=*/"true",
              "on wgmma, load the operands a tensor map can describe by "
              "TMA (else cp.async)">,
       Option<"producerWarp", "producer-warp", "bool", /*default=*/"true",
              "with TMA, a warp of its own (the block's ninth) issues "
              "the loads (else thread 0, between its products)">,
       Option<"wideTiles", "wide-tiles", "bool", /*default=*/"false",
              "with a producer warp, large products take 128 x 256 tiles "
              "(one block a multiprocessor) where 132 or more remain">,
       Option<"persistentBlocks", "persistent-blocks", "unsigned",
              /*default=*/"0",
              "with a producer warp, products of more tiles launch this "
              "many blocks, each walking the tiles this many apart (0: a "
              "block a tile)">];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def CUDAOrderLoopsPass : Pass<"ms-cuda-order-loops"> {
  let summary = "moves the parallel loops of linalg ops outside their "
                "reductions";
  let description = [{
    Reorders each linalg op's loops as its parallel loops, then its
    reductions, each group in its order (a named op is generalized first;
    an op already in that order is left alone). `ms-cuda-map-to-gpu`
    launches a thread per iteration of a kernel's top-level parallel loop
    (or a block per row of a row reduction); a sum over a leading axis,
    `(reduction, parallel)`, would otherwise become a top-level sequential
    loop run by one thread. Each output still combines its terms in the
    same order.

    ```mlir
    linalg.generic {iterator_types = ["reduction", "parallel", "reduction"]}
    // becomes
    linalg.generic {iterator_types = ["parallel", "reduction", "reduction"]}
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def CUDAContractMultiplyAddsPass : Pass<"ms-cuda-contract-multiply-adds"> {
  let summary = "fuses the products and sums of GPU kernels into fma";
  let description = [{
    Marks each `arith.addf` and `arith.subf` inside a `gpu.launch` or
    `gpu.func` that adds a product (`arith.mulf`) nothing else uses, and
    that product, with the `contract` fastmath flag, so that LLVM's NVPTX
    backend emits one `fma.rn` (one rounding) where it would emit `mul.rn`
    and `add.rn`, whose explicit rounding keeps ptxas from fusing them.
    nvcc fuses them by default (`--fmad=true`), as the kernels of cuBLAS
    and PyTorch are built. Where both operands of a sum are such products,
    the first is fused. Code outside the kernels is left alone.

    ```mlir
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    // becomes
    %p = arith.mulf %a, %b fastmath<contract> : f32
    %s = arith.addf %acc, %p fastmath<contract> : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def CUDAPackWeightsPass : Pass<"ms-cuda-pack-weights", "::mlir::ModuleOp"> {
  let summary = "stores constant matmul weights in the halves the tensor "
                "cores multiply";
  let description = [{
    Runs on outlined kernels and their callers. With `precision=bf16` or
    `f16`, when every call of a kernel passes a constant for an f32
    operand of an `msgraph.matmul` (its only use, read as it is), the
    constant is stored in that type at compile time (`#msgraph.relayout`,
    rounded to nearest, ties to even, as `ms-cuda-tile-matmul` rounds the
    operands it stages: the results are the same bit for bit) and the
    kernel widens its argument back with `msgraph.cast`. After
    bufferization `ms-cuda-tile-matmul` finds that widening before the
    product and reads the halves themselves, by `cp.async`: half the bytes
    from memory, and no rounding launch or rounding as staged on each
    call. With precision f32 or tf32 nothing changes.
  }];
  let options = [Option<"precision", "precision", "std::string",
                        /*default=*/"\"f32\"",
                        "the type products multiply in: f32, tf32, bf16 or "
                        "f16">,
  ];
  let dependentDialects = ["::mlir::ms::graph::GraphDialect"];
}

def CUDAExternDynamicSharedPass
    : Pass<"ms-cuda-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "declares the dynamic shared memory of GPU kernels external";
  let description = [{
    Runs on a `gpu.module` lowered to the LLVM dialect. The GPU-to-NVVM
    lowering gives `gpu.dynamic_shared_memory` an internal zero-length
    global of address space 3, which LLVM's NVPTX backend prints as a
    one-byte static variable (`.shared .align 16 .b8 __dynamic_shmem__0;`):
    the launch's dynamic shared memory then begins after it rather than at
    it, and ptxas counts it as static. Each such global (address space 3,
    a zero-length array, no initializer) becomes an external declaration,
    which NVPTX prints as PTX's dynamic shared array
    (`.extern .shared .align 16 .b8 __dynamic_shmem__0[];`), as nvcc
    does for `extern __shared__`, aligned to at least 16 bytes, what the
    driver guarantees after a block's static shared memory: a kernel
    needing more (`ms-cuda-tile-matmul`'s swizzled TMA tiles) aligns its
    addresses at run time.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // MS_TARGET_CUDA_PASSES_TD
