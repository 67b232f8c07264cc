// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-tile-fused-kernels{tile-elements=64}))' | FileCheck %s
// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-tile-fused-kernels{tile-elements=64 row-reductions-only=1 min-tiles=4}))' | FileCheck %s --check-prefix=ROWS
//
// With row-reductions-only (the cuda target) only kernels whose result is
// elementwise over reductions along contiguous rows are tiled: @rows is;
// @columns (a sum down columns), @row_sums (ending in its reduction), the
// kernels without reductions or with a matrix product are not, nor are
// @long_rows' two rows longer than the budget (fewer than min-tiles).
// ROWS-LABEL: func @rows
// ROWS: scf.forall
// ROWS-LABEL: func @columns
// ROWS-NOT: scf.forall
// ROWS-LABEL: func @row_sums
// ROWS-NOT: scf.forall
// ROWS-LABEL: func @long_rows
// ROWS-NOT: scf.forall
// ROWS-LABEL: func @elementwise
// ROWS-NOT: scf.forall
// ROWS-LABEL: func @product
// ROWS-NOT: scf.forall
// ROWS-LABEL: func @both_layouts

// A row-wise reduction and its elementwise producer and consumer: rows are
// tiled (64 elements per tile: 2 rows of 32), every producer is fused into
// the parallel tile loop, and the reduction loop stays whole.
// CHECK-LABEL: func @rows
// CHECK: scf.forall (%[[I:.+]]) = (0) to (16) step (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x32xf32>)
// CHECK: tensor.extract_slice %{{.*}}[%[[I]], 0] [2, 32] [1, 1] : tensor<16x32xf32> to tensor<2x32xf32>
// CHECK: math.exp
// CHECK: linalg.fill {{.*}} -> tensor<2xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%{{.*}} : tensor<2x32xf32>)
// CHECK: arith.divf
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[I]], 0] [2, 32] [1, 1]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @rows(%x: tensor<16x32xf32>) -> tensor<16x32xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.reduce_sum", "msgraph.div"]} {
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<16x32xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %2 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %1 : tensor<16x32xf32>, tensor<16xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.divf %in, %s : f32
    linalg.yield %d : f32
  } -> tensor<16x32xf32>
  return %2 : tensor<16x32xf32>
}

// -----

// A reduction over the leading dimension of its producer: the result's
// columns are tiled (the loop that is parallel in both ops), each tile
// reducing whole columns of the transposed slice.
// CHECK-LABEL: func @columns
// CHECK: scf.forall (%[[J:.+]]) = (0) to (32) step (4)
// CHECK: tensor.extract_slice %{{.*}}[0, %[[J]]] [16, 4] [1, 1] : tensor<16x32xf32> to tensor<16x4xf32>
// CHECK: math.exp
// CHECK: iterator_types = ["parallel", "reduction"]
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d0)>
func.func @columns(%x: tensor<16x32xf32>) -> tensor<32xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.reduce_sum"]} {
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<32xf32>) -> tensor<32xf32>
  %1 = linalg.generic {indexing_maps = [#t, #col], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<16x32xf32>) outs(%init : tensor<32xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %1 : tensor<32xf32>
}

// -----

// A kernel ending in its row sums: tiled by rows where any kernel may be.
// CHECK-LABEL: func @row_sums
// CHECK: scf.forall
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sums(%x: tensor<16x32xf32>) -> tensor<16xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.reduce_sum"]} {
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<16x32xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// Two rows of 128, each longer than the budget: a row a tile, where any
// kernel may be tiled.
// CHECK-LABEL: func @long_rows
// CHECK: scf.forall (%{{.*}}) in (2)
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @long_rows(%x: tensor<2x128xf32>) -> tensor<2x128xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.reduce_max", "msgraph.sub"]} {
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty() : tensor<2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%er : tensor<2xf32>) -> tensor<2xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x128xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %e = tensor.empty() : tensor<2x128xf32>
  %1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %0 : tensor<2x128xf32>, tensor<2xf32>) outs(%e : tensor<2x128xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    linalg.yield %d : f32
  } -> tensor<2x128xf32>
  return %1 : tensor<2x128xf32>
}

// -----

// Elementwise ops only: tiled by rows (64 elements a tile: 4 rows) where any kernel
// may be, left whole with row-reductions-only.
// CHECK-LABEL: func @elementwise
// CHECK: scf.forall (%{{.*}}) = (0) to (16) step (4)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: tensor<16x16xf32>) -> tensor<16x16xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.neg"]} {
  %e = tensor.empty() : tensor<16x16xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<16x16xf32>
  return %1 : tensor<16x16xf32>
}

// -----

// A matrix product with a bias: its reduction loop is read by both
// operands. Tiled by rows where any kernel may be.
// CHECK-LABEL: func @product
// CHECK: scf.forall
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @product(%x: tensor<16x32xf32>, %w: tensor<32x8xf32>) -> tensor<16x8xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.matmul", "msgraph.exp"]} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %0 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<16x32xf32>, tensor<32x8xf32>) outs(%init : tensor<16x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<16x8xf32>) outs(%e : tensor<16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x8xf32>
  return %1 : tensor<16x8xf32>
}

// -----

// A value read both as is and transposed: a tile of rows of the result
// needs all of the producer, so nothing is tiled.
// CHECK-LABEL: func @both_layouts
// CHECK-NOT: scf.forall
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @both_layouts(%x: tensor<32x32xf32>) -> tensor<32x32xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.transpose", "msgraph.add"]} {
  %e = tensor.empty() : tensor<32x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<32x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #t, #id], iterator_types = ["parallel", "parallel"]} ins(%0, %0 : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %v = arith.addf %a, %b : f32
    linalg.yield %v : f32
  } -> tensor<32x32xf32>
  return %1 : tensor<32x32xf32>
}

// -----

// Kernels without msfusion.ops (O0), with two results, or with a reshape
// between their ops (a reshape of an argument is allowed) are left alone.
// CHECK-LABEL: func @kernel_0
// CHECK-NOT: scf.forall
// CHECK-LABEL: func @two_results
// CHECK-NOT: scf.forall
// CHECK-LABEL: func @reshape
// CHECK-NOT: scf.forall
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @kernel_0(%x: tensor<16x32xf32>) -> tensor<16x32xf32> attributes {ms.kernel} {
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}
func.func @two_results(%x: tensor<16x32xf32>) -> (tensor<16x32xf32>, tensor<16x32xf32>) attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.neg"]} {
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  return %0, %1 : tensor<16x32xf32>, tensor<16x32xf32>
}
func.func @reshape(%x: tensor<16x32xf32>) -> tensor<512xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.reshape"]} {
  %e = tensor.empty() : tensor<16x32xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<16x32xf32> into tensor<512xf32>
  return %1 : tensor<512xf32>
}
