// RUN: ms-opt %s -split-input-file -ms-npu-lower-kernels -verify-diagnostics | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-npu-lower-kernels=precision=bf16 -verify-diagnostics | FileCheck %s --check-prefix=BF16
// RUN: ms-opt %s -split-input-file -ms-npu-lower-kernels=precision=f32 -verify-diagnostics | FileCheck %s --check-prefix=F32
// RUN: not ms-opt %s -split-input-file -ms-npu-lower-kernels=precision=f64 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: expected precision f16, bf16 or f32, found 'f64'
// Kernels lowered to msnpu programs: a matmul on the cube (the zero fill is
// its initialization), an elementwise op and a row reduction on the vector
// unit; what the npu cannot run is an error on the op.

// CHECK-LABEL: func.func @matmul
// The tiles are split over the two cores; each core primes the "empty"
// flags of its double buffers.
// CHECK: %[[CORE0:.*]] = msnpu.per_core [1, 0]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[CORE0]]
// CHECK: msnpu.set_flag <mte1> to <mte2>, 0
// CHECK: msnpu.set_flag <mte1> to <mte2>, 0
// MTE2 loads a chunk of K steps of A and B into L1 as fp16 fractals...
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<4x[[KF:[0-9]+]]x16x16xf32, strided<[32768, 16, 2048, 1]>> to memref<4x[[KF]]x16x16xf16, strided<[{{[0-9]+}}, 256, 16, 1]>, #msnpu.space<l1>>
// CHECK: msnpu.set_flag <mte2> to <mte1>, 0
// CHECK: msnpu.wait_flag <mte2> to <mte1>, 0
// ...MTE1 moves one step at a time to L0; the first mmad initializes.
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<4x[[STEP:[0-9]+]]x16x16xf16, strided<[{{[0-9]+}}, 256, 16, 1]>, #msnpu.space<l1>> to memref<4x[[STEP]]x16x16xf16, #msnpu.space<l0a>>
// CHECK: msnpu.mmad {{.*}} init :
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<4x[[STEP]]x16x16xf16, strided<[{{[0-9]+}}, 256, 16, 1], offset: {{[0-9]+}}>, #msnpu.space<l1>> to memref<4x[[STEP]]x16x16xf16, #msnpu.space<l0a>>
// CHECK: msnpu.mmad
// CHECK-NOT: init
// The next chunks are a loop whose L1 slots alternate.
// CHECK: scf.for
// CHECK: arith.remui
// CHECK: msnpu.mmad
// CHECK: msnpu.set_flag <m> to <fix>, 0
// CHECK: msnpu.wait_flag <m> to <fix>, 0
// CHECK: msnpu.fixpipe %{{.*}}, %{{.*}} : memref<4x4x16x16xf32, #msnpu.space<l0c>> to memref<64x64xf32, strided<[96, 1]>>
// CHECK: msnpu.per_core [0, 1]
// CHECK-NOT: linalg.
// With precision=bf16 the fractals hold bf16 (16x16); with precision=f32,
// f32 (a fractal row is 32 bytes: A's are 16x8, B's 8x16, twice as many
// along K).
// BF16-LABEL: func.func @matmul
// BF16: msnpu.dma %{{.*}}, %{{.*}} : memref<4x[[KF:[0-9]+]]x16x16xf32, {{.*}}> to memref<4x[[KF]]x16x16xbf16, {{.*}}, #msnpu.space<l1>>
// BF16: msnpu.dma %{{.*}}, %{{.*}} : memref<[[KF]]x4x16x16xf32, {{.*}}> to memref<[[KF]]x4x16x16xbf16, {{.*}}, #msnpu.space<l1>>
// BF16: msnpu.mmad {{.*}} init : memref<4x[[STEP:[0-9]+]]x16x16xbf16, #msnpu.space<l0a>>, memref<[[STEP]]x4x16x16xbf16, #msnpu.space<l0b>>, memref<4x4x16x16xf32, #msnpu.space<l0c>>
// F32-LABEL: func.func @matmul
// F32: msnpu.dma %{{.*}}, %{{.*}} : memref<4x[[KF:[0-9]+]]x16x8xf32, {{.*}}> to memref<4x[[KF]]x16x8xf32, {{.*}}, #msnpu.space<l1>>
// F32: msnpu.dma %{{.*}}, %{{.*}} : memref<[[KF]]x4x8x16xf32, {{.*}}> to memref<[[KF]]x4x8x16xf32, {{.*}}, #msnpu.space<l1>>
// F32: msnpu.mmad {{.*}} init : memref<4x[[STEP:[0-9]+]]x16x8xf32, #msnpu.space<l0a>>, memref<[[STEP]]x4x8x16xf32, #msnpu.space<l0b>>, memref<4x4x16x16xf32, #msnpu.space<l0c>>
func.func @matmul(%a: memref<64x2048xf32>, %b: memref<2048x96xf32>, %c: memref<64x96xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x96xf32>)
  linalg.matmul ins(%a, %b : memref<64x2048xf32>, memref<2048x96xf32>) outs(%c : memref<64x96xf32>)
  return
}

// -----

// f16 inputs: MTE2 widens them into f32 fractals (precision=f32) or
// rounds them to bf16 (precision=bf16).
// F32-LABEL: func.func @matmul_f16
// F32: msnpu.dma %{{.*}}, %{{.*}} : memref<2x2x16x8xf16, {{.*}}> to memref<2x2x16x8xf32, {{.*}}, #msnpu.space<l1>>
// BF16-LABEL: func.func @matmul_f16
// BF16: msnpu.dma %{{.*}}, %{{.*}} : memref<2x1x16x16xf16, {{.*}}> to memref<2x1x16x16xbf16, {{.*}}, #msnpu.space<l1>>
func.func @matmul_f16(%a: memref<32x16xf16>, %b: memref<16x32xf16>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x16xf16>, memref<16x32xf16>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// bf16 inputs are multiplied in bf16 with the default precision too (f16
// holds up to 65504, bf16 up to 3.4e38): MTE2 copies them as they are.
// CHECK-LABEL: func.func @matmul_bf16
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<2x1x16x16xbf16, {{.*}}> to memref<2x1x16x16xbf16, {{.*}}, #msnpu.space<l1>>
// CHECK: msnpu.mmad {{.*}} : memref<{{.*}}xbf16, #msnpu.space<l0a>>, memref<{{.*}}xbf16, #msnpu.space<l0b>>
func.func @matmul_bf16(%a: memref<32x16xbf16>, %b: memref<16x32xbf16>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x16xbf16>, memref<16x32xbf16>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// An elementwise op on a matmul's result is its epilogue, fused into its
// step: per chunk of a result tile, the fixpipe moves the accumulators from
// L0C to UB (the vector unit frees the slot), MTE2 loads the bias (once per
// tile: it is the same for every row), the vector unit adds it and takes
// the ReLU, and MTE3 stores the result; the matmul's result never goes to
// GM, and there is no second step.
// CHECK-LABEL: func.func @epilogue
// CHECK: msnpu.per_core [1, 0]
// CHECK: msnpu.set_flag <v> to <mte2>, 0
// CHECK: msnpu.set_flag <v> to <fix>, 0
// CHECK: msnpu.set_flag <v> to <fix>, 0
// CHECK: msnpu.set_flag <mte3> to <v>, 0
// CHECK: msnpu.mmad
// CHECK: msnpu.wait_flag <m> to <fix>, 0
// CHECK: msnpu.wait_flag <v> to <fix>, 0
// CHECK: msnpu.fixpipe %{{.*}}, %[[RESULT:.*]] : memref<4x4x16x16xf32, #msnpu.space<l0c>> to memref<64x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.set_flag <fix> to <v>, 0
// CHECK: msnpu.wait_flag <v> to <mte2>, 0
// CHECK: msnpu.dma %{{.*}}, %[[BIAS:.*]] : memref<1x64xf32> to memref<1x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.wait_flag <fix> to <v>, 0
// CHECK: msnpu.vbinary <add> %[[RESULT]], %[[BIAS]], %[[SUM:.*]] : memref<64x64xf32, #msnpu.space<ub>>, memref<1x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.vscalar <max> %[[SUM]], 0.000000e+00, %[[OUT:[^ ]*]]
// CHECK: msnpu.set_flag <v> to <fix>, 0
// CHECK: msnpu.wait_flag <v> to <mte3>, 0
// CHECK: msnpu.dma %[[OUT]], %{{.*}} : memref<64x64xf32, #msnpu.space<ub>> to memref<64x64xf32, strided<[96, 1]>>
// CHECK: msnpu.set_flag <fix> to <m>, 0
// CHECK: msnpu.per_core [0, 1]
// CHECK-NOT: msnpu.core_barrier
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%a: memref<64x64xf32>, %b: memref<64x96xf32>, %bias: memref<96xf32>, %c: memref<64x96xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x96xf32>)
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x96xf32>) outs(%c : memref<64x96xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x96xf32>, memref<96xf32>) outs(%c : memref<64x96xf32>) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %0 = arith.addf %in, %bv : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The result in a scratch buffer only the epilogue reads: fused, the
// epilogue's output is stored. An operand with a row per result row (a
// residual) is loaded per chunk.
// CHECK-LABEL: func.func @epilogue_scratch
// CHECK: msnpu.fixpipe %{{.*}}, %{{.*}} : memref<2x2x16x16xf32, #msnpu.space<l0c>> to memref<32x32xf32, #msnpu.space<ub>>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<32x32xf32, strided<[32, 1]>> to memref<32x32xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <add>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<32x32xf32, #msnpu.space<ub>> to memref<32x32xf32, strided<[32, 1]>>
// CHECK-NOT: msnpu.core_barrier
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_scratch(%a: memref<32x16xf32>, %b: memref<16x32xf32>, %r: memref<32x32xf32>, %y: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : memref<32x32xf32>, memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %0 = arith.addf %in, %res : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<32x32xf32>
  return
}

// -----

// A scratch result another op reads too is stored to GM, and the
// elementwise op is a step of its own.
// CHECK-LABEL: func.func @not_epilogue
// CHECK: msnpu.fixpipe %{{.*}}, %{{.*}} : memref<2x2x16x16xf32, #msnpu.space<l0c>> to memref<32x32xf32, strided<[32, 1]>>
// CHECK: msnpu.core_barrier
// CHECK: msnpu.vscalar <mul>
// CHECK: msnpu.core_barrier
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_epilogue(%a: memref<32x16xf32>, %b: memref<16x32xf32>, %y: memref<32x32xf32>, %z: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x32xf32>) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %two : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<32x32xf32>) outs(%z : memref<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %two : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %c : memref<32x32xf32>
  return
}

// -----

// A weight stored in f16 (ms-npu-pack-weights) and widened for the matmul:
// the matmul reads the f16 buffer (MTE2 converts nothing) and the widening
// does not run (no vector step, no barrier).
// CHECK-LABEL: func.func @narrow_weight
// CHECK-NOT: msnpu.vunary
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<{{.*}}xf16, strided<[{{.*}}]>> to memref<{{.*}}xf16, strided<[{{.*}}]>, #msnpu.space<l1>>
// CHECK: msnpu.mmad
// CHECK-NOT: msnpu.core_barrier
// CHECK-NOT: msnpu.vunary
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @narrow_weight(%a: memref<32x64xf32>, %w: memref<64x32xf16>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %wide = memref.alloc() {alignment = 64 : i64} : memref<64x32xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w : memref<64x32xf16>) outs(%wide : memref<64x32xf32>) {
  ^bb0(%in: f16, %out: f32):
    %0 = arith.extf %in : f16 to f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %wide : memref<32x64xf32>, memref<64x32xf32>) outs(%c : memref<32x32xf32>)
  memref.dealloc %wide : memref<64x32xf32>
  return
}

// -----

// When the timing model says so, a tile's rows of A stay in L1 for all of
// K while the tiles of those rows run: each core loads its 64 rows of A
// once (flag id 1 guards the two resident blocks), then per tile only B's
// chunks, and MTE1 moves each K step's slice of the block to L0A.
// CHECK-LABEL: func.func @resident_a
// CHECK: msnpu.per_core [1, 0]
// CHECK: msnpu.set_flag <mte1> to <mte2>, 1
// CHECK: msnpu.set_flag <mte1> to <mte2>, 1
// CHECK: %[[BLOCK:.*]] = msnpu.buffer[0] : memref<4x32x16x16xf16, #msnpu.space<l1>>
// CHECK: msnpu.wait_flag <mte1> to <mte2>, 1
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<4x32x16x16xf32, {{.*}}> to memref<4x32x16x16xf16, {{.*}}, #msnpu.space<l1>>
// CHECK: msnpu.set_flag <mte2> to <mte1>, 1
// CHECK: msnpu.wait_flag <mte2> to <mte1>, 1
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<[[KF:[0-9]+]]x4x16x16xf32, {{.*}}> to memref<[[KF]]x4x16x16xf16, {{.*}}, #msnpu.space<l1>>
// CHECK: memref.subview %[[BLOCK]][0, 4, 0, 0] [4, 4, 16, 16]
// CHECK-NOT: memref<4x32x16x16xf32
// CHECK: msnpu.set_flag <mte1> to <mte2>, 1
// CHECK-NEXT: msnpu.set_flag <m> to <fix>, 0
// CHECK-NOT: memref<4x32x16x16xf32
// CHECK: msnpu.wait_flag <mte1> to <mte2>, 1
// CHECK: msnpu.wait_flag <mte1> to <mte2>, 1
// CHECK: msnpu.per_core [0, 1]
func.func @resident_a(%a: memref<64x512xf32>, %b: memref<512x1024xf32>, %c: memref<64x1024xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x1024xf32>)
  linalg.matmul ins(%a, %b : memref<64x512xf32>, memref<512x1024xf32>) outs(%c : memref<64x1024xf32>)
  return
}

// -----

// A convolution (2 images, stride 2 along rows) runs on the cube as a
// matmul: first its input's windows are copied to a GM scratch buffer
// [n, c, kh, kw, oh, ow] (im2col: for each image and window position, all
// channels' rows loaded by MTE2 into a UB slot and stored by MTE3; the
// images' 9 copies each split over the cores, double-buffered), then,
// after a barrier, the weight [32, 27] times the windows [27, 16] of each
// image into the output [32, 16]; the fill is the matmul's initialization.
// CHECK-LABEL: func.func @conv
// CHECK: %[[S:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x3x3x3x4x4xf32>
// CHECK: msnpu.per_core [1, 0]
// CHECK: msnpu.set_flag <mte3> to <mte2>, 0
// CHECK: msnpu.wait_flag <mte3> to <mte2>, 0
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<3x4x4xf32, strided<[54, 12, 1]>> to memref<3x4x4xf32, #msnpu.space<ub>>
// CHECK: msnpu.set_flag <mte2> to <mte3>, 0
// CHECK: msnpu.wait_flag <mte2> to <mte3>, 0
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<3x4x4xf32, #msnpu.space<ub>> to memref<3x4x4xf32, strided<[144, 4, 1]>>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<3x4x4xf32, strided<[54, 12, 1], offset: 1>> to memref<3x4x4xf32, #msnpu.space<ub>>
// CHECK-COUNT-33: msnpu.dma %{{.*}} : memref<3x4x4xf32, {{.*}}
// CHECK-NOT: msnpu.dma %{{.*}} : memref<3x4x4xf32
// CHECK: msnpu.core_barrier
// CHECK: memref.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : memref<32x3x3x3xf32> into memref<32x27xf32>
// CHECK: memref.collapse_shape %[[S]] {{\[}}[0], [1, 2, 3], [4, 5]] : memref<2x3x3x3x4x4xf32> into memref<2x27x16xf32>
// CHECK: memref.collapse_shape %arg2 {{\[}}[0, 1], [2], [3, 4]] : memref<2x1x32x4x4xf32> into memref<2x32x16xf32>
// CHECK: msnpu.mmad {{.*}} init : memref<2x2x16x16xf16, #msnpu.space<l0a>>, memref<2x1x16x16xf16, #msnpu.space<l0b>>, memref<2x1x16x16xf32, #msnpu.space<l0c>>
// CHECK: msnpu.fixpipe %{{.*}}, %{{.*}} : memref<2x1x16x16xf32, #msnpu.space<l0c>> to memref<32x16xf32, strided<[16, 1]>>
// CHECK: msnpu.mmad {{.*}} init :
// CHECK-NOT: linalg.
#cx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 * 2 + d6, d4 + d7)>
#cw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>
#cy = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
func.func @conv(%x: memref<2x3x9x6xf32>, %w: memref<32x3x3x3xf32>, %y: memref<2x1x32x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<2x1x32x4x4xf32>)
  linalg.generic {indexing_maps = [#cx, #cw, #cy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<2x3x9x6xf32>, memref<32x3x3x3xf32>) outs(%y : memref<2x1x32x4x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %1 = arith.mulf %in, %in_1 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// A grouped convolution (2 groups of 2 input and 4 output channels): the
// windows are laid out [group, K, positions], and each group's weight
// [4, 18] times its windows [18, 16] is one contraction of a batch.
// CHECK-LABEL: func.func @conv_groups
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x2x3x3x4x4xf32>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<2x4x4xf32, strided<[36, 6, 1]>> to memref<2x4x4xf32, #msnpu.space<ub>>
// CHECK: msnpu.core_barrier
// CHECK: memref.collapse_shape %arg1 {{\[}}[0], [1], [2, 3, 4]] : memref<2x4x2x3x3xf32> into memref<2x4x18xf32>
// CHECK: memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3], [4, 5]] : memref<2x2x3x3x4x4xf32> into memref<2x18x16xf32>
// CHECK: memref.collapse_shape %arg2 {{\[}}[0, 1], [2], [3, 4]] : memref<1x2x4x4x4xf32> into memref<2x4x16xf32>
// CHECK: msnpu.mmad {{.*}} init : memref<1x1x16x16xf16, #msnpu.space<l0a>>, memref<1x1x16x16xf16, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
#gx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#gw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#gy = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
func.func @conv_groups(%x: memref<1x2x2x6x6xf32>, %w: memref<2x4x2x3x3xf32>, %y: memref<1x2x4x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x2x4x4x4xf32>)
  linalg.generic {indexing_maps = [#gx, #gw, #gy], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x2x6x6xf32>, memref<2x4x2x3x3xf32>) outs(%y : memref<1x2x4x4x4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %1 = arith.mulf %in, %in_1 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// A channel's positions over half of UB (256 x 256 f32): the windows are
// copied in the vector unit's tiles of rows instead.
// CHECK-LABEL: func.func @conv_large
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<2x3x3x256x256xf32>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<42x256xf32, strided<[258, 1]>> to memref<42x256xf32, #msnpu.space<ub>>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<42x256xf32, #msnpu.space<ub>> to memref<42x256xf32, strided<[256, 1]>>
// CHECK: msnpu.core_barrier
// CHECK: msnpu.mmad
#lx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>
#lw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>
#ly = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
func.func @conv_large(%x: memref<1x2x258x258xf32>, %w: memref<16x2x3x3xf32>, %y: memref<1x1x16x256x256xf32>) {
  linalg.generic {indexing_maps = [#lx, #lw, #ly], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%x, %w : memref<1x2x258x258xf32>, memref<16x2x3x3xf32>) outs(%y : memref<1x1x16x256x256xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %1 = arith.mulf %in, %in_1 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @bias_relu
// The bias is one row, broadcast over the tile's rows; ReLU is a max with 0.
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<1x96xf32> to memref<1x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <add> %{{.*}}, %{{.*}}, %{{.*}} : memref<{{[0-9]+}}x96xf32, #msnpu.space<ub>>, memref<1x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.vscalar <max> %{{.*}}, 0.000000e+00, %{{.*}}
// CHECK: msnpu.set_flag <v> to <mte3>, 0
// CHECK: msnpu.wait_flag <v> to <mte3>, 0
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<{{[0-9]+}}x96xf32, #msnpu.space<ub>> to memref<{{[0-9]+}}x96xf32, strided<[96, 1]{{.*}}>>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: memref<64x96xf32>, %bias: memref<96xf32>, %y: memref<64x96xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : memref<64x96xf32>, memref<96xf32>) outs(%y : memref<64x96xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %0 = arith.addf %in, %b : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @row_max
// The -inf fill is the reduction's initialization: the first chunk of a
// row overwrites, the next ones accumulate.
// CHECK-NOT: msnpu.vdup
// CHECK: msnpu.vreduce <max> %{{.*}}, %{{.*}} : memref<1x16320xf32, #msnpu.space<ub>> to memref<1xf32, #msnpu.space<ub>>
// CHECK: msnpu.vreduce <max> %{{.*}}, %{{.*}} acc : memref<1x3680xf32, #msnpu.space<ub>> to memref<1xf32, #msnpu.space<ub>>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<{{[0-9]+}}xf32, #msnpu.space<ub>> to memref<{{[0-9]+}}xf32, strided<[1]{{.*}}>>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @row_max(%x: memref<16x20000xf32>, %m: memref<16xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%m : memref<16xf32>)
  linalg.generic {indexing_maps = [#map2, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x20000xf32>) outs(%m : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// Steps of a kernel are separated by a barrier across cores.
// CHECK-LABEL: func.func @two_steps
// CHECK: msnpu.vunary <exp>
// CHECK: msnpu.core_barrier
// CHECK: msnpu.vunary <tanh>
#m = affine_map<(d0) -> (d0)>
func.func @two_steps(%x: memref<1024xf32>, %y: memref<1024xf32>) {
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%y : memref<1024xf32>) outs(%y : memref<1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.tanh %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @leaky_relu
// A comparison writes a mask of ones and zeros in its operands' type (a
// UB temp of f32), which the select reads: x < 0 ? 0.01 x : x. A constant
// left of the comparison swaps it (0 > x is x < 0).
// CHECK: msnpu.vscalar <lt> %[[X:.*]], 0.000000e+00, %[[MASK:.*]] : memref<{{.*}}xf32, #msnpu.space<ub>> to memref<{{.*}}xf32, #msnpu.space<ub>>
// CHECK: msnpu.vscalar <mul> %[[X]], 0.0099999997764825821, %[[SCALED:.*]] :
// CHECK: msnpu.vselect %[[MASK]], %[[SCALED]] else %[[X]], %[[OUT:.*]] : memref<{{.*}}xf32, #msnpu.space<ub>>, memref<{{.*}}xf32, #msnpu.space<ub>>, memref<{{.*}}xf32, #msnpu.space<ub>> to memref<{{.*}}xf32, #msnpu.space<ub>>
// CHECK: msnpu.vscalar <lt> %[[X]], 0.000000e+00, %[[MASK2:[^ ]*]]
// CHECK: msnpu.vselect %[[MASK2]], %{{.*}}, %{{.*}} {scalar = 1.000000e+00 : f64}
#m = affine_map<(d0) -> (d0)>
func.func @leaky_relu(%x: memref<64xf32>, %y: memref<64xf32>, %z: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %slope = arith.constant 0.01 : f32
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf olt, %in, %zero : f32
    %1 = arith.mulf %in, %slope : f32
    %2 = arith.select %0, %1, %in : f32
    linalg.yield %2 : f32
  }
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%z : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ogt, %zero, %in : f32
    %1 = arith.select %0, %in, %one : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// CHECK-LABEL: func.func @bool_tensors
// An i1 buffer holds one byte per element: its tile is loaded as bytes and
// cast to an f32 mask of ones and zeros; logic runs on masks (and: min, or:
// max, xor and not: ne), a comparison's mask is in its operands' type (f16
// here, cast to the other mask's f32 by the xor) and an i1 result is cast
// back to bytes for the store.
// CHECK: msnpu.dma %{{.*}}, %[[BYTES:.*]] : memref<{{.*}}xi1{{.*}}> to memref<{{.*}}xi1, #msnpu.space<ub>>
// CHECK: msnpu.vunary <cast> %[[BYTES]], %[[A:.*]] : memref<{{.*}}xi1, #msnpu.space<ub>> to memref<{{.*}}xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <min> %[[A]], %[[B:.*]], %[[AND:.*]] : memref<{{.*}}xf32
// CHECK: msnpu.vscalar <ne> %[[AND]], 1.000000e+00, %[[NOT:.*]] : memref<{{.*}}xf32
// CHECK: msnpu.vbinary <lt> %{{.*}}, %{{.*}}, %[[LESS:.*]] : memref<{{.*}}xf16
// CHECK: msnpu.vunary <cast> %[[LESS]], %[[XOR:.*]] : memref<{{.*}}xf16, #msnpu.space<ub>> to memref<{{.*}}xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <ne> %[[NOT]], %[[XOR]], %[[XOR]]
// CHECK: msnpu.vbinary <max> %[[XOR]], %[[A]], %[[OR:.*]] : memref<{{.*}}xf32
// CHECK: msnpu.vunary <cast> %[[OR]], %[[OUT:.*]] : memref<{{.*}}xf32, #msnpu.space<ub>> to memref<{{.*}}xi1, #msnpu.space<ub>>
// CHECK: msnpu.dma %[[OUT]], %{{.*}} : memref<{{.*}}xi1, #msnpu.space<ub>> to memref<{{.*}}xi1
// A condition from a buffer selects; a mask becomes a number unsigned.
// CHECK: msnpu.vselect %{{.*}}, %{{.*}} else %{{.*}}, %{{.*}} : memref<{{.*}}xf32, #msnpu.space<ub>>, memref<{{.*}}xf16
// CHECK: msnpu.vunary <cast> %{{.*}}, %[[MASK:.*]] : memref<{{.*}}xi1, #msnpu.space<ub>> to memref<{{.*}}xf32, #msnpu.space<ub>>
// CHECK: msnpu.vunary <cast> %[[MASK]], %{{.*}} : memref<{{.*}}xf32, #msnpu.space<ub>> to memref<{{.*}}xf16, #msnpu.space<ub>>
#m = affine_map<(d0) -> (d0)>
func.func @bool_tensors(%a: memref<64xi1>, %b: memref<64xi1>, %x: memref<64xf16>,
                        %y: memref<64xf16>, %r: memref<64xi1>, %s: memref<64xf16>,
                        %t: memref<64xf16>) {
  %true = arith.constant true
  linalg.generic {indexing_maps = [#m, #m, #m, #m, #m], iterator_types = ["parallel"]}
      ins(%a, %b, %x, %y : memref<64xi1>, memref<64xi1>, memref<64xf16>, memref<64xf16>)
      outs(%r : memref<64xi1>) {
  ^bb0(%p: i1, %q: i1, %u: f16, %v: f16, %out: i1):
    %0 = arith.andi %p, %q : i1
    %1 = arith.xori %0, %true : i1
    %2 = arith.cmpf olt, %u, %v : f16
    %3 = arith.xori %1, %2 : i1
    %4 = arith.ori %3, %p : i1
    linalg.yield %4 : i1
  }
  linalg.generic {indexing_maps = [#m, #m, #m, #m], iterator_types = ["parallel"]}
      ins(%a, %x, %y : memref<64xi1>, memref<64xf16>, memref<64xf16>)
      outs(%s : memref<64xf16>) {
  ^bb0(%p: i1, %u: f16, %v: f16, %out: f16):
    %0 = arith.select %p, %u, %v : f16
    linalg.yield %0 : f16
  }
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%a : memref<64xi1>) outs(%t : memref<64xf16>) {
  ^bb0(%p: i1, %out: f16):
    %0 = arith.uitofp %p : i1 to f16
    linalg.yield %0 : f16
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @bool_arithmetic(%a: memref<64xi1>, %b: memref<64xi1>, %r: memref<64xi1>) {
  linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel"]}
      ins(%a, %b : memref<64xi1>, memref<64xi1>) outs(%r : memref<64xi1>) {
  ^bb0(%p: i1, %q: i1, %out: i1):
    // i1 addition wraps (true + true is false); masks would give 2.
    // expected-error @+1 {{the npu target computes i1 values as masks: expected a comparison or logic to produce one, found 'arith.addi'}}
    %0 = arith.addi %p, %q : i1
    linalg.yield %0 : i1
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @bool_from_cast(%x: memref<64xf32>, %r: memref<64xi1>) {
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%r : memref<64xi1>) {
  ^bb0(%in: f32, %out: i1):
    // -1.0 would be true, but its mask would hold -1.
    // expected-error @+1 {{the npu target computes i1 values as masks: expected a comparison or logic to produce one, found 'arith.fptosi'}}
    %0 = arith.fptosi %in : f32 to i1
    linalg.yield %0 : i1
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @select_by_scalar(%x: memref<64xf32>, %y: memref<64xf32>) {
  %true = arith.constant true
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, #m, #m], iterator_types = ["parallel"]}
      ins(%true, %x : i1, memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%c: i1, %in: f32, %out: f32):
    // expected-error @+1 {{the npu target selects by a computed condition, not a constant}}
    %0 = arith.select %c, %in, %zero : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A scalar i1 input is a number: the xor's mask is the comparison's (f16).
// CHECK-LABEL: func.func @xor_scalar
// CHECK: msnpu.vbinary <lt> %{{.*}}, %{{.*}}, %[[LESS:.*]] : memref<{{.*}}xf16
// CHECK: msnpu.vscalar <ne> %[[LESS]], 1.000000e+00, %[[XOR:.*]] : memref<{{.*}}xf16, #msnpu.space<ub>> to memref<{{.*}}xf16, #msnpu.space<ub>>
// CHECK: msnpu.vunary <cast> %[[XOR]], %{{.*}} : memref<{{.*}}xf16, #msnpu.space<ub>> to memref<{{.*}}xi1, #msnpu.space<ub>>
#m = affine_map<(d0) -> (d0)>
func.func @xor_scalar(%x: memref<64xf16>, %y: memref<64xf16>, %r: memref<64xi1>) {
  %true = arith.constant true
  linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, #m, #m, #m], iterator_types = ["parallel"]}
      ins(%true, %x, %y : i1, memref<64xf16>, memref<64xf16>) outs(%r : memref<64xi1>) {
  ^bb0(%t: i1, %u: f16, %v: f16, %out: i1):
    %0 = arith.cmpf olt, %u, %v : f16
    %1 = arith.xori %t, %0 : i1
    linalg.yield %1 : i1
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @no_instruction(%x: memref<64xf32>, %y: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    // An unordered less-than (true for a NaN) has no vector instruction.
    // expected-error @+1 {{the npu vector unit has no instruction for 'arith.cmpf'}}
    %0 = arith.cmpf ult, %in, %zero : f32
    %1 = arith.select %0, %zero, %in : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @mask_as_value(%x: memref<64xf32>, %y: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf olt, %in, %zero : f32
    // A signed read of i1 true is -1, the mask holds 1.
    // expected-error @+1 {{the npu target computes i1 values as masks: expected one as a select's condition or an operand of logic, an equality or an unsigned cast, found 'arith.sitofp'}}
    %1 = arith.sitofp %0 : i1 to f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @select_by_constant(%x: memref<64xf32>, %y: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %true = arith.constant true
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    // expected-error @+1 {{the npu target selects by a computed condition, not a constant}}
    %0 = arith.select %true, %zero, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

func.func @not_linalg(%x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{the npu target cannot lower 'memref.store' (only linalg ops run on the npu)}}
  memref.store %zero, %x[%c0] : memref<64xf32>
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-error @+1 {{the npu target needs static shapes}}
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A reduction of the rows accumulates one row per tile into the output
// tile with vector additions (the first one a copy).
// CHECK-LABEL: func.func @column_sum
// CHECK: msnpu.vunary <copy> %{{.*}}, %{{.*}} : memref<1x16xf32, #msnpu.space<ub>> to memref<1x16xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <add> %{{.*}}, %{{.*}}, %{{.*}} : memref<1x16xf32, #msnpu.space<ub>>, memref<1x16xf32, #msnpu.space<ub>> to memref<1x16xf32, #msnpu.space<ub>>
#a = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d1)>
func.func @column_sum(%x: memref<8x16xf32>, %y: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<16xf32>)
  linalg.generic {indexing_maps = [#a, #r], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A reduction into an output that does not hold its identity (a
// convolution's bias) starts from the output: the first contribution of
// each tile loads it and combines.
// CHECK-LABEL: func.func @initialized_by_output
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<1x16xf32> to memref<1x16xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <add> %{{.*}}, %{{.*}}, %{{.*}} : memref<1x16xf32, #msnpu.space<ub>>, memref<1x16xf32, #msnpu.space<ub>> to memref<1x16xf32, #msnpu.space<ub>>
#a = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d1)>
func.func @initialized_by_output(%x: memref<8x16xf32>, %y: memref<16xf32>) {
  linalg.generic {indexing_maps = [#a, #r], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A window (max pooling, stride 2): the tile is the output's rows and
// columns, each window position a strided view of the input accumulated
// with a vector max.
// CHECK-LABEL: func.func @max_pool
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<2x4xf32, strided<[16, 2]>> to memref<2x4xf32, #msnpu.space<ub>>
// CHECK: msnpu.vunary <copy>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<2x4xf32, strided<[16, 2], offset: 1>> to memref<2x4xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <max>
#in = affine_map<(oh, ow, kh, kw) -> (oh * 2 + kh, ow * 2 + kw)>
#win = affine_map<(oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(oh, ow, kh, kw) -> (oh, ow)>
func.func @max_pool(%x: memref<8x8xf32>, %w: memref<2x2xf32>, %y: memref<4x4xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%y : memref<4x4xf32>)
  linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<8x8xf32>, memref<2x2xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%in: f32, %unused: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#a3 = affine_map<(m, n, k1, k2) -> (m, k1, k2)>
#b3 = affine_map<(m, n, k1, k2) -> (k1, k2, n)>
#c3 = affine_map<(m, n, k1, k2) -> (m, n)>
func.func @two_k(%a: memref<16x4x4xf32>, %b: memref<4x4x16xf32>, %c: memref<16x16xf32>) {
  // expected-error @+1 {{the npu target runs contractions with one K dimension on the cube; this one has 2}}
  linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a, %b : memref<16x4x4xf32>, memref<4x4x16xf32>) outs(%c : memref<16x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %0 = arith.mulf %x, %y : f32
    %1 = arith.addf %z, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

func.func @int_matmul(%a: memref<16x16xi32>, %b: memref<16x16xi32>, %c: memref<16x16xi32>) {
  // expected-error @+1 {{the npu target multiplies f32, f16 or bf16 matrices on the cube, found 'i32' x 'i32' -> 'i32'}}
  linalg.matmul ins(%a, %b : memref<16x16xi32>, memref<16x16xi32>) outs(%c : memref<16x16xi32>)
  return
}

// -----

// A sliding sum over 20,000 positions: one unrolled tile per position.
#in = affine_map<(d0, d1, d2) -> (d0, d1 + d2)>
#win = affine_map<(d0, d1, d2) -> (d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @too_large(%x: memref<4x20016xf32>, %w: memref<20000xf32>, %y: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<4x16xf32>)
  // expected-error @+1 {{the npu program of this op would take about 520000 instructions (the vector path unrolls its tiles; at most 400000): ops this large need loops the npu lowering does not generate yet}}
  linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x20016xf32>, memref<20000xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%in: f32, %unused: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
#s = affine_map<(d0) -> ()>
func.func @scalar_not_constant(%x: memref<64xf32>, %c: f32, %y: memref<64xf32>) {
  // expected-error @+1 {{the npu target expects scalar operands that are constants}}
  linalg.generic {indexing_maps = [#m, #s, #m], iterator_types = ["parallel"]}
      ins(%x, %c : memref<64xf32>, f32) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %k: f32, %out: f32):
    %0 = arith.addf %in, %k : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#m = affine_map<(d0) -> (d0)>
func.func @outside_value(%x: memref<64xf32>, %c: f32, %y: memref<64xf32>) {
  linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%y : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    // expected-error @+1 {{the npu target expects values from outside an op's body to be constants}}
    %0 = arith.addf %in, %c : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @product_reduction(%x: memref<8x16xf32>, %y: memref<8xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%y : memref<8xf32>)
  // expected-error @+1 {{the npu target reduces with a sum, max or min of the output and one value}}
  linalg.generic {indexing_maps = [#a, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

#a = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @output_used_twice(%x: memref<8x16xf32>, %y: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<8xf32>)
  // expected-error @+1 {{the npu target expects a reduction's output used only by its combiner}}
  linalg.generic {indexing_maps = [#a, #r], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %out : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

#in = affine_map<(d0, d1, d2) -> (d0 + d1 + d2)>
#win = affine_map<(d0, d1, d2) -> (d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @rows_and_columns(%x: memref<32xf32>, %w: memref<4xf32>, %y: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<8x8xf32>)
  // expected-error @+1 {{the npu target cannot tile an index that combines the tile's rows and columns}}
  linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<32xf32>, memref<4xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %unused: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// A softmax as it reaches the lowering (row maxima, exponentials of the
// differences, row sums, the divide, the reductions' fills): one step over
// tiles of whole rows in UB, each tile's input loaded once and only the
// output stored; the row vector stays in UB (no dma of it) and is read
// broadcast over the columns ([rows, 1]). The cores take contiguous tiles.
// CHECK-LABEL: func.func @softmax_rows
// CHECK-NOT: msnpu.core_barrier
// CHECK: msnpu.per_core [1, 0]
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<22x96xf32, strided<[96, 1]>> to memref<22x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.vdup 0xFFF0000000000000, %{{.*}} : memref<22xf32, #msnpu.space<ub>>
// CHECK: msnpu.vreduce <max> %{{.*}}, %{{.*}} acc : memref<22x96xf32, #msnpu.space<ub>> to memref<22xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <sub> %{{.*}}, %{{.*}}, %{{.*}} : memref<22x96xf32, #msnpu.space<ub>>, memref<22x1xf32, #msnpu.space<ub>> to memref<22x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.vunary <exp>
// CHECK: msnpu.vreduce <sum>
// CHECK: msnpu.vbinary <div> %{{.*}}, %{{.*}}, %{{.*}} : memref<22x96xf32, #msnpu.space<ub>>, memref<22x1xf32, #msnpu.space<ub>> to memref<22x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.set_flag <v> to <mte3>, 0
// CHECK: msnpu.wait_flag <v> to <mte3>, 0
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<22x96xf32, #msnpu.space<ub>> to memref<22x96xf32, strided<[96, 1]>>
// CHECK-NOT: xf32, #msnpu.space<ub>> to memref<22xf32
// CHECK: msnpu.per_core [0, 1]
// CHECK-NOT: msnpu.core_barrier
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @softmax_rows(%x: memref<64x96xf32>, %y: memref<64x96xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %m = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%ninf : f32) outs(%m : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x96xf32>) outs(%m : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<64x96xf32>, memref<64xf32>) outs(%y : memref<64x96xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %0 = arith.subf %in, %mx : f32
    %1 = math.exp %0 : f32
    linalg.yield %1 : f32
  }
  linalg.fill ins(%zero : f32) outs(%m : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<64x96xf32>) outs(%m : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %m : memref<64x96xf32>, memref<64xf32>) outs(%y : memref<64x96xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  }
  memref.dealloc %m : memref<64xf32>
  return
}

// -----

// A layer norm (mean, centred values, variance, the normalization with a
// scale and shift by columns): one step; the scale and shift (column
// vectors) are loaded once per core, [1, cols]; the row-vector ops (divide
// by the count; add epsilon and the square root, which the last stage
// computes on row vectors only) run on [rows, 1] or [1, rows] tiles, once
// per row, not over the tile.
// CHECK-LABEL: func.func @layer_norm_rows
// CHECK-NOT: msnpu.core_barrier
// CHECK: msnpu.dma %arg1, %{{.*}} : memref<96xf32> to memref<96xf32, #msnpu.space<ub>>
// CHECK: msnpu.dma %arg2, %{{.*}} : memref<96xf32> to memref<96xf32, #msnpu.space<ub>>
// CHECK: msnpu.vreduce <sum>
// CHECK: msnpu.vscalar <div> %{{.*}}, 9.600000e+01, %{{.*}} : memref<1x22xf32, #msnpu.space<ub>> to memref<1x22xf32, #msnpu.space<ub>>
// CHECK: msnpu.vunary <sqrt> %{{.*}}, %{{.*}} : memref<22x1xf32, #msnpu.space<ub>> to memref<22x1xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <div> %{{.*}}, %{{.*}}, %{{.*}} : memref<22x96xf32, #msnpu.space<ub>>, memref<22x1xf32, #msnpu.space<ub>> to memref<22x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <mul> %{{.*}}, %{{.*}}, %{{.*}} : memref<22x96xf32, #msnpu.space<ub>>, memref<1x96xf32, #msnpu.space<ub>> to memref<22x96xf32, #msnpu.space<ub>>
// CHECK: msnpu.per_core [0, 1]
// CHECK-NOT: msnpu.dma %arg1
// CHECK: msnpu.dma %arg1
// CHECK-NOT: msnpu.dma %arg1
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
#vec = affine_map<(d0) -> (d0)>
func.func @layer_norm_rows(%x: memref<64x96xf32>, %g: memref<96xf32>, %b: memref<96xf32>, %y: memref<64x96xf32>) {
  %eps = arith.constant 9.99999974E-6 : f32
  %n = arith.constant 9.600000e+01 : f32
  %zero = arith.constant 0.0 : f32
  %mean = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  %sum = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x96xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%mean : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : memref<64x96xf32>, memref<64xf32>) outs(%y : memref<64x96xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    linalg.yield %0 : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%y : memref<64x96xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %in : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}
      ins(%sum : memref<64xf32>) outs(%mean : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %n : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #cols, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %mean, %g, %b : memref<64x96xf32>, memref<64xf32>, memref<96xf32>, memref<96xf32>) outs(%y : memref<64x96xf32>) {
  ^bb0(%in: f32, %v: f32, %gamma: f32, %beta: f32, %out: f32):
    %0 = arith.addf %v, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.divf %in, %1 : f32
    %3 = arith.mulf %2, %gamma : f32
    %4 = arith.addf %3, %beta : f32
    linalg.yield %4 : f32
  }
  memref.dealloc %mean : memref<64xf32>
  memref.dealloc %sum : memref<64xf32>
  return
}

// -----

// A run that would load and store one buffer (the row maxima subtracted
// from x in place) runs stage by stage: the next tile's load could
// overwrite it while its store still reads it.
// CHECK-LABEL: func.func @in_place_rows
// CHECK: msnpu.vreduce <max>
// CHECK: msnpu.core_barrier
// CHECK: msnpu.vbinary <sub>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @in_place_rows(%x: memref<64x96xf32>, %m: memref<64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%m : memref<64xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x96xf32>) outs(%m : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<64x96xf32>, memref<64xf32>) outs(%x : memref<64x96xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %0 = arith.subf %in, %mx : f32
    linalg.yield %0 : f32
  }
  return
}

// -----

// As many rows as columns (32 x 32): a buffer's kind follows how the
// stages index it, not its shape, so the scale `g` (read by the columns)
// is a column vector, [1, 32], and the row sums a row vector, [rows, 1].
// CHECK-LABEL: func.func @square_rows
// CHECK-NOT: msnpu.core_barrier
// CHECK: msnpu.vreduce <sum>
// CHECK: msnpu.vbinary <sub> %{{.*}}, %{{.*}}, %{{.*}} : memref<{{[0-9]+}}x32xf32, #msnpu.space<ub>>, memref<{{[0-9]+}}x1xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <mul> %{{.*}}, %{{.*}}, %{{.*}} : memref<{{[0-9]+}}x32xf32, #msnpu.space<ub>>, memref<1x32xf32, #msnpu.space<ub>>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @square_rows(%x: memref<32x32xf32>, %g: memref<32xf32>, %y: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %s = memref.alloc() {alignment = 64 : i64} : memref<32xf32>
  linalg.fill ins(%zero : f32) outs(%s : memref<32xf32>)
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<32x32xf32>) outs(%s : memref<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %in : f32
    linalg.yield %0 : f32
  }
  linalg.generic {indexing_maps = [#id, #rows, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %g : memref<32x32xf32>, memref<32xf32>, memref<32xf32>) outs(%y : memref<32x32xf32>) {
  ^bb0(%in: f32, %sum: f32, %gamma: f32, %out: f32):
    %0 = arith.subf %in, %sum : f32
    %1 = arith.mulf %0, %gamma : f32
    linalg.yield %1 : f32
  }
  memref.dealloc %s : memref<32xf32>
  return
}
