// RUN: ms-opt %s -ms-lower-memref-copies | FileCheck %s

// CHECK-LABEL: func @strided_copy
// CHECK-SAME: %[[A:[a-zA-Z0-9_]+]]: memref<4xf32, strided<[2]>>, %[[B:[a-zA-Z0-9_]+]]: memref<4xf32>
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[A]] : memref<4xf32, strided<[2]>>) outs(%[[B]] : memref<4xf32>)
func.func @strided_copy(%a: memref<4xf32, strided<[2]>>, %b: memref<4xf32>) {
  memref.copy %a, %b : memref<4xf32, strided<[2]>> to memref<4xf32>
  return
}
