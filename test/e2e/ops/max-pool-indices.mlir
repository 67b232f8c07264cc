// RUN: %check %s --work-dir %t

// Where each max_pool window's maximum is: row- and column-major flat
// positions over the whole tensor, padding never chosen, the first of equal
// maxima (small integers repeat often), unsigned bytes compared unsigned,
// 1-d and 3-d windows with dilation.
// INPUT 0: rng.integers(-3, 4, shape).astype(np.float32)
// INPUT 1: rng.integers(0, 256, shape)
// INPUT 2: rng.uniform(-1, 1, shape)
// REFERENCE: max_pool_indices(a0, [3, 3], [2, 2], [1, 1, 1, 1])
// REFERENCE: max_pool_indices(a0, [2, 3], [1, 2], [0, 1, 1, 0], column_major=True)
// REFERENCE: max_pool_indices(a1, [3], [2], [1, 1], [2])
// REFERENCE: max_pool_indices(a2, [2, 2, 2], [1, 2, 1])
// TOLERANCE: rtol=0 atol=0
func.func @main(%a0: tensor<2x3x7x6xf32>, %a1: tensor<1x2x9xui8>, %a2: tensor<1x1x3x4x5xf64>)
    -> (tensor<2x3x4x3xi64>, tensor<2x3x7x3xi64>, tensor<1x2x4xi64>, tensor<1x1x2x2x4xi64>) {
  %r = msgraph.max_pool_indices %a0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x7x6xf32>) -> tensor<2x3x4x3xi64>
  %c = msgraph.max_pool_indices %a0 {kernel_shape = array<i64: 2, 3>, pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 1, 2>, column_major = true} : (tensor<2x3x7x6xf32>) -> tensor<2x3x7x3xi64>
  %u = msgraph.max_pool_indices %a1 {kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 2>, dilations = array<i64: 2>} : (tensor<1x2x9xui8>) -> tensor<1x2x4xi64>
  %v = msgraph.max_pool_indices %a2 {kernel_shape = array<i64: 2, 2, 2>, strides = array<i64: 1, 2, 1>} : (tensor<1x1x3x4x5xf64>) -> tensor<1x1x2x2x4xi64>
  return %r, %c, %u, %v : tensor<2x3x4x3xi64>, tensor<2x3x7x3xi64>, tensor<1x2x4xi64>, tensor<1x1x2x2x4xi64>
}
