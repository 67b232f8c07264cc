// RUN: ms-opt %s --ms-cuda-map-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// A parallel loop is one launch, 256 threads a block, one iteration a
// thread (125, odd, leaves no vectors), with a bounds check (1000 is no
// multiple of 256); the innermost dimension varies fastest. Constants and views are cloned in; parameters
// are the kernel's memrefs.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME: %[[A:.*]]: memref<8x125xf32>, %[[B:.*]]: memref<8x125xf32>)
// CHECK: arith.constant 125 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: gpu.launch_func @ms_cuda::@elementwise_0 blocks in (%[[C4]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[A]] : memref<8x125xf32>, %[[B]] : memref<8x125xf32>)
// CHECK-NEXT: return
// CHECK: gpu.module @ms_cuda
// CHECK: gpu.func @elementwise_0(%[[X:.*]]: memref<8x125xf32>, %[[Y:.*]]: memref<8x125xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>}
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[THREAD:.*]] = gpu.thread_id x
// CHECK: %[[SCALED:.*]] = arith.muli %[[BLOCK]], %{{.*}}
// CHECK: %[[LINEAR:.*]] = arith.addi %[[SCALED]], %[[THREAD]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[LINEAR]], %{{.*}}
// CHECK: scf.if %[[IN]]
// CHECK: %[[J:.*]] = arith.remui %[[LINEAR]], %{{.*}}
// CHECK: %[[I:.*]] = arith.divui %[[LINEAR]], %{{.*}}
// CHECK: memref.load %[[X]][%[[I]], %[[J]]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]], %[[J]]]
// CHECK: gpu.return
func.func @elementwise(%a: memref<8x125xf32>, %b: memref<8x125xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c125 = arith.constant 125 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c125) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<8x125xf32>
    %y = math.exp %x : f32
    memref.store %y, %b[%i, %j] : memref<8x125xf32>
    scf.reduce
  }
  return
}

// -----

// A run of effectful ops (here a sequential reduction, then the load and
// store that use its result) is one launch of one thread; a top-level
// allocation is a scratch parameter; a constant the kernel reads is copied
// into the GPU module; the load that ends the run stays with its users.
// CHECK-LABEL: func.func @serial(
// CHECK-SAME: %[[A:.*]]: memref<8xf32>, %[[B:.*]]: memref<f32>)
// CHECK: %[[S:.*]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch_func @ms_cuda::@serial_0 blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) args(%[[S]] : memref<f32>, %[[A]] : memref<8xf32>, %[[B]] : memref<f32>)
// CHECK-NEXT: memref.dealloc %[[S]]
// CHECK: gpu.module @ms_cuda
// CHECK: gpu.func @serial_0(%{{.*}}: memref<f32>, %{{.*}}: memref<8xf32>, %{{.*}}: memref<f32>) kernel attributes {known_block_size = array<i32: 1, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}
// CHECK: memref.get_global @scale
// CHECK: scf.for
// CHECK: arith.divf
// CHECK: memref.global "private" constant @scale
memref.global "private" constant @scale : memref<f32> = dense<8.0>
func.func @serial(%a: memref<8xf32>, %b: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<f32>
  %g = memref.get_global @scale : memref<f32>
  memref.store %zero, %acc[] : memref<f32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %a[%i] : memref<8xf32>
    %s = memref.load %acc[] : memref<f32>
    %t = arith.addf %s, %x : f32
    memref.store %t, %acc[] : memref<f32>
  }
  %sum = memref.load %acc[] : memref<f32>
  %n = memref.load %g[] : memref<f32>
  %mean = arith.divf %sum, %n : f32
  memref.store %mean, %b[] : memref<f32>
  memref.dealloc %acc : memref<f32>
  return
}

// -----

// A load left between launches goes into the launch that uses it, when
// nothing writes in between.
// CHECK-LABEL: func.func @load_into_loop(
// CHECK: gpu.launch_func @ms_cuda::@load_into_loop_0 blocks in
// CHECK-NOT: memref.load
// CHECK: return
// CHECK: gpu.func @load_into_loop_0(
// CHECK: %[[S:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: scf.if
// CHECK: arith.mulf %{{.*}}, %[[S]]
func.func @load_into_loop(%s: memref<f32>, %a: memref<301xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c301 = arith.constant 301 : index
  %scale = memref.load %s[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c301) step (%c1) {
    %x = memref.load %a[%i] : memref<301xf32>
    %y = arith.mulf %x, %scale : f32
    memref.store %y, %a[%i] : memref<301xf32>
    scf.reduce
  }
  return
}

// -----

// A loop with a lower bound and a step: the thread's index is scaled and
// offset; 64 iterations fit one block exactly (no bounds check).
// CHECK-LABEL: gpu.func @strided_0(
// CHECK-NOT: scf.if
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %c2
// CHECK: arith.addi %[[P]], %c1
func.func @strided(%a: memref<129xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c129 = arith.constant 129 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c1) to (%c129) step (%c2) {
    memref.store %zero, %a[%i] : memref<129xf32>
    scf.reduce
  }
  return
}

// -----

func.func @dynamic_scratch(%a: memref<8xf32>, %n: index) {
  // expected-error @+1 {{expected a static, contiguous scratch buffer, but found 'memref<?xf32>'}}
  %t = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func @stack(%a: memref<8xf32>) {
  // expected-error @+1 {{expected heap allocations at the top of a kernel mapped to the GPU, but found a stack allocation}}
  %t = memref.alloca() : memref<8xf32>
  return
}

// -----

// A tiled loop holding tensor-core products (ms-cuda-tile-matmul's) that
// cannot run as a block program (its bound is dynamic) would run them on
// one thread.
func.func @mma_outside_a_block_program(%n: index, %a: vector<2xf16>, %c: f32, %o: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  // expected-error @+1 {{expected a tiled loop whose products run on tensor cores to run as a block program, but it cannot}}
  scf.forall (%i) in (%n) {
    scf.parallel (%t) = (%c0) to (%c256) step (%c1) {
      %r = nvvm.mma.sync A[%a, %a, %a, %a] B[%a, %a] C[%c, %c, %c, %c] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
      %e = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
      memref.store %e, %o[%t] : memref<256xf32>
      scf.reduce
    }
  }
  return
}

// -----

func.func @reduction(%a: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{cannot map a parallel loop with reductions to the GPU yet}}
  %r = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    scf.reduce (%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}

// -----

func.func @dynamic_bounds(%a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  // expected-error @+1 {{expected a parallel loop with constant bounds and steps to map to the GPU}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %zero, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

func.func @crossing(%a: memref<8xf32>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %last = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %zero) -> f32 {
    %x = memref.load %a[%i] : memref<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    // expected-error @+1 {{cannot map this kernel to the GPU: it uses a value computed by another launch ('scf.for'), not passed through memory}}
    memref.store %last, %b[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

func.func @scalar_argument(%a: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected kernel arguments mapped to the GPU to be memrefs, but found 'f32'}}
  memref.store %x, %a[%c0] : memref<8xf32>
  return
}

// -----

// Scratch buffers are allocated before the first launch, even when
// bufferization placed one between the ops of a launch.
// CHECK-LABEL: func.func @late_scratch(
// CHECK: %[[T:.*]] = memref.alloc() : memref<f32>
// CHECK: %[[U:.*]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch_func @ms_cuda::@late_scratch_0 {{.*}} args(%[[T]] : memref<f32>, %[[U]] : memref<f32>, %{{.*}} : memref<f32>)
func.func @late_scratch(%out: memref<f32>) {
  %one = arith.constant 1.0 : f32
  %t = memref.alloc() : memref<f32>
  memref.store %one, %t[] : memref<f32>
  %u = memref.alloc() : memref<f32>
  %x = memref.load %t[] : memref<f32>
  memref.store %x, %u[] : memref<f32>
  %y = memref.load %u[] : memref<f32>
  memref.store %y, %out[] : memref<f32>
  return
}

// -----

func.func @too_many_blocks(%a: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %huge = arith.constant 4398046511104 : index
  %zero = arith.constant 0.0 : f32
  // 2^42 stores, four a thread.
  // expected-error @+1 {{expected at most 2^31 - 1 blocks of 256 threads, but the loop needs 4294967296}}
  scf.parallel (%i) = (%c0) to (%huge) step (%c1) {
    memref.store %zero, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction (the loop accumulates into memory, reading along the
// innermost dimension): a block per row, 256 threads sharing the row of
// 300, each combining its elements from the identity (here the maximum's
// -inf), then gpu.all_reduce across the block; thread 0 combines the total
// into the accumulator. The ops before the loop are cloned for every thread.
// CHECK-LABEL: func.func @row_max(
// CHECK: gpu.launch_func @ms_cuda::@row_max_0 blocks in (%{{c6.*}}, %[[ONE:.*]], %[[ONE]]) threads in (%{{c256.*}}, %[[ONE]], %[[ONE]])
// CHECK: gpu.func @row_max_0(%[[A:.*]]: memref<2x3x300xf32>, %[[M:.*]]: memref<2x3xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 6, 1, 1>}
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[J:.*]] = arith.remui %[[BLOCK]], %c3
// CHECK: %[[I:.*]] = arith.divui %[[BLOCK]], %c3
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK: %[[PART:.*]] = scf.for %[[K:.*]] = %[[T]] to %c300 step %[[C256]] iter_args(%[[P:.*]] = %[[NEGINF]]) -> (f32)
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[J]], %[[K]]]
// CHECK: %[[NEXT:.*]] = arith.maximumf %[[P]], %[[X]]
// CHECK: scf.yield %[[NEXT]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce maximumf %[[PART]] uniform
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{c0.*}}
// CHECK: scf.if %[[FIRST]]
// CHECK: %[[OLD:.*]] = memref.load %[[M]][%[[I]], %[[J]]]
// CHECK: %[[NEW:.*]] = arith.maximumf %[[OLD]], %[[TOTAL]]
// CHECK: memref.store %[[NEW]], %[[M]][%[[I]], %[[J]]]
func.func @row_max(%a: memref<2x3x300xf32>, %m: memref<2x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c300 = arith.constant 300 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {
    scf.for %k = %c0 to %c300 step %c1 {
      %x = memref.load %a[%i, %j, %k] : memref<2x3x300xf32>
      %acc = memref.load %m[%i, %j] : memref<2x3xf32>
      %r = arith.maximumf %acc, %x : f32
      memref.store %r, %m[%i, %j] : memref<2x3xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Two accumulators in one loop (a sum and a sum of squares, as a variance
// needs), over 40 elements: 64 threads a row (the power of two above the
// row's length), one all_reduce each.
// CHECK-LABEL: gpu.func @moments_0(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 8, 1, 1>
// CHECK: %[[PARTS:.*]]:2 = scf.for %{{.*}} = %{{.*}} to %c40 step %{{.*}} iter_args(%[[S:.*]] = %{{cst.*}}, %[[Q:.*]] = %{{cst.*}}) -> (f32, f32)
// CHECK: %[[X:.*]] = memref.load
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: %[[S2:.*]] = arith.addf %[[S]], %[[X]]
// CHECK: %[[Q2:.*]] = arith.addf %[[Q]], %[[SQ]]
// CHECK: scf.yield %[[S2]], %[[Q2]]
// CHECK: gpu.all_reduce add %[[PARTS]]#0 uniform
// CHECK: gpu.all_reduce add %[[PARTS]]#1 uniform
func.func @moments(%a: memref<8x40xf32>, %s: memref<8xf32>, %q: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c40 step %c1 {
      %x = memref.load %a[%i, %k] : memref<8x40xf32>
      %sq = arith.mulf %x, %x : f32
      %s0 = memref.load %s[%i] : memref<8xf32>
      %s1 = arith.addf %s0, %x : f32
      memref.store %s1, %s[%i] : memref<8xf32>
      %q0 = memref.load %q[%i] : memref<8xf32>
      %q1 = arith.addf %q0, %sq : f32
      memref.store %q1, %q[%i] : memref<8xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A reduction of a whole tensor (a nest of loops at the top of a kernel,
// 65536 elements) is split over 16 blocks of 4096 elements, adjacent
// elements on adjacent threads; thread 0 of each stores its block's total
// in a scratch buffer, and a second launch of one block combines the 16
// totals into the accumulator.
// CHECK-LABEL: func.func @whole_sum(
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<16xf32>
// CHECK: gpu.launch_func @ms_cuda::@whole_sum_0 blocks in (%{{c16[_0-9]*}}, %{{.*}}) threads in (%{{c256[_0-9]*}}, %{{.*}}) args(%{{.*}} : memref<64x1024xf32>, %[[PARTS]] : memref<16xf32>)
// CHECK: gpu.launch_func @ms_cuda::@whole_sum_1 blocks in (%{{c1[_0-9]*}}, %{{.*}}) threads in (%{{c32[_0-9]*}}, %{{.*}}) args(%[[PARTS]] : memref<16xf32>, %{{.*}} : memref<f32>)
// CHECK: gpu.func @whole_sum_0(%[[A:.*]]: memref<64x1024xf32>, %[[P:.*]]: memref<16xf32>)
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[START:.*]] = arith.muli %[[BLOCK]], %{{c4096[_0-9]*}}
// CHECK: %[[FROM:.*]] = arith.addi %[[START]], %[[T]]
// CHECK: %[[LIMIT:.*]] = arith.addi %[[START]], %{{c4096[_0-9]*}}
// CHECK: %[[TO:.*]] = arith.minui %[[LIMIT]], %c65536
// CHECK: %[[PART:.*]] = scf.for %[[L:.*]] = %[[FROM]] to %[[TO]] step %{{c256[_0-9]*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[J:.*]] = arith.remui %[[L]], %{{c1024[_0-9]*}}
// CHECK: %[[I:.*]] = arith.divui %[[L]], %{{c1024[_0-9]*}}
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[J]]]
// CHECK: arith.addf %[[S]], %[[X]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK: scf.if
// CHECK: memref.store %[[TOTAL]], %[[P]][%[[BLOCK]]]
// CHECK: gpu.func @whole_sum_1(%[[P1:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<f32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 1, 1, 1>}
// CHECK: %[[BLOCK1:.*]] = gpu.block_id x
// CHECK: %[[T1:.*]] = gpu.thread_id x
// CHECK: %[[PART1:.*]] = scf.for %[[K:.*]] = %[[T1]] to %{{c16[_0-9]*}} step %{{c32[_0-9]*}} iter_args(%[[Q:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[V:.*]] = memref.load %[[P1]][%[[K]]]
// CHECK: arith.addf %[[Q]], %[[V]]
// CHECK: %[[TOTAL1:.*]] = gpu.all_reduce add %[[PART1]] uniform
// CHECK: scf.if
// CHECK: %[[OLD:.*]] = memref.load %[[OUT]][]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL1]]
// CHECK: memref.store %[[NEW]], %[[OUT]][]
func.func @whole_sum(%a: memref<64x1024xf32>, %s: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  scf.for %i = %c0 to %c64 step %c1 {
    scf.for %j = %c0 to %c1024 step %c1 {
      %x = memref.load %a[%i, %j] : memref<64x1024xf32>
      %acc = memref.load %s[] : memref<f32>
      %r = arith.addf %acc, %x : f32
      memref.store %r, %s[] : memref<f32>
    }
  }
  return
}

// -----

// Few long rows (2 of 20000): each split over 5 blocks (10 in all, the
// blocks of a chunk of each row adjacent), their totals combined by a
// block per row; the maximum's identity is NaN.
// CHECK-LABEL: gpu.func @long_rows_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 10, 1, 1>
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[ROW:.*]] = arith.remui %[[BLOCK]], %{{c2[_0-9]*}}
// CHECK: %[[SPLIT:.*]] = arith.divui %[[BLOCK]], %{{c2[_0-9]*}}
// CHECK: arith.muli %[[SPLIT]], %{{c4000[_0-9]*}}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32)
// CHECK: memref.load %{{.*}}[%[[ROW]], %{{.*}}] : memref<2x20000xf32>
// CHECK: gpu.all_reduce maxnumf
// CHECK-LABEL: gpu.func @long_rows_1(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
// CHECK: %[[ROW1:.*]] = gpu.block_id x
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %{{c5[_0-9]*}}
// CHECK: %[[SKIP:.*]] = arith.muli %[[S]], %{{c2[_0-9]*}}
// CHECK: %[[AT:.*]] = arith.addi %[[SKIP]], %[[ROW1]]
// CHECK: memref.load %{{.*}}[%[[AT]]] : memref<10xf32>
// CHECK: gpu.all_reduce maxnumf
func.func @long_rows(%a: memref<2x20000xf32>, %m: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c20000 = arith.constant 20000 : index
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    scf.for %k = %c0 to %c20000 step %c1 {
      %x = memref.load %a[%i, %k] : memref<2x20000xf32>
      %acc = memref.load %m[%i] : memref<2xf32>
      %r = arith.maxnumf %acc, %x : f32
      memref.store %r, %m[%i] : memref<2xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Few rows read across (the sums of 4 columns of 1000): a block per
// column, its threads sharing the column, one launch.
// CHECK-LABEL: func.func @few_columns(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @few_columns_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// CHECK: %[[COL:.*]] = gpu.block_id x
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: scf.for %[[I:.*]] = %[[T]] to %c1000
// CHECK: memref.load %{{.*}}[%[[I]], %[[COL]]] : memref<1000x4xi32>
// CHECK: gpu.all_reduce add
func.func @few_columns(%a: memref<1000x4xi32>, %s: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1000 = arith.constant 1000 : index
  scf.parallel (%j) = (%c0) to (%c4) step (%c1) {
    scf.for %i = %c0 to %c1000 step %c1 {
      %x = memref.load %a[%i, %j] : memref<1000x4xi32>
      %acc = memref.load %s[%j] : memref<4xi32>
      %r = arith.addi %acc, %x : i32
      memref.store %r, %s[%j] : memref<4xi32>
    }
    scf.reduce
  }
  return
}

// -----

// Many rows, each a nest reading along the trailing dimensions (a global
// average pool's sums over 7 x 7): a block of 64 threads per row, each
// thread's iterations delinearized over the nest.
// CHECK-LABEL: gpu.func @pooled_rows_0(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 300, 1, 1>
// CHECK: %[[C:.*]] = arith.remui %{{.*}}, %{{c150[_0-9]*}}
// CHECK: %[[N:.*]] = arith.divui %{{.*}}, %{{c150[_0-9]*}}
// CHECK: scf.for %[[L:.*]] = %{{.*}} to %c49
// CHECK: %[[W:.*]] = arith.remui %[[L]], %{{c7[_0-9]*}}
// CHECK: %[[H:.*]] = arith.divui %[[L]], %{{c7[_0-9]*}}
// CHECK: memref.load %{{.*}}[%[[N]], %[[C]], %[[H]], %[[W]]]
// CHECK: gpu.all_reduce add
func.func @pooled_rows(%a: memref<2x150x7x7xf32>, %s: memref<2x150xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c150 = arith.constant 150 : index
  scf.parallel (%n, %c) = (%c0, %c0) to (%c2, %c150) step (%c1, %c1) {
    scf.for %h = %c0 to %c7 step %c1 {
      scf.for %w = %c0 to %c7 step %c1 {
        %x = memref.load %a[%n, %c, %h, %w] : memref<2x150x7x7xf32>
        %acc = memref.load %s[%n, %c] : memref<2x150xf32>
        %r = arith.addf %acc, %x : f32
        memref.store %r, %s[%n, %c] : memref<2x150xf32>
      }
    }
    scf.reduce
  }
  return
}

// -----

// A matrix-vector product by a column (x is 512 x 1): the dimension of one
// element is ignored, so x is read along the row too, and each of the 300
// outputs is a block's.
// CHECK-LABEL: gpu.func @matvec_column_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 300, 1, 1>
// CHECK: gpu.all_reduce add
func.func @matvec_column(%a: memref<300x512xf32>, %x: memref<512x1xf32>, %y: memref<300x1xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c300, %c1) step (%c1, %c1) {
    scf.for %k = %c0 to %c512 step %c1 {
      %u = memref.load %a[%i, %k] : memref<300x512xf32>
      %v = memref.load %x[%k, %j] : memref<512x1xf32>
      %p = arith.mulf %u, %v : f32
      %acc = memref.load %y[%i, %j] : memref<300x1xf32>
      %r = arith.addf %acc, %p : f32
      memref.store %r, %y[%i, %j] : memref<300x1xf32>
    }
    scf.reduce
  }
  return
}

// -----

// Many rows read across (the sums of 300 columns of 2000): a thread per
// column fills 2 blocks only, so each column is split into 32 chunks of
// 63 rows, a thread's each (64 blocks, the 300 columns of one chunk on
// adjacent threads); a second launch of a thread per column combines its
// 32 totals.
// CHECK-LABEL: func.func @many_columns(
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<9600xf32>
// CHECK: gpu.launch_func @ms_cuda::@many_columns_0 blocks in (%{{c64[_0-9]*}}, %{{.*}}) threads in (%{{c256[_0-9]*}}, %{{.*}})
// CHECK: gpu.launch_func @ms_cuda::@many_columns_1 blocks in (%{{c2[_0-9]*}}, %{{.*}}) threads in (%{{c256[_0-9]*}}, %{{.*}})
// CHECK: gpu.func @many_columns_0(%[[A:.*]]: memref<2000x300xf32>, %[[P:.*]]: memref<9600xf32>)
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[RB:.*]] = arith.remui %[[BLOCK]], %{{c2[_0-9]*}}
// CHECK: %[[SPLIT:.*]] = arith.divui %[[BLOCK]], %{{c2[_0-9]*}}
// CHECK: %[[RB256:.*]] = arith.muli %[[RB]], %{{c256[_0-9]*}}
// CHECK: %[[COL:.*]] = arith.addi %[[RB256]], %[[T]]
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[COL]], %{{c300[_0-9]*}}
// CHECK: scf.if %[[VALID]]
// CHECK: %[[START:.*]] = arith.muli %[[SPLIT]], %{{c63[_0-9]*}}
// CHECK: %[[LIMIT:.*]] = arith.addi %[[START]], %{{c63[_0-9]*}}
// CHECK: %[[END:.*]] = arith.minui %[[LIMIT]], %{{c2000[_0-9]*}}
// CHECK: %[[PART:.*]] = scf.for %[[I:.*]] = %[[START]] to %[[END]] step %{{c1[_0-9]*}} iter_args(%[[S:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[COL]]]
// CHECK: arith.addf %[[S]], %[[X]]
// CHECK: %[[SKIP:.*]] = arith.muli %[[SPLIT]], %{{c300[_0-9]*}}
// CHECK: %[[AT:.*]] = arith.addi %[[SKIP]], %[[COL]]
// CHECK: memref.store %[[PART]], %[[P]][%[[AT]]]
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.func @many_columns_1(%[[P1:.*]]: memref<9600xf32>, %[[OUT:.*]]: memref<300xf32>)
// CHECK: scf.if
// CHECK: %[[TOTAL:.*]] = scf.for %{{.*}} = %{{c0[_0-9]*}} to %{{c32[_0-9]*}} step
// CHECK: memref.load %[[P1]]
// CHECK: %[[OLD:.*]] = memref.load %[[OUT]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[TOTAL]]
// CHECK: memref.store %[[NEW]], %[[OUT]]
// CHECK-NOT: gpu.all_reduce
func.func @many_columns(%a: memref<2000x300xf32>, %s: memref<300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %c2000 = arith.constant 2000 : index
  scf.parallel (%j) = (%c0) to (%c300) step (%c1) {
    scf.for %i = %c0 to %c2000 step %c1 {
      %x = memref.load %a[%i, %j] : memref<2000x300xf32>
      %acc = memref.load %s[%j] : memref<300xf32>
      %r = arith.addf %acc, %x : f32
      memref.store %r, %s[%j] : memref<300xf32>
    }
    scf.reduce
  }
  return
}

// -----

// The launch combining chunks' totals clones only the ops that place the
// accumulators: the scale read before the loop (a top-level load, which
// the first launch writes after) stays the first launch's.
// CHECK-LABEL: gpu.func @scaled_rows_0(
// CHECK-SAME: memref<f32>
// CHECK: gpu.all_reduce add
// CHECK: gpu.func @scaled_rows_1(%{{.*}}: memref<10xf32>, %{{.*}}: memref<2xf32>)
// CHECK-NOT: memref<f32>
// CHECK: gpu.return
func.func @scaled_rows(%s: memref<f32>, %a: memref<2x20000xf32>, %m: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c20000 = arith.constant 20000 : index
  %scale = memref.load %s[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    %f = arith.mulf %scale, %scale : f32
    scf.for %k = %c0 to %c20000 step %c1 {
      %x = memref.load %a[%i, %k] : memref<2x20000xf32>
      %y = arith.mulf %x, %f : f32
      %acc = memref.load %m[%i] : memref<2xf32>
      %r = arith.addf %acc, %y : f32
      memref.store %r, %m[%i] : memref<2xf32>
    }
    scf.reduce
  }
  return
}

// -----

// An accumulator placed by a value read from memory is not split (a
// second launch could not read it again): one block shares the 65536
// elements.
// CHECK-LABEL: func.func @placed_by_load(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @ms_cuda::@placed_by_load_0
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @placed_by_load_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK: gpu.all_reduce add
func.func @placed_by_load(%where: memref<index>, %a: memref<65536xf32>, %m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 65536 : index
  %j = memref.load %where[] : memref<index>
  scf.for %k = %c0 to %n step %c1 {
    %x = memref.load %a[%k] : memref<65536xf32>
    %acc = memref.load %m[%j] : memref<4xf32>
    %r = arith.addf %acc, %x : f32
    memref.store %r, %m[%j] : memref<4xf32>
  }
  return
}

// -----

// Kept one thread per iteration: a matmul (the loop reads b down a column,
// which adjacent threads of one output row read side by side; its 64 terms
// are too few to split), a row too short to share (16 < 32) and a
// reduction of f64 values.
// CHECK-LABEL: gpu.func @matmul_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>
// CHECK-NOT: gpu.all_reduce
// CHECK-LABEL: gpu.func @short_row_0(
// CHECK-SAME: known_block_size = array<i32: 8, 1, 1>
// CHECK-NOT: gpu.all_reduce
// CHECK-LABEL: gpu.func @f64_row_0(
// CHECK-SAME: known_block_size = array<i32: 8, 1, 1>
// CHECK-NOT: gpu.all_reduce
func.func @matmul(%a: memref<8x64xf32>, %b: memref<64x128xf32>, %c: memref<8x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c128) step (%c1, %c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<8x64xf32>
      %y = memref.load %b[%k, %j] : memref<64x128xf32>
      %p = arith.mulf %x, %y : f32
      %acc = memref.load %c[%i, %j] : memref<8x128xf32>
      %r = arith.addf %acc, %p : f32
      memref.store %r, %c[%i, %j] : memref<8x128xf32>
    }
    scf.reduce
  }
  return
}
func.func @short_row(%a: memref<8x16xf32>, %s: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %k] : memref<8x16xf32>
      %acc = memref.load %s[%i] : memref<8xf32>
      %r = arith.addf %acc, %x : f32
      memref.store %r, %s[%i] : memref<8xf32>
    }
    scf.reduce
  }
  return
}
func.func @f64_row(%a: memref<8x64xf64>, %s: memref<8xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<8x64xf64>
      %acc = memref.load %s[%i] : memref<8xf64>
      %r = arith.addf %acc, %x : f64
      memref.store %r, %s[%i] : memref<8xf64>
    }
    scf.reduce
  }
  return
}

// -----

// A tiled loop (scf.forall, as fused attention is tiled by batch and head)
// runs a block per tile: its allocation is a slice of the block's shared
// memory (a memref.view of a workgroup buffer of 192 bytes, the 48 floats
// rounded up to 64 bytes), each parallel loop's iterations are taken by the
// block's threads in turn (64: the power of two above the widest loop's
// 48), any other effectful op by thread 0, and a barrier follows each of
// them.
// CHECK-LABEL: func.func @tiles(
// CHECK-NOT: memref.alloc
// CHECK: gpu.launch_func @ms_cuda::@tiles_0 blocks in (%c3, %{{.*}}, %{{.*}}) threads in (%c64, %{{.*}}, %{{.*}}) args(%{{.*}} : memref<3x48xf32>,
// CHECK: gpu.func @tiles_0(%[[A:.*]]: memref<3x48xf32>, %[[N:.*]]: memref<3xf32>, %[[B:.*]]: memref<3x48xf32>) workgroup(%[[S:.*]] : memref<192xi8, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {known_block_size = array<i32: 64, 1, 1>, known_grid_size = array<i32: 3, 1, 1>}
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[TILE:.*]] = memref.view %[[S]][%{{.*}}][] : memref<192xi8, #gpu.address_space<workgroup>> to memref<48xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[I:.*]] = %[[T]] to %{{.*}} step %c64
// CHECK: memref.load %[[A]][%[[BLOCK]], %[[I]]]
// CHECK: memref.store %{{.*}}, %[[TILE]][%[[I]]]
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]], %{{.*}}
// CHECK: scf.if %[[FIRST]]
// CHECK-NEXT: memref.store %{{.*}}, %[[N]][%[[BLOCK]]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: scf.for
// CHECK: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %[[T]] to %{{.*}} step %{{.*}}
// CHECK: memref.load %[[TILE]][%[[J]]]
// CHECK: memref.load %[[N]][%[[BLOCK]]]
// CHECK: memref.store %{{.*}}, %[[B]][%[[BLOCK]], %[[J]]]
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.return
func.func @tiles(%a: memref<3x48xf32>, %b: memref<3x48xf32>, %n: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%t) in (3) {
    %tile = memref.alloc() : memref<48xf32>
    scf.parallel (%i) = (%c0) to (%c48) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<3x48xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %tile[%i] : memref<48xf32>
      scf.reduce
    }
    memref.store %zero, %n[%t] : memref<3xf32>
    scf.for %k = %c0 to %c48 step %c1 {
      %y = memref.load %tile[%k] : memref<48xf32>
      %s = memref.load %n[%t] : memref<3xf32>
      %s1 = arith.addf %s, %y : f32
      memref.store %s1, %n[%t] : memref<3xf32>
    }
    scf.parallel (%j) = (%c0) to (%c48) step (%c1) {
      %y = memref.load %tile[%j] : memref<48xf32>
      %s = memref.load %n[%t] : memref<3xf32>
      %z = arith.divf %y, %s : f32
      memref.store %z, %b[%t, %j] : memref<3x48xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<48xf32>
  }
  return
}

// -----

// A tile whose allocations exceed a block's 48 KiB of static shared memory
// (here 64 KiB) keeps them in one global scratch buffer, a slice per block
// at the block's offset.
// CHECK-LABEL: func.func @big_tiles(
// CHECK: %[[SCRATCH:.*]] = memref.alloc() : memref<131072xi8>
// CHECK: gpu.launch_func @ms_cuda::@big_tiles_0 blocks in (%c2, %{{.*}}, %{{.*}}) threads in (%c256, %{{.*}}, %{{.*}}) args(%[[SCRATCH]] : memref<131072xi8>,
// CHECK: gpu.func @big_tiles_0(%[[S:.*]]: memref<131072xi8>, %{{.*}}: memref<2x16384xf32>) kernel
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[BASE:.*]] = arith.muli %[[BLOCK]], %c65536
// CHECK: %[[AT:.*]] = arith.addi %[[BASE]], %c0
// CHECK: memref.view %[[S]][%[[AT]]][] : memref<131072xi8> to memref<16384xf32>
func.func @big_tiles(%a: memref<2x16384xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 16384 : index
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<16384xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<2x16384xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %tile[%i] : memref<16384xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %j = arith.subi %n, %i : index
      %k = arith.subi %j, %c1 : index
      %y = memref.load %tile[%k] : memref<16384xf32>
      memref.store %y, %a[%t, %i] : memref<2x16384xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<16384xf32>
  }
  return
}

// -----

// Kept one thread per row: two accumulators in one memref (the same
// location combined twice an iteration would be reordered by shared parts).
// CHECK-LABEL: gpu.func @same_memref_0(
// CHECK-SAME: known_block_size = array<i32: 8, 1, 1>
// CHECK-NOT: gpu.all_reduce
func.func @same_memref(%a: memref<8x64xf32>, %s: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %a[%i, %k] : memref<8x64xf32>
      %s0 = memref.load %s[%i] : memref<8xf32>
      %s1 = arith.addf %s0, %x : f32
      memref.store %s1, %s[%i] : memref<8xf32>
      %t0 = memref.load %s[%i] : memref<8xf32>
      %t1 = arith.mulf %t0, %x : f32
      memref.store %t1, %s[%i] : memref<8xf32>
    }
    scf.reduce
  }
  return
}

// -----

// In a tile, a value every thread loads is read before the step that
// overwrites it: a barrier in between.
// CHECK-LABEL: gpu.func @read_then_write_0(
// CHECK: %[[OLD:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<3xf32>
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: arith.mulf %{{.*}}, %[[OLD]]
// CHECK: gpu.barrier
func.func @read_then_write(%a: memref<3x48xf32>, %n: memref<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  scf.forall (%t) in (3) {
    %old = memref.load %n[%t] : memref<3xf32>
    scf.parallel (%i) = (%c0) to (%c48) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<3x48xf32>
      %y = arith.mulf %x, %old : f32
      memref.store %y, %a[%t, %i] : memref<3x48xf32>
      memref.store %y, %n[%t] : memref<3xf32>
      scf.reduce
    }
  }
  return
}

// -----

// In a tile's parallel loop, a sum into the tile's own allocation (a
// product's term loop, a row's max or sum) stays in a register: loaded
// before the loop, carried through it, stored after it. A sum into a
// kernel argument stays in memory (another argument could be the same
// buffer), and so does one whose tile is also read elsewhere in the loop.
// CHECK-LABEL: gpu.func @tile_sums_0(
// CHECK: %[[TILE:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<{{.*}}xi8, #gpu.address_space<workgroup>> to memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK: %[[INIT:.*]] = memref.load %[[TILE]][%[[I:.*]], %[[J:.*]]] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NOT: memref.store
// CHECK: arith.addf %[[ACC]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[SUM]], %[[TILE]][%[[I]], %[[J]]] : memref<4x8xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.load %[[TILE]]
// CHECK-NEXT: memref.load %{{.*}} : memref<2x4xf32>
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store %{{.*}} : memref<2x4xf32>
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NEXT: memref.load %[[TILE]]
// CHECK-NEXT: memref.load %[[TILE]]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: memref.store %{{.*}}, %[[TILE]]
func.func @tile_sums(%a: memref<2x4x16xf32>, %b: memref<2x16x8xf32>, %n: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<4x8xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c8) step (%c1, %c1) {
      scf.for %k = %c0 to %c16 step %c1 {
        %x = memref.load %a[%t, %i, %k] : memref<2x4x16xf32>
        %y = memref.load %b[%t, %k, %j] : memref<2x16x8xf32>
        %acc = memref.load %tile[%i, %j] : memref<4x8xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        memref.store %s, %tile[%i, %j] : memref<4x8xf32>
      }
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.for %j = %c0 to %c8 step %c1 {
        %x = memref.load %tile[%i, %j] : memref<4x8xf32>
        %acc = memref.load %n[%t, %i] : memref<2x4xf32>
        %s = arith.addf %acc, %x : f32
        memref.store %s, %n[%t, %i] : memref<2x4xf32>
      }
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.for %j = %c0 to %c8 step %c1 {
        %x = memref.load %tile[%i, %j] : memref<4x8xf32>
        %acc = memref.load %tile[%i, %c0] : memref<4x8xf32>
        %s = arith.maximumf %acc, %x : f32
        memref.store %s, %tile[%i, %c0] : memref<4x8xf32>
      }
      scf.reduce
    }
    memref.dealloc %tile : memref<4x8xf32>
  }
  return
}

// -----

// Two sums carried at once, each the other's value (a swap): both loads
// become iteration arguments before either store's value is taken. A tile
// also reached through a select (another value that may be it) stays in
// memory, and the tile's allocations stay in global scratch (shared memory
// is another address space, which the select's other operand is not in).
// CHECK-LABEL: gpu.func @two_sums_0(%{{.*}}: memref<512xi8>,
// CHECK: %[[R:.*]]:2 = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (f32, f32) {
// CHECK-NEXT: scf.yield %[[Y]], %[[X]] : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[R]]#0
// CHECK-NEXT: memref.store %[[R]]#1
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 {
// CHECK: memref.store
// CHECK: gpu.barrier
func.func @two_sums(%n: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.forall (%t) in (2) {
    %t1 = memref.alloc() : memref<4xf32>
    %t2 = memref.alloc() : memref<4xf32>
    %t3 = memref.alloc() : memref<4xf32>
    %t4 = memref.alloc() : memref<4xf32>
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.for %k = %c0 to %c16 step %c1 {
        %a = memref.load %t1[%i] : memref<4xf32>
        %b = memref.load %t2[%i] : memref<4xf32>
        memref.store %b, %t1[%i] : memref<4xf32>
        memref.store %a, %t2[%i] : memref<4xf32>
      }
      scf.reduce
    }
    %pick = arith.cmpi eq, %t, %c0 : index
    %either = arith.select %pick, %t3, %t4 : memref<4xf32>
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      scf.for %k = %c0 to %c16 step %c1 {
        %x = memref.load %either[%i] : memref<4xf32>
        %a = memref.load %t3[%i] : memref<4xf32>
        %s = arith.addf %a, %x : f32
        memref.store %s, %t3[%i] : memref<4xf32>
      }
      %r = memref.load %t3[%i] : memref<4xf32>
      memref.store %r, %n[%t, %i] : memref<2x4xf32>
      scf.reduce
    }
  }
  return
}

// -----

// A tile's row reductions over few rows (4 rows, 256 threads) are split:
// 32 adjacent threads share a row (the block's threads over the rows,
// capped at a warp), each summing every 32nd term, and combine their parts
// with xor shuffles; the row's initial value joins last and the row's
// first lane alone stores it. The warps past the rows (threads 128 and up)
// skip the step: their reads of a row would race with its first lane's
// store. A row loop that writes memory keeps a thread per row.
// CHECK-LABEL: gpu.func @split_rows_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: gpu.barrier
// CHECK: %[[ROW:.*]] = arith.divui %[[T]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: %[[BUSY:.*]] = arith.cmpi ult, %[[T]], %c128
// CHECK: scf.if %[[BUSY]] {
// CHECK-NOT: arith.minui
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[%{{.*}}, %[[ROW]]] : memref<2x4xf32>
// CHECK: %[[PART:.*]] = scf.for unsigned %[[K:.*]] = %[[LANE]] to %c64 step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[ROW]], %[[K]]] : memref<4x64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]]
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: %[[O16:.*]], %{{.*}} = gpu.shuffle xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK: %[[P16:.*]] = arith.addf %[[PART]], %[[O16]]
// CHECK: gpu.shuffle xor %[[P16]], %c8_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: %[[O1:.*]], %{{.*}} = gpu.shuffle xor %[[P2:.*]], %c1_i32, %c32_i32
// CHECK: %[[P1:.*]] = arith.addf %[[P2]], %[[O1]]
// CHECK: %[[TOTAL:.*]] = arith.addf %[[INIT]], %[[P1]]
// CHECK: scf.if %[[LEAD]] {
// CHECK-NEXT: memref.store %[[TOTAL]], %{{.*}}[%{{.*}}, %[[ROW]]] : memref<2x4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} {
// CHECK: scf.for
// CHECK: memref.store
// CHECK: gpu.barrier
func.func @split_rows(%a: memref<2x4x64xf32>, %n: memref<2x4xf32>, %m: memref<2x4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<4x64xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
      %x = memref.load %a[%t, %i, %j] : memref<2x4x64xf32>
      memref.store %x, %tile[%i, %j] : memref<4x64xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      %init = memref.load %n[%t, %i] : memref<2x4xf32>
      %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (f32) {
        %x = memref.load %tile[%i, %k] : memref<4x64xf32>
        %s = arith.addf %acc, %x : f32
        scf.yield %s : f32
      }
      memref.store %sum, %n[%t, %i] : memref<2x4xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      %init = memref.load %n[%t, %i] : memref<2x4xf32>
      %sum = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (f32) {
        %x = memref.load %tile[%i, %k] : memref<4x64xf32>
        memref.store %acc, %m[%t, %i, %k] : memref<2x4x64xf32>
        %s = arith.addf %acc, %x : f32
        scf.yield %s : f32
      }
      memref.store %sum, %n[%t, %i] : memref<2x4xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<4x64xf32>
  }
  return
}

// -----

// Rows of 8 terms: 8 threads a row (not 32: no thread without a term), the
// parts combined by three shuffles.
// CHECK-LABEL: gpu.func @short_rows_0(
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: arith.divui %[[T]], %c8
// CHECK: arith.remui %[[T]], %c8
// CHECK-NOT: gpu.shuffle xor %{{.*}}, %c8_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @short_rows(%a: memref<2x4x64xf32>, %n: memref<2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<4x64xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c64) step (%c1, %c1) {
      %x = memref.load %a[%t, %i, %j] : memref<2x4x64xf32>
      memref.store %x, %tile[%i, %j] : memref<4x64xf32>
      scf.reduce
    }
    scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
      %init = memref.load %n[%t, %i] : memref<2x4xf32>
      %max = scf.for %k = %c0 to %c8 step %c1 iter_args(%acc = %init) -> (f32) {
        %x = memref.load %tile[%i, %k] : memref<4x64xf32>
        %m = arith.maximumf %acc, %x : f32
        scf.yield %m : f32
      }
      memref.store %max, %n[%t, %i] : memref<2x4xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<4x64xf32>
  }
  return
}

// -----

// A tile that is one row (a row-wise kernel tiled by rows, as the cuda
// target tiles softmax and norms): a loop of the tile summing into the
// tile's own allocation is carried in a register and shared by the whole
// block, each thread summing every 64th term, gpu.all_reduce combining the
// parts; every thread then has the total, and thread 0 stores it. A loop
// that stores something other than such a sum stays on thread 0.
// CHECK-LABEL: gpu.func @block_sum_0(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[INIT:.*]] = memref.load %[[ACC:.*]][%c0] : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK: %[[PART:.*]] = scf.for unsigned %[[K:.*]] = %[[T]] to %c64 step %{{.*}} iter_args(%[[P:.*]] = %{{.*}}) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[K]]] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[P]], %[[X]]
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: %[[TOTAL:.*]] = gpu.all_reduce add %[[PART]] uniform
// CHECK: %[[SUM:.*]] = arith.addf %[[INIT]], %[[TOTAL]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[SUM]], %[[ACC]][%c0]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c64 step %c1 {
// CHECK: gpu.barrier
func.func @block_sum(%a: memref<2x64xf32>, %b: memref<2x64xf32>, %n: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<64xf32>
    %acc = memref.alloc() : memref<1xf32>
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<2x64xf32>
      %y = arith.addf %x, %x : f32
      memref.store %y, %tile[%i] : memref<64xf32>
      scf.reduce
    }
    memref.store %zero, %acc[%c0] : memref<1xf32>
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %tile[%k] : memref<64xf32>
      %s = memref.load %acc[%c0] : memref<1xf32>
      %s1 = arith.addf %s, %x : f32
      memref.store %s1, %acc[%c0] : memref<1xf32>
    }
    scf.for %k = %c0 to %c64 step %c1 {
      %x = memref.load %tile[%k] : memref<64xf32>
      memref.store %x, %n[%t] : memref<2xf32>
    }
    scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
      %x = memref.load %tile[%i] : memref<64xf32>
      %s = memref.load %acc[%c0] : memref<1xf32>
      %y = arith.divf %x, %s : f32
      memref.store %y, %b[%t, %i] : memref<2x64xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<64xf32>
    memref.dealloc %acc : memref<1xf32>
  }
  return
}

// -----

// A tile's product of 8 x 64 outputs on 256 threads: each thread takes its
// 2 outputs (columns j and j + 32 of row i) at once, both sums carried by
// one term loop, so that the two terms' load of a[i, k] is one load after
// CSE (the same indices), and each iteration of the thread has its sum in
// flight beside the other's. A warp still reads 32 adjacent columns of b.
// CHECK-LABEL: gpu.func @jammed_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: %[[J:.*]] = arith.remui %[[T]], %c32
// CHECK: %[[I:.*]] = arith.divui %[[T]], %c32
// CHECK: %[[J2:.*]] = arith.addi %[[J]], %c32
// CHECK: %[[X0:.*]] = memref.load %[[TILE:.*]][%[[I]], %[[J]]]
// CHECK: %[[Y0:.*]] = memref.load %[[TILE]][%[[I]], %[[J2]]]
// CHECK: %[[R:.*]]:2 = scf.for %[[K:.*]] = %c0 to %c16 step %c1 iter_args(%[[X:.*]] = %[[X0]], %[[Y:.*]] = %[[Y0]]) -> (f32, f32) {
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %[[I]], %[[K]]]
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %[[K]], %[[J]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf %[[X]]
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %[[I]], %[[K]]]
// CHECK-NEXT: memref.load %{{.*}}[%{{.*}}, %[[K]], %[[J2]]]
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf %[[Y]]
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[R]]#0, %[[TILE]][%[[I]], %[[J]]]
// CHECK-NEXT: memref.store %[[R]]#1, %[[TILE]][%[[I]], %[[J2]]]
// CHECK-NEXT: gpu.barrier
func.func @jammed(%a: memref<2x8x16xf32>, %b: memref<2x16x64xf32>, %o: memref<2x8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    %tile = memref.alloc() : memref<8x64xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
      memref.store %zero, %tile[%i, %j] : memref<8x64xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
      %init = memref.load %tile[%i, %j] : memref<8x64xf32>
      %sum = scf.for %k = %c0 to %c16 step %c1 iter_args(%acc = %init) -> (f32) {
        %x = memref.load %a[%t, %i, %k] : memref<2x8x16xf32>
        %y = memref.load %b[%t, %k, %j] : memref<2x16x64xf32>
        %p = arith.mulf %x, %y : f32
        %s = arith.addf %acc, %p : f32
        scf.yield %s : f32
      }
      memref.store %sum, %tile[%i, %j] : memref<8x64xf32>
      scf.reduce
    }
    scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c64) step (%c1, %c1) {
      %x = memref.load %tile[%i, %j] : memref<8x64xf32>
      memref.store %x, %o[%t, %i, %j] : memref<2x8x64xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<8x64xf32>
  }
  return
}

// -----

// A sequential loop of parallel steps in a tile (flash attention's loop
// over key blocks) runs on every thread of the block, its steps shared and
// separated by barriers like the tile's; its allocation reuses one slice
// per iteration.
// CHECK-LABEL: gpu.func @key_blocks_0(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 {
// CHECK: memref.view
// CHECK: scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} {
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %{{.*}} step %{{.*}} {
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.return
func.func @key_blocks(%k: memref<2x4x16xf32>, %o: memref<2x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  scf.forall (%t) in (2) {
    scf.for %b = %c0 to %c4 step %c1 {
      %s = memref.alloc() : memref<16xf32>
      scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
        %x = memref.load %k[%t, %b, %i] : memref<2x4x16xf32>
        %y = arith.mulf %x, %x : f32
        memref.store %y, %s[%i] : memref<16xf32>
        scf.reduce
      }
      scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
        %y = memref.load %s[%i] : memref<16xf32>
        %acc = memref.load %o[%t, %i] : memref<2x16xf32>
        %z = arith.addf %acc, %y : f32
        memref.store %z, %o[%t, %i] : memref<2x16xf32>
        scf.reduce
      }
      memref.dealloc %s : memref<16xf32>
    }
  }
  return
}

// -----

// A sequential loop in a tile whose parallel loop cannot be shared (it has
// reductions) runs on thread 0; the tile is still a block.
// CHECK-LABEL: gpu.func @serial_in_tile_0(
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>, known_grid_size = array<i32: 2, 1, 1>
// CHECK: %[[T:.*]] = gpu.thread_id x
// CHECK: scf.for %{{.*}} = %[[T]] to
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[T]]
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: scf.for
// CHECK: scf.parallel
// CHECK: gpu.barrier
func.func @serial_in_tile(%a: memref<2x16xf32>, %o: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  scf.forall (%t) in (2) {
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<2x16xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %a[%t, %i] : memref<2x16xf32>
      scf.reduce
    }
    scf.for %b = %c0 to %c4 step %c1 {
      %sum = scf.parallel (%i) = (%c0) to (%c16) step (%c1) init (%zero) -> f32 {
        %x = memref.load %a[%t, %i] : memref<2x16xf32>
        scf.reduce(%x : f32) {
        ^bb0(%l: f32, %r: f32):
          %s = arith.addf %l, %r : f32
          scf.reduce.return %s : f32
        }
      }
      memref.store %sum, %o[%t] : memref<2xf32>
    }
  }
  return
}

// -----

// A launch already written (ms-cuda-tile-matmul's) is one launch as it is:
// its ids become the function's, its workgroup buffers the function's, what
// it uses from the kernel is passed (memrefs) or cloned in (constants).
// The blocks it asks to have resident (ms.min_blocks_per_sm) become
// nvvm.minctasm.
// CHECK-LABEL: func.func @written(
// CHECK-SAME: %[[A:.*]]: memref<512xf32>
// CHECK: gpu.launch_func @ms_cuda::@written_0 blocks in (%[[TWO_BLOCKS:.*]], %[[ONE:.*]], %[[ONE]]) threads in (%[[THREADS:.*]], %[[ONE]], %[[ONE]]) args(%[[A]] : memref<512xf32>)
// CHECK-NOT: gpu.launch
// CHECK-LABEL: gpu.func @written_0(
// CHECK-SAME: %[[P:.*]]: memref<512xf32>) workgroup(%[[S:.*]] : memref<256xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 2, 1, 1>, nvvm.minctasm = 2 : i32
// CHECK-DAG: %[[B:.*]] = gpu.block_id x
// CHECK-DAG: %[[T:.*]] = gpu.thread_id x
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.0
// CHECK: %[[OFF:.*]] = arith.muli %[[B]], %{{.*}}
// CHECK: %[[I:.*]] = arith.addi %[[OFF]], %[[T]]
// CHECK: %[[X:.*]] = memref.load %[[P]][%[[I]]]
// CHECK: memref.store %{{.*}}, %[[S]][%[[T]]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[S]]
// CHECK: arith.mulf %{{.*}}, %[[TWO]]
// CHECK: gpu.return
func.func @written(%a: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c255 = arith.constant 255 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<256xf32, #gpu.address_space<workgroup>>) {
    %off = arith.muli %bx, %sx : index
    %i = arith.addi %off, %tx : index
    %x = memref.load %a[%i] : memref<512xf32>
    memref.store %x, %s[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %j = arith.subi %c255, %tx : index
    %y = memref.load %s[%j] : memref<256xf32, #gpu.address_space<workgroup>>
    %z = arith.mulf %y, %two : f32
    memref.store %z, %a[%i] : memref<512xf32>
    gpu.terminator
  } {ms.min_blocks_per_sm = 2 : i32}
  return
}

// -----

// A TMA tensor map a written launch uses stays on the host and is passed as
// a pointer, cast back to the map in the function.
// CHECK-LABEL: func.func @written_tensor_map(
// CHECK: %[[MAP:.*]] = nvgpu.tma.create.descriptor
// CHECK: %[[PTR:.*]] = builtin.unrealized_conversion_cast %[[MAP]] : !nvgpu.tensormap.descriptor<{{.*}}> to !llvm.ptr
// CHECK: gpu.launch_func @ms_cuda::@written_tensor_map_0 blocks in ({{.*}}) threads in ({{.*}}) args(%[[PTR]] : !llvm.ptr)
// CHECK-LABEL: gpu.func @written_tensor_map_0(
// CHECK-SAME: %[[P:.*]]: !llvm.ptr) workgroup(%[[S:.*]] : memref<16x8xf16, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// CHECK: %[[BACK:.*]] = builtin.unrealized_conversion_cast %[[P]] : !llvm.ptr to !nvgpu.tensormap.descriptor
// CHECK: nvgpu.tma.async.load %[[BACK]]
!map = !nvgpu.tensormap.descriptor<tensor = memref<16x8xf16, #gpu.address_space<workgroup>>, swizzle = none, l2promo = none, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
func.func @written_tensor_map(%a: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %cast = memref.cast %a : memref<64x64xf16> to memref<*xf16>
  %map = nvgpu.tma.create.descriptor %cast box[%c16, %c8] : memref<*xf16> -> !map
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%s : memref<16x8xf16, #gpu.address_space<workgroup>>) {
    %bars = nvgpu.mbarrier.create -> !bars
    nvgpu.tma.async.load %map[%c0, %c0], %bars[%c0] to %s : !map, !bars -> memref<16x8xf16, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A written launch's constant dynamic shared memory goes to its launch; the
// function takes the memory as written.
// CHECK-LABEL: func.func @written_shared(
// CHECK: arith.constant 65536 : i32
// CHECK: %[[BYTES:.*]] = arith.constant 65536 : i32
// CHECK-NEXT: gpu.launch_func @ms_cuda::@written_shared_0 blocks in ({{.*}}) threads in ({{.*}}) dynamic_shared_memory_size %[[BYTES]] args(
// CHECK-LABEL: gpu.func @written_shared_0(
// CHECK: %[[MEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view %[[MEM]]
func.func @written_shared(%a: memref<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %bytes = arith.constant 65536 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %bytes {
    %mem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %s = memref.view %mem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf32, #gpu.address_space<workgroup>>
    %x = memref.load %a[%tx] : memref<256xf32>
    memref.store %x, %s[%tx] : memref<16384xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

func.func @written_dynamic(%a: memref<512xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{expected a synchronous launch of constant x-only grid and block sizes and dynamic shared memory size in one block}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

func.func @too_many_tiles(%a: memref<2147483648x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{expected at most 2^31 - 1 tiles, but the loop has 2147483648}}
  scf.forall (%t) in (2147483648) {
    scf.parallel (%i) = (%c0) to (%c32) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<2147483648x32xf32>
      memref.store %x, %a[%t, %i] : memref<2147483648x32xf32>
      scf.reduce
    }
  }
  return
}

// -----

// 128-bit accesses: a thread takes four adjacent elements of a row (f32:
// 16 bytes), 256 of 1024 a block, no bounds check. Reads along the row are
// vector loads, a row-invariant scalar is broadcast, the ops run on
// vectors, the f16 result is stored 8 bytes at a time.
// CHECK-LABEL: gpu.func @vectors_0(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 1, 1, 1>
// CHECK-NOT: scf.if
// CHECK: %[[J:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%[[I:.*]], %[[J]]] {alignment = 16 : i64} : memref<4x256xf32>, vector<4xf32>
// CHECK: %[[B:.*]] = vector.load %{{.*}}[%[[J]]] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[X]], %[[B]] : vector<4xf32>
// CHECK: %[[S:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[SUM]], %[[SPLAT]] : vector<4xf32>
// CHECK: %[[E:.*]] = math.exp %[[SCALED]] : vector<4xf32>
// CHECK: %[[H:.*]] = arith.truncf %[[E]] : vector<4xf32> to vector<4xf16>
// CHECK: vector.store %[[H]], %{{.*}}[%[[I]], %[[J]]] {alignment = 8 : i64} : memref<4x256xf16>, vector<4xf16>
func.func @vectors(%a: memref<4x256xf32>, %bias: memref<256xf32>,
                   %s: memref<f32>, %out: memref<4x256xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c256) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x256xf32>
    %b = memref.load %bias[%j] : memref<256xf32>
    %sum = arith.addf %x, %b : f32
    %scale = memref.load %s[] : memref<f32>
    %y = arith.mulf %sum, %scale : f32
    %e = math.exp %y : f32
    %h = arith.truncf %e : f32 to f16
    memref.store %h, %out[%i, %j] : memref<4x256xf16>
    scf.reduce
  }
  return
}

// -----

// 16-bit elements go eight at a time; a row of 250 f32 two at a time (8
// bytes: 250 is no multiple of 4), a constant stored as a broadcast.
// CHECK-LABEL: gpu.func @halves_0(
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x64xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<2x64xf16>, vector<8xf16>
// CHECK-LABEL: gpu.func @halves_1(
// CHECK-SAME: known_block_size = array<i32: 250, 1, 1>
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[ONE]] : f32 to vector<2xf32>
// CHECK: vector.store %[[SPLAT]], %{{.*}} {alignment = 8 : i64} : memref<2x250xf32>, vector<2xf32>
func.func @halves(%a: memref<2x64xf16>, %b: memref<2x250xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c250 = arith.constant 250 : index
  %one = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c64) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<2x64xf16>
    %y = arith.negf %x : f16
    memref.store %y, %a[%i, %j] : memref<2x64xf16>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c2, %c250) step (%c1, %c1) {
    memref.store %one, %b[%i, %j] : memref<2x250xf32>
    scf.reduce
  }
  return
}

// -----

// No vectors where a group of elements could be misaligned or is not
// adjacent: a read across the rows (a transpose), a view at an odd offset,
// a view shifting bytes, booleans.
// CHECK-LABEL: gpu.func @scalars_0(
// CHECK-NOT: vector.
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @scalars_1(
// CHECK-NOT: vector.
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @scalars_2(
// CHECK-NOT: vector.
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @scalars_3(
// CHECK-NOT: vector.
// CHECK: gpu.return
func.func @scalars(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %raw: memref<1024xi8>,
                   %p: memref<8x8xi1>, %q: memref<8x8xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %a[%j, %i] : memref<8x8xf32>
    memref.store %x, %b[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  %shifted = memref.subview %a[0, 1] [8, 4] [1, 1] : memref<8x8xf32> to memref<8x4xf32, strided<[8, 1], offset: 1>>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c4) step (%c1, %c1) {
    %x = memref.load %shifted[%i, %j] : memref<8x4xf32, strided<[8, 1], offset: 1>>
    memref.store %x, %b[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  %view = memref.view %raw[%c4][] : memref<1024xi8> to memref<8x8xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %view[%i, %j] : memref<8x8xf32>
    memref.store %x, %b[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %x = memref.load %p[%i, %j] : memref<8x8xi1>
    memref.store %x, %q[%i, %j] : memref<8x8xi1>
    scf.reduce
  }
  return
}

// -----

// The innermost index taken as a value is the group's indices, a vector
// (first + [0, 4)): cast to i32 and stored, or compared (a causal mask).
// CHECK-LABEL: gpu.func @indices_0(
// CHECK: %[[J:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[STEPS:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK: %[[FIRST:.*]] = vector.broadcast %[[J]] : index to vector<4xindex>
// CHECK: %[[JS:.*]] = arith.addi %[[FIRST]], %[[STEPS]] : vector<4xindex>
// CHECK: %[[V:.*]] = arith.index_cast %[[JS]] : vector<4xindex> to vector<4xi32>
// CHECK: vector.store %[[V]], %{{.*}}[%{{.*}}, %[[J]]] {alignment = 16 : i64} : memref<8x8xi32>, vector<4xi32>
// CHECK-LABEL: gpu.func @indices_1(
// CHECK: %[[I:.*]] = arith.divui
// CHECK: %[[J:.*]] = arith.muli %{{.*}}, %c4 : index
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<8x8xf32>, vector<4xf32>
// CHECK: %[[FIRST:.*]] = vector.broadcast %[[J]] : index to vector<4xindex>
// CHECK: %[[JS:.*]] = arith.addi %[[FIRST]], %{{.*}} : vector<4xindex>
// CHECK: %[[IS:.*]] = vector.broadcast %[[I]] : index to vector<4xindex>
// CHECK: %[[KEEP:.*]] = arith.cmpi uge, %[[IS]], %[[JS]] : vector<4xindex>
// CHECK: %[[M:.*]] = arith.select %[[KEEP]], %[[X]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: vector.store %[[M]], %{{.*}}[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<8x8xf32>, vector<4xf32>
func.func @indices(%n: memref<8x8xi32>, %x: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %ninf = arith.constant 0xFF800000 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %v = arith.index_cast %j : index to i32
    memref.store %v, %n[%i, %j] : memref<8x8xi32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
    %a = memref.load %x[%i, %j] : memref<8x8xf32>
    %keep = arith.cmpi uge, %i, %j : index
    %m = arith.select %keep, %a, %ninf : f32
    memref.store %m, %x[%i, %j] : memref<8x8xf32>
    scf.reduce
  }
  return
}

// -----

// The group's indices start at its first (a lower bound of 4 included). An
// index computed from the induction variable and used to index a load
// (a read shifted by one) keeps one element a thread.
// CHECK-LABEL: gpu.func @shifted_0(
// CHECK: %[[J:.*]] = arith.addi %{{.*}}, %c4{{.*}} : index
// CHECK: %[[FIRST:.*]] = vector.broadcast %[[J]] : index to vector<4xindex>
// CHECK: %[[JS:.*]] = arith.addi %[[FIRST]], %{{.*}} : vector<4xindex>
// CHECK: arith.index_cast %[[JS]] : vector<4xindex> to vector<4xi32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %[[J]]] {alignment = 16 : i64} : memref<8x16xi32>, vector<4xi32>
// CHECK-LABEL: gpu.func @shifted_1(
// CHECK-NOT: vector.
// CHECK: gpu.return
func.func @shifted(%n: memref<8x16xi32>, %x: memref<8x17xf32>, %y: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c12 = arith.constant 12 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i, %j) = (%c0, %c4) to (%c8, %c12) step (%c1, %c1) {
    %v = arith.index_cast %j : index to i32
    memref.store %v, %n[%i, %j] : memref<8x16xi32>
    scf.reduce
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c16) step (%c1, %c1) {
    %k = arith.addi %j, %c1 : index
    %a = memref.load %x[%i, %k] : memref<8x17xf32>
    memref.store %a, %y[%i, %j] : memref<8x16xf32>
    scf.reduce
  }
  return
}

// -----

// A constant's alignment bounds its vectors: 64 bytes (as bufferization
// gives constants) allows four f32, none (4 bytes) keeps one.
// CHECK-LABEL: gpu.func @globals_0(
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<8xf32>, vector<4xf32>
// CHECK-LABEL: gpu.func @globals_1(
// CHECK-NOT: vector.load
// CHECK: gpu.return
memref.global "private" constant @aligned : memref<8xf32> = dense<1.0> {alignment = 64 : i64}
memref.global "private" constant @unaligned : memref<8xf32> = dense<2.0>
func.func @globals(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.get_global @aligned : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %a[%i] : memref<8xf32>
    memref.store %x, %out[%i] : memref<8xf32>
    scf.reduce
  }
  %u = memref.get_global @unaligned : memref<8xf32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %x = memref.load %u[%i] : memref<8xf32>
    memref.store %x, %out[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

// A tile that a step reads in pairs (vector.load, as a block product reads
// the probabilities of attention) is in shared memory too.
// CHECK-LABEL: func.func @tile_read_in_pairs(
// CHECK: gpu.func @tile_read_in_pairs_0({{.*}}) workgroup(%[[S:.*]] : memref<64xi8, #gpu.address_space<workgroup>>
// CHECK: %[[TILE:.*]] = memref.view %[[S]]
// CHECK: vector.load %[[TILE]][%{{.*}}] : memref<16xf32, #gpu.address_space<workgroup>>, vector<2xf32>
func.func @tile_read_in_pairs(%a: memref<3x16xf32>, %b: memref<3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.forall (%t) in (3) {
    %tile = memref.alloc() : memref<16xf32>
    scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
      %x = memref.load %a[%t, %i] : memref<3x16xf32>
      memref.store %x, %tile[%i] : memref<16xf32>
      scf.reduce
    }
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      %j2 = arith.muli %j, %c2 : index
      %v = vector.load %tile[%j2] : memref<16xf32>, vector<2xf32>
      %s = vector.reduction <add>, %v : vector<2xf32> into f32
      memref.store %s, %b[%t, %j] : memref<3x8xf32>
      scf.reduce
    }
    memref.dealloc %tile : memref<16xf32>
  }
  return
}
