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
