// RUN: ms-opt %s -ms-cuda-order-loops -split-input-file | FileCheck %s

// A sum over the outer and inner axes: the parallel axis first, then the
// reductions in their order; the maps follow.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func.func @sum_outer_inner(
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "reduction"]}
// CHECK: arith.addf
func.func @sum_outer_inner(%a: memref<2x3x4xf32>, %s: memref<3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>],
                  iterator_types = ["reduction", "parallel", "reduction"]}
      ins(%a : memref<2x3x4xf32>) outs(%s : memref<3xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Already in order (a matmul, a row sum): unchanged, named ops stay named.
// CHECK-LABEL: func.func @in_order(
// CHECK: linalg.matmul
// CHECK: iterator_types = ["parallel", "reduction"]
func.func @in_order(%a: memref<8x16xf32>, %b: memref<16x4xf32>, %c: memref<8x4xf32>, %s: memref<8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x4xf32>) outs(%c : memref<8x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x16xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  }
  return
}

