// RUN: %check %s --work-dir %t
// Reductions too long or too few for one thread per output, which the
// cuda target shares among the threads of blocks (ms-cuda-map-to-gpu): a
// whole-tensor sum of 150,000 elements and a minimum over a 3-D nest of
// 60,000 (split over 37 and 15 blocks, a second launch combining their
// totals); 3 rows of 50,000 (13 blocks a row); means of 5 columns of
// 20,000 (5 blocks a column, read across rows); a global average pool
// over 7 x 7 for 600 channels (a block per channel); integer sums of all
// 12,288 elements; sums of 300 columns of 3,000 (a thread per column and
// chunk of 64 rows, a second launch adding the 47 chunks' totals); a
// product of a matrix and a column (a block per output, the column's
// dimension of one element ignored).
// INPUT 4: rng.integers(-50, 50, shape)
// REFERENCE: np.sum(a0.astype(np.float64))
// REFERENCE: np.min(a1)
// REFERENCE: np.max(a2, axis=1)
// REFERENCE: np.mean(a3.astype(np.float64), axis=0)
// REFERENCE: np.mean(a5.astype(np.float64), axis=(2, 3))
// REFERENCE: np.sum(a4).astype(np.int32)
// REFERENCE: np.sum(a6.astype(np.float64), axis=0)
// REFERENCE: a7.astype(np.float64) @ a8.astype(np.float64)
// TOLERANCE: rtol=1e-4 atol=1e-3
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (the product on the cube takes fp16 inputs: docs/NPU.md)
func.func @main(%a0: tensor<300x500xf32>, %a1: tensor<40x30x50xf32>,
                %a2: tensor<3x50000xf32>, %a3: tensor<20000x5xf32>,
                %a4: tensor<3x4096xi32>, %a5: tensor<2x300x7x7xf32>,
                %a6: tensor<3000x300xf32>, %a7: tensor<300x512xf32>,
                %a8: tensor<512x1xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<3xf32>, tensor<5xf32>,
        tensor<2x300xf32>, tensor<i32>, tensor<300xf32>,
        tensor<300x1xf32>) {
  %s = msgraph.reduce_sum %a0 {axes = array<i64>, keep_dims = false} : (tensor<300x500xf32>) -> tensor<f32>
  %m = msgraph.reduce_min %a1 {axes = array<i64>, keep_dims = false} : (tensor<40x30x50xf32>) -> tensor<f32>
  %r = msgraph.reduce_max %a2 {axes = array<i64: 1>, keep_dims = false} : (tensor<3x50000xf32>) -> tensor<3xf32>
  %c = msgraph.reduce_mean %a3 {axes = array<i64: 0>, keep_dims = false} : (tensor<20000x5xf32>) -> tensor<5xf32>
  %p = msgraph.reduce_mean %a5 {axes = array<i64: 2, 3>, keep_dims = false} : (tensor<2x300x7x7xf32>) -> tensor<2x300xf32>
  %i = msgraph.reduce_sum %a4 {axes = array<i64>, keep_dims = false} : (tensor<3x4096xi32>) -> tensor<i32>
  %k = msgraph.reduce_sum %a6 {axes = array<i64: 0>, keep_dims = false} : (tensor<3000x300xf32>) -> tensor<300xf32>
  %v = msgraph.matmul %a7, %a8 : (tensor<300x512xf32>, tensor<512x1xf32>) -> tensor<300x1xf32>
  return %s, %m, %r, %c, %p, %i, %k, %v : tensor<f32>, tensor<f32>, tensor<3xf32>, tensor<5xf32>, tensor<2x300xf32>, tensor<i32>, tensor<300xf32>, tensor<300x1xf32>
}
