// RUN: ms-opt %s -ms-serialize-nested-parallel | FileCheck %s

// CHECK-LABEL: func @nested
// CHECK: scf.parallel (%[[I:.+]]) =
// CHECK: scf.for %[[J:.+]] =
// CHECK: scf.for %[[K:.+]] =
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK-NOT: scf.parallel
func.func @nested(%m: memref<4x8x2xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    scf.parallel (%j, %k) = (%c0, %c0) to (%c8, %c2) step (%c1, %c1) {
      memref.store %v, %m[%i, %j, %k] : memref<4x8x2xf32>
    }
  }
  return
}

// With a work threshold, small outermost loops are serialized too; large or
// dynamic ones stay parallel.
// RUN: ms-opt %s -ms-serialize-nested-parallel="min-parallel-work=100" | FileCheck %s --check-prefix=SMALL

// SMALL-LABEL: func @nested
// SMALL-NOT: scf.parallel
// SMALL-LABEL: func @large
// SMALL: scf.parallel
// SMALL-LABEL: func @dynamic
// SMALL: scf.parallel

// Without a threshold, outermost loops stay parallel whatever their size.
// CHECK-LABEL: func @large
// CHECK: scf.parallel
// CHECK-LABEL: func @dynamic
// CHECK: scf.parallel
func.func @large(%m: memref<16x8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %v, %m[%i, %j] : memref<16x8xf32>
    }
  }
  return
}

func.func @dynamic(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}

// With an iteration threshold, an outermost loop keeps parallel only its
// leading dims that give that many iterations (4 x 8 >= 20); the others
// run as scf.for inside. A loop whose every dim is needed, or with a
// dynamic leading dim, stays as it is.
// RUN: ms-opt %s -ms-serialize-nested-parallel="min-parallel-iterations=20" | FileCheck %s --check-prefix=SPLIT

// SPLIT-LABEL: func @split
// SPLIT: scf.parallel (%[[I:.+]], %[[J:.+]]) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %{{.+}}) step
// SPLIT-NEXT: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step
// SPLIT-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
// SPLIT-LABEL: func @needed
// SPLIT: scf.parallel (%{{.+}}, %{{.+}}) =
// SPLIT-NOT: scf.for
// SPLIT-LABEL: func @dynamic_leading
// SPLIT: scf.parallel (%{{.+}}, %{{.+}}) =
// SPLIT-NOT: scf.for
func.func @split(%m: memref<4x8x64xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%c4, %c8, %c64) step (%c1, %c1, %c1) {
    memref.store %v, %m[%i, %j, %k] : memref<4x8x64xf32>
  }
  return
}

func.func @needed(%m: memref<4x4xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<4x4xf32>
  }
  return
}

func.func @dynamic_leading(%m: memref<?x64xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c64) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<?x64xf32>
  }
  return
}
