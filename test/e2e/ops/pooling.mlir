// RUN: %check %s --work-dir %t

// REFERENCE: pool(a0, 'max', [3, 3], [2, 2], [1, 1, 1, 1])
// REFERENCE: pool(a0, 'avg', [3, 3], [2, 2], [1, 1, 1, 1])
// REFERENCE: pool(a0, 'avg', [2, 2], [2, 2], [1, 0, 1, 0], ceil_mode=True, count_include_pad=True)
// REFERENCE: pool(a0, 'max', [2, 2], [2, 2], None, [2, 2], ceil_mode=True)
// TOLERANCE: rtol=1e-05 atol=1e-06
func.func @main(%a0: tensor<1x3x7x7xf32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x3x3xf32>) {
  %r = msgraph.max_pool %a0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %s = msgraph.avg_pool %a0 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %u = msgraph.avg_pool %a0 {ceil_mode = true, count_include_pad = true, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x4x4xf32>
  %v = msgraph.max_pool %a0 {ceil_mode = true, dilations = array<i64: 2, 2>, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x7x7xf32>) -> tensor<1x3x3x3xf32>
  return %r, %s, %u, %v : tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4x4xf32>, tensor<1x3x3x3xf32>
}
