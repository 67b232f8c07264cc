// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-pooling-kernels))' | FileCheck %s

// A 3x3 stride-2 max pool on a 9x9 input: one forall iteration per output
// row (n, c, oh), the row of 4 outputs in one vector from the output's
// initial values; per window row (kh, a loop) the input row read whole (9
// elements) and, per window column (kw, unrolled), every second element
// from kw on kept by a shuffle, combined by maximumf on vectors.
// CHECK-LABEL: func @max_pool
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x9x9xf32>, %[[INIT:.+]]: tensor<1x2x4x4xf32>)
// CHECK: scf.forall (%[[N:.+]], %[[C:.+]], %[[OH:.+]]) in (1, 2, 4) shared_outs(%[[O:.+]] = %[[INIT]])
// CHECK: %[[ACC:.+]] = vector.transfer_read %{{.+}} : tensor<1x1x1x4xf32>, vector<4xf32>
// CHECK: scf.for %[[KH:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[A1:.+]] = %[[ACC]]) -> (vector<4xf32>)
// CHECK-NOT: scf.for
// CHECK: %[[ROW:.+]] = vector.transfer_read %[[X]][%[[N]], %[[C]], %{{.+}}, %{{.+}}], %{{.+}} {in_bounds = [true]} : tensor<1x2x9x9xf32>, vector<9xf32>
// CHECK: %[[K0:.+]] = vector.shuffle %[[ROW]], %[[ROW]] [0, 2, 4, 6] : vector<9xf32>, vector<9xf32>
// CHECK: %[[M0:.+]] = arith.maximumf %[[A1]], %[[K0]] : vector<4xf32>
// CHECK: %[[ROW1:.+]] = vector.transfer_read %[[X]]
// CHECK: %[[K1:.+]] = vector.shuffle %[[ROW1]], %[[ROW1]] [1, 3, 5, 7]
// CHECK: %[[M1:.+]] = arith.maximumf %[[M0]], %[[K1]] : vector<4xf32>
// CHECK: %[[ROW2:.+]] = vector.transfer_read %[[X]]
// CHECK: %[[K2:.+]] = vector.shuffle %[[ROW2]], %[[ROW2]] [2, 4, 6, 8]
// CHECK: arith.maximumf %[[M1]], %[[K2]] : vector<4xf32>
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

// -----

// ResNet's max pool: a 3x3 stride-2 window over a -inf padded input into
// an output filled with -inf. The pad is not materialized: the source row
// is read at its row index less the padding, clamped, and replaced by the
// padding row where it is outside; the shuffle picks the padding value
// (index 8 of the second operand) for column -1. The rows start from the
// fill value, and the fill is not needed. A max from a fill combines the
// three input rows whole first (a row of the fill value carried by the kh
// loop), then shuffles each kw's elements out of that once: 3 shuffles
// per output row, not 9.
// CHECK-LABEL: func @padded_max_pool
// CHECK-SAME: (%[[X:.+]]: tensor<1x2x8x8xf32>)
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[EMPTY:.+]] = tensor.empty() : tensor<1x2x4x4xf32>
// CHECK: scf.forall (%{{.+}}, %{{.+}}, %[[OH:.+]]) in (1, 2, 4) shared_outs(%{{.+}} = %[[EMPTY]])
// CHECK: %[[PADROW:.+]] = vector.broadcast %[[NEGINF]] : f32 to vector<8xf32>
// CHECK: %[[ACC:.+]] = vector.broadcast %[[NEGINF]] : f32 to vector<4xf32>
// CHECK: %[[START:.+]] = vector.broadcast %[[NEGINF]] : f32 to vector<8xf32>
// CHECK: %[[ROWS:.+]] = scf.for %{{.+}} iter_args(%[[R:.+]] = %[[START]]) -> (vector<8xf32>)
// CHECK: %[[INSIDE:.+]] = arith.andi
// CHECK: %[[CLAMPED:.+]] = arith.maxsi
// CHECK: %[[READ:.+]] = vector.transfer_read %[[X]][%{{.+}}, %{{.+}}, %[[CLAMPED]], %{{.+}}]{{.*}} : tensor<1x2x8x8xf32>, vector<8xf32>
// CHECK: %[[ROW:.+]] = arith.select %[[INSIDE]], %[[READ]], %[[PADROW]] : vector<8xf32>
// CHECK: arith.maximumf %[[R]], %[[ROW]] : vector<8xf32>
// CHECK-NOT: vector.shuffle
// CHECK: scf.yield
// CHECK: %[[K0:.+]] = vector.shuffle %[[ROWS]], %[[PADROW]] [8, 1, 3, 5] : vector<8xf32>, vector<8xf32>
// CHECK: %[[M0:.+]] = arith.maximumf %[[ACC]], %[[K0]] : vector<4xf32>
// CHECK: %[[K1:.+]] = vector.shuffle %[[ROWS]], %[[PADROW]] [0, 2, 4, 6]
// CHECK: %[[M1:.+]] = arith.maximumf %[[M0]], %[[K1]] : vector<4xf32>
// CHECK: %[[K2:.+]] = vector.shuffle %[[ROWS]], %[[PADROW]] [1, 3, 5, 7]
// CHECK: arith.maximumf %[[M1]], %[[K2]] : vector<4xf32>
// CHECK-NOT: vector.shuffle
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.fill
#pin = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#pwin = affine_map<(n, c, oh, ow, kh, kw) -> (kh, kw)>
#pout = affine_map<(n, c, oh, ow, kh, kw) -> (n, c, oh, ow)>
func.func @padded_max_pool(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x2x8x8xf32> to tensor<1x2x10x10xf32>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %r = linalg.generic {indexing_maps = [#pin, #pwin, #pout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%p, %w : tensor<1x2x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<1x2x4x4xf32>
  return %r : tensor<1x2x4x4xf32>
}
