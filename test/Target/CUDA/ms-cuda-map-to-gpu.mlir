// RUN: ms-opt %s --ms-cuda-map-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// A parallel loop is one launch, 256 threads a block, one iteration a
// thread, with a bounds check (1000 is no multiple of 256); the innermost
// dimension varies fastest. Constants and views are cloned in; parameters
// are the kernel's memrefs.
// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func.func @elementwise(
// CHECK-SAME: %[[A:.*]]: memref<4x250xf32>, %[[B:.*]]: memref<4x250xf32>)
// CHECK: arith.constant 250 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: gpu.launch_func @ms_cuda::@elementwise_0 blocks in (%[[C4]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[A]] : memref<4x250xf32>, %[[B]] : memref<4x250xf32>)
// CHECK-NEXT: return
// CHECK: gpu.module @ms_cuda
// CHECK: gpu.func @elementwise_0(%[[X:.*]]: memref<4x250xf32>, %[[Y:.*]]: memref<4x250xf32>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, known_grid_size = array<i32: 4, 1, 1>}
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
func.func @elementwise(%a: memref<4x250xf32>, %b: memref<4x250xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c250 = arith.constant 250 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c250) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<4x250xf32>
    %y = math.exp %x : f32
    memref.store %y, %b[%i, %j] : memref<4x250xf32>
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
func.func @load_into_loop(%s: memref<f32>, %a: memref<300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c300 = arith.constant 300 : index
  %scale = memref.load %s[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c300) step (%c1) {
    %x = memref.load %a[%i] : memref<300xf32>
    %y = arith.mulf %x, %scale : f32
    memref.store %y, %a[%i] : memref<300xf32>
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
  %huge = arith.constant 1099511627776 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{expected at most 2^31 - 1 blocks of 256 threads, but the loop needs 4294967296}}
  scf.parallel (%i) = (%c0) to (%huge) step (%c1) {
    memref.store %zero, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}
