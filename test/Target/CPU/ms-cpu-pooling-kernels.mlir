// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-pooling-kernels))' | FileCheck %s

// A 3x3 stride-2 max pool on a padded 9x9 input (as msgraph.max_pool
// lowers it): one forall iteration per output row (n, c, oh), the row of 4
// outputs in one vector from the output's initial values; per window
// position the input row read whole from its first needed element (7
// elements), every second kept, combined by maximumf on vectors.
// CHECK-LABEL: func @max_pool
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x9x9xf32>, %[[INIT:.+]]: tensor<1x2x4x4xf32>)
// CHECK: scf.forall (%[[N:.+]], %[[C:.+]], %[[OH:.+]]) in (1, 2, 4) shared_outs(%[[O:.+]] = %[[INIT]])
// CHECK: %[[ACC:.+]] = vector.transfer_read %{{.+}} : tensor<1x1x1x4xf32>, vector<4xf32>
// CHECK: scf.for %[[KH:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A1:.+]] = %[[ACC]]) -> (vector<4xf32>)
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A2:.+]] = %[[A1]]) -> (vector<4xf32>)
// CHECK: %[[ROW:.+]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<1x2x9x9xf32>, vector<7xf32>
// CHECK: %[[EVEN:.+]] = vector.shuffle %[[ROW]], %[[ROW]] [0, 2, 4, 6] : vector<7xf32>, vector<7xf32>
// CHECK: arith.maximumf %[[A2]], %[[EVEN]] : vector<4xf32>
// CHECK: vector.transfer_write
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
#in = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#win = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#out = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @max_pool(%x: tensor<1x2x9x9xf32>, %init: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<1x2x9x9xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}

// -----

// A sum over the rows of a matrix (the output's one loop read contiguous,
// stride 1): one vector of 8 sums, one row added per step.
// CHECK-LABEL: func @column_sum
// CHECK: scf.forall () in () shared_outs
// CHECK: scf.for
// CHECK: vector.transfer_read %{{.+}} : tensor<5x8xf32>, vector<8xf32>
// CHECK-NOT: vector.shuffle
// CHECK: arith.addf %{{.+}}, %{{.+}} : vector<8xf32>
#cin = affine_map<(j, i) -> (i, j)>
#cout = affine_map<(j, i) -> (j)>
func.func @column_sum(%x: tensor<5x8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [#cin, #cout], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<5x8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Left alone: a body of two ops (a sum of squares); a row reduction (the
// reduced loop is the input's last dim, the output's last loop is not).
// CHECK-LABEL: func @not_pooling
// CHECK-NOT: scf.forall
// CHECK-COUNT-2: linalg.generic
#rin = affine_map<(i, j) -> (i, j)>
#rout = affine_map<(i, j) -> (i)>
func.func @not_pooling(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sq = linalg.generic {indexing_maps = [#rin, #rout], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %m = linalg.generic {indexing_maps = [#rin, #rout], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sq, %m : tensor<4xf32>, tensor<4xf32>
}
