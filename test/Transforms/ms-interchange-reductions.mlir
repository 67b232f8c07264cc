// RUN: ms-opt %s -split-input-file -ms-interchange-reductions | FileCheck %s

// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[C:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func @matmul
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-NOT: ms.interchanged
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// One parallel loop, or a reduction first: nothing to do.
// CHECK-LABEL: func @row_sum
// CHECK: iterator_types = ["parallel", "reduction"]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%a: memref<4x8xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%a : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %acc, %x : f32
    linalg.yield %0 : f32
  }
  return
}
