// RUN: ms-opt %s -ms-lower-memref-copies -allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func @strided_copy
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: memref<4xf32, strided<[2]>>, %[[B:[a-zA-Z0-9_]+]]: memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[A]] : memref<4xf32, strided<[2]>>) outs(%[[B]] : memref<4xf32>)
func.func @strided_copy(%a: memref<4xf32, strided<[2]>>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32, strided<[2]>> to memref<4xf32>
  return
}

// A zero tile filled once before a loop and copied into a fresh tile at
// every iteration (as bufferization leaves attention's scores): each copy
// fills the fresh tile instead, and the zero tile goes.
// CHECK-LABEL: func @copy_of_a_fill
// CHECK-SAME: %[[N:[a-zA-Z0-9_]+]]: index
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK-NEXT: %[[TILE:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: linalg.fill ins(%[[ZERO]] : f32) outs(%[[TILE]] : memref<4x8xf32>)
// CHECK-NEXT: "test.use"(%[[TILE]])
// CHECK-NEXT: memref.dealloc %[[TILE]]
// CHECK-NOT: memref.copy
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @copy_of_a_fill(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %zeros = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%zeros : memref<4x8xf32>)
  scf.for %i = %c0 to %n step %c1 {
    %tile = memref.alloc() : memref<4x8xf32>
    memref.copy %zeros, %tile : memref<4x8xf32> to memref<4x8xf32>
    "test.use"(%tile) : (memref<4x8xf32>) -> ()
    memref.dealloc %tile : memref<4x8xf32>
  }
  memref.dealloc %zeros : memref<4x8xf32>
  return
}

// Copies stay copies where the source holds more than the fill's value: it
// is written again, or read otherwise, or filled only after the copy.
// CHECK-LABEL: func @copies_kept
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: memref<8xf32>, %[[B:[a-zA-Z0-9_]+]]: memref<8xf32>
// CHECK-NOT: outs(%[[A]]
// CHECK-NOT: outs(%[[B]]
// CHECK: linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%[[A]] : memref<8xf32>)
// CHECK-NOT: outs(%[[B]]
// CHECK: linalg.copy ins(%{{.*}} : memref<8xf32, strided<[1]>>) outs(%[[B]] : memref<8xf32>)
// CHECK-NOT: outs(%[[A]]
// CHECK: linalg.copy ins(%{{.*}} : memref<8xf32>) outs(%[[A]] : memref<8xf32>)
// CHECK: return
func.func @copies_kept(%a: memref<8xf32>, %b: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %written = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%written : memref<8xf32>)
  "test.write"(%written) : (memref<8xf32>) -> ()
  memref.copy %written, %a : memref<8xf32> to memref<8xf32>
  %viewed = memref.alloc() : memref<16xf32>
  linalg.fill ins(%zero : f32) outs(%viewed : memref<16xf32>)
  %half = memref.subview %viewed[0] [8] [1] : memref<16xf32> to memref<8xf32, strided<[1]>>
  memref.copy %half, %b : memref<8xf32, strided<[1]>> to memref<8xf32>
  %late = memref.alloc() : memref<8xf32>
  memref.copy %late, %a : memref<8xf32> to memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%late : memref<8xf32>)
  return
}
