// RUN: %check %s --work-dir %t
// RUN: %check %s --work-dir %t.sm80 --levels O1 --compile-flags=--cuda-arch=sm_80
// RUN: %check %s --work-dir %t.notma --levels O1 --compile-flags=--cuda-tma=false
// RUN: %check %s --work-dir %t.noproducer --levels O1 --compile-flags=--cuda-producer-warp=false
// RUN: %check %s --work-dir %t.wide --levels O1 --compile-flags=--cuda-wide-tiles
// RUN: %check %s --work-dir %t.persistent --levels O1 --compile-flags=--cuda-persistent-blocks=64
// RUN: %check %s --work-dir %t.widepersistent --levels O1 --compile-flags="--cuda-wide-tiles --cuda-persistent-blocks=5"
// RUN: ms-compile %s -O1 --target cuda --compile-to=gpu | FileCheck %s
// RUN: ms-compile %s -O1 --target cuda --cuda-arch=sm_80 --compile-to=gpu | FileCheck %s --check-prefix=SM80
// RUN: ms-compile %s -O1 --target cuda --cuda-tma=false --compile-to=gpu | FileCheck %s --check-prefix=NOTMA
// RUN: ms-compile %s -O1 --target cuda --cuda-producer-warp=false --compile-to=gpu | FileCheck %s --check-prefix=NOPRODUCER
// RUN: ms-compile %s -O1 --target cuda --cuda-wide-tiles --compile-to=gpu | FileCheck %s --check-prefix=WIDE
// RUN: ms-compile %s -O1 --target cuda --cuda-persistent-blocks=5 --compile-to=gpu | FileCheck %s --check-prefix=PERSIST
// Products of half-precision tensors, which the msgraph lowering widens
// to f32 (f32 sums, one rounding): on the cuda target ms-cuda-tile-matmul
// reads the halves themselves (8 a 128-bit load, no widening launch) and
// multiplies them on tensor cores with f32 sums, with no --precision: a
// product of halves is exact in f32, so only the sums differ (their
// order, and the tensor cores' adds). An f16 linear layer with ReLU (150 rows, 200 columns, 100
// terms: tails in every dimension), a batch of f16 products by transposed
// matrices (the transpose a launch of its own at O1), and a bf16 product of f32
// inputs cast to bf16 with enough tiles for the 128 x 128 tile (3,736
// columns: the last tile of 128 x 128 or 128 x 256 has 24 or 152). The
// reference sums in float64 and rounds once to the output's type. Products
// whose operands both go by cp.async on sm_80 run on wgmma on sm_90a (the
// default), their operands loaded by TMA (by cp.async with
// --cuda-tma=false) that a producer warp of their own issues (thread 0
// with --cuda-producer-warp=false; 128 x 256 tiles with
// --cuda-wide-tiles; with --cuda-persistent-blocks, a few blocks each
// walking many tiles), and on mma.sync on sm_80; the others
// on mma.sync on both. Every product runs on the driver stand-in,
// whose TMA loads land at issue in odd blocks and at the barrier's wait in
// even ones.
// INPUT 0: (rng.standard_normal((2, 75, 100)) * 0.25).astype(np.float16)
// INPUT 1: (rng.standard_normal((100, 200)) * 0.25).astype(np.float16)
// INPUT 2: (rng.standard_normal((3, 80, 40)) * 0.25).astype(np.float16)
// INPUT 3: (rng.standard_normal((3, 72, 40)) * 0.25).astype(np.float16)
// INPUT 4: (rng.standard_normal((1152, 48)) * 0.25).astype(np.float32)
// INPUT 5: (rng.standard_normal((48, 3736)) * 0.25).astype(np.float32)
// INPUT 6: (rng.standard_normal((2, 96, 1000)) * 0.25).astype(np.float16)
// INPUT 7: (rng.standard_normal((1000, 136)) * 0.25).astype(np.float16)
// REFERENCE: np.maximum(a0.astype(np.float64) @ a1.astype(np.float64), 0).astype(np.float16)
// REFERENCE: (a2.astype(np.float64) @ a3.astype(np.float64).transpose(0, 2, 1)).astype(np.float16)
// REFERENCE: bf16((bf16(a4).astype(np.float64) @ bf16(a5).astype(np.float64)).astype(np.float32))
// REFERENCE: (a6.astype(np.float64) @ a7.astype(np.float64)).astype(np.float16)
// TOLERANCE: rtol=8e-3 atol=1e-3
// CHECK-LABEL: func.func @fused_0_matmul_relu(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @ms_cuda::@fused_0_matmul_relu_0 blocks in (%c12,
// CHECK-NEXT: return
// On sm_90a the bf16 product's operands go by TMA: the host makes a tensor
// map of each (the step's 32 terms of 128 rows of A a box, rows of 64
// bytes swizzled; 64 columns of B's 32 terms, rows of 128 bytes), which
// the launch takes as a pointer; its dynamic shared memory is 5 stages of
// 16,384 bytes and 1,008 more, to start them at a multiple of 1,024; its
// blocks are the products' two warpgroups and the producer warp.
// CHECK-LABEL: func.func @fused_5_matmul_cast(
// CHECK-NOT: memref.alloc
// CHECK: %[[A:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c32] : memref<*xbf16> -> <tensor = memref<128x32xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b,
// CHECK: %[[B:.*]] = nvgpu.tma.create.descriptor %{{.*}} box[%c32, %c64] : memref<*xbf16> -> <tensor = memref<32x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b,
// CHECK: %[[AP:.*]] = builtin.unrealized_conversion_cast %[[A]]
// CHECK: %[[BP:.*]] = builtin.unrealized_conversion_cast %[[B]]
// CHECK: gpu.launch_func @ms_cuda::@fused_5_matmul_cast_0 blocks in (%c270, %c1, %c1) threads in (%c288, %c1, %c1) dynamic_shared_memory_size %c82928_i32 args(%arg2 : memref<1152x3736xf32>, %[[AP]] : !llvm.ptr, %[[BP]] : !llvm.ptr)
// CHECK-NEXT: return
// A's rows (K = 100) take groups of 4 halves (8 bytes), through registers;
// B's and the bf16 product's rows are copied 16 bytes at a time by cp.async.
// CHECK-LABEL: gpu.func @fused_0_matmul_relu_0(
// CHECK: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<100x200xf16> to memref<2x32x72xf16, #gpu.address_space<workgroup>>
// CHECK: vector.load %{{.*}} : memref<2x75x100xf16>, vector<4xf16>
// CHECK: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-LABEL: gpu.func @fused_5_matmul_cast_0(
// The two warpgroups (threads 0 to 255) wait for each step's loads,
// multiply and release the stage; the producer warp's first lane (thread
// 256) waits for each stage's release and issues its loads.
// CHECK: %[[LOADED:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
// CHECK: %[[RELEASED:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
// CHECK: gpu.barrier
// CHECK: %[[COMPUTES:.*]] = arith.cmpi ult, %thread_id_x, %c256 : index
// CHECK-NEXT: scf.if %[[COMPUTES]] {
// CHECK: nvgpu.mbarrier.try_wait.parity %[[LOADED]]
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[RELEASED]][%{{.*}}], %c0{{.*}}, predicate =
// CHECK: } else {
// CHECK-NEXT: %[[PRODUCES:.*]] = arith.cmpi eq, %thread_id_x, %c256 : index
// CHECK-NEXT: scf.if %[[PRODUCES]] {
// CHECK-NEXT: scf.for
// CHECK: nvgpu.mbarrier.try_wait.parity %[[RELEASED]][%[[STAGE:.*]]],
// CHECK-NEXT: nvgpu.mbarrier.arrive.expect_tx %[[LOADED]][%[[STAGE]]], %c16384
// One box of A a step, two of B.
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %[[LOADED]][%[[STAGE]]] to %{{.*}} : {{.*}} -> memref<128x32xbf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK-NOT: memref<128x32xbf16, strided
// CHECK: nvgpu.tma.async.load %{{.*}}[%[[N0:.*]], %{{.*}}], %[[LOADED]][%[[STAGE]]] to %{{.*}} : {{.*}} -> memref<32x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK: %[[N1:.*]] = arith.addi %[[N0]], %c64 : index
// CHECK-NEXT: nvgpu.tma.async.load %{{.*}}[%[[N1]], %{{.*}}], %[[LOADED]][%[[STAGE]]] to %{{.*}} : {{.*}} -> memref<32x64xbf16, strided<[64, 1], offset: ?>, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.device_async_copy
// CHECK-NOT: nvvm.mma.sync
// CHECK-LABEL: gpu.func @kernel_6_0(
// SM80-LABEL: gpu.func @fused_0_matmul_relu_0(
// SM80: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// SM80-LABEL: gpu.func @fused_5_matmul_cast_0(
// SM80: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<1152x48xbf16>
// SM80: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<48x3736xbf16>
// SM80: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// SM80-NOT: nvvm.wgmma
// With --cuda-tma=false the wgmma product's operands go by cp.async.
// NOTMA-LABEL: gpu.func @fused_5_matmul_cast_0(
// NOTMA-NOT: nvgpu.tma.async.load
// NOTMA: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<1152x48xbf16>
// NOTMA: nvgpu.device_async_copy %{{.*}}, 8, %{{.*}} {bypassL1} : memref<48x3736xbf16>
// NOTMA: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
// NOTMA-NOT: nvgpu.tma.async.load
// NOTMA-LABEL: gpu.func @kernel_6_0(
// With --cuda-producer-warp=false thread 0 issues the loads between its
// products: the blocks are the two warpgroups, and the first steps' loads
// are issued before the loop.
// NOPRODUCER-LABEL: func.func @fused_5_matmul_cast(
// NOPRODUCER: gpu.launch_func @ms_cuda::@fused_5_matmul_cast_0 blocks in (%c270, %c1, %c1) threads in (%c256, %c1, %c1) dynamic_shared_memory_size %c82928_i32
// NOPRODUCER-LABEL: gpu.func @fused_5_matmul_cast_0(
// NOPRODUCER: nvgpu.mbarrier.arrive.expect_tx %{{.*}}[%c0], %c16384
// NOPRODUCER: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%c0] to
// NOPRODUCER-NOT: arith.cmpi ult, %thread_id_x, %c256
// NOPRODUCER: nvvm.wgmma.mma_async
// NOPRODUCER-LABEL: gpu.func @kernel_6_0(
// With --cuda-wide-tiles the bf16 product takes 135 tiles of 128 x 256
// (at least 132), 8 stages of 24,576 bytes, each warpgroup 64 x 256 by
// wgmma.m64n256k16; the others keep their tiles.
// WIDE-LABEL: func.func @fused_5_matmul_cast(
// WIDE: gpu.launch_func @ms_cuda::@fused_5_matmul_cast_0 blocks in (%c135, %c1, %c1) threads in (%c288, %c1, %c1) dynamic_shared_memory_size %c197616_i32
// WIDE-LABEL: gpu.func @fused_5_matmul_cast_0(
// WIDE: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>
// WIDE: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c24576
// WIDE-LABEL: gpu.func @kernel_6_0(
// With --cuda-persistent-blocks=5 the producer-warp products of more than
// 5 tiles launch 5 blocks: the bf16 product's 270 tiles and the batch of
// products by transposed matrices (12 tiles); the split product stays a
// block a tile. The runs above: with 64 blocks, each takes 4 or 5 of the
// bf16 product's tiles (8 to 10 steps of K through 5 stages); with wide
// tiles and 5 blocks, 27 of its 135 (54 steps through 8 stages), and the
// batch runs persistent too.
// PERSIST-LABEL: func.func @kernel_2(
// PERSIST: gpu.launch_func @ms_cuda::@kernel_2_0 blocks in (%c5, %c1, %c1) threads in (%c288, %c1, %c1)
// PERSIST-LABEL: func.func @fused_5_matmul_cast(
// PERSIST: gpu.launch_func @ms_cuda::@fused_5_matmul_cast_0 blocks in (%c5, %c1, %c1) threads in (%c288, %c1, %c1) dynamic_shared_memory_size %c82928_i32
// PERSIST: gpu.launch_func @ms_cuda::@kernel_6_0 blocks in (%c27, %c1, %c1)
// PERSIST-LABEL: gpu.func @fused_5_matmul_cast_0(
// PERSIST: scf.for %{{.*}} = %{{.*}} to %c270 step %c5
// PERSIST: nvvm.wgmma.mma_async
func.func @main(%x: tensor<2x75x100xf16>, %w: tensor<100x200xf16>,
                %q: tensor<3x80x40xf16>, %k: tensor<3x72x40xf16>,
                %l: tensor<1152x48xf32>, %r: tensor<48x3736xf32>,
                %s: tensor<2x96x1000xf16>, %t: tensor<1000x136xf16>)
    -> (tensor<2x75x200xf16>, tensor<3x80x72xf16>, tensor<1152x3736xf32>, tensor<2x96x136xf16>) {
  %0 = msgraph.matmul %x, %w : (tensor<2x75x100xf16>, tensor<100x200xf16>) -> tensor<2x75x200xf16>
  %1 = msgraph.relu %0 : tensor<2x75x200xf16>
  %kt = msgraph.transpose %k {permutation = array<i64: 0, 2, 1>} : (tensor<3x72x40xf16>) -> tensor<3x40x72xf16>
  %2 = msgraph.matmul %q, %kt : (tensor<3x80x40xf16>, tensor<3x40x72xf16>) -> tensor<3x80x72xf16>
  %lb = msgraph.cast %l : (tensor<1152x48xf32>) -> tensor<1152x48xbf16>
  %rb = msgraph.cast %r : (tensor<48x3736xf32>) -> tensor<48x3736xbf16>
  %3 = msgraph.matmul %lb, %rb : (tensor<1152x48xbf16>, tensor<48x3736xbf16>) -> tensor<1152x3736xbf16>
  %4 = msgraph.cast %3 : (tensor<1152x3736xbf16>) -> tensor<1152x3736xf32>
  %5 = msgraph.matmul %s, %t : (tensor<2x96x1000xf16>, tensor<1000x136xf16>) -> tensor<2x96x136xf16>
  return %1, %2, %4, %5 : tensor<2x75x200xf16>, tensor<3x80x72xf16>, tensor<1152x3736xf32>, tensor<2x96x136xf16>
}
