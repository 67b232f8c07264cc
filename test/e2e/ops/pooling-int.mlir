// RUN: %check %s --work-dir %t

// Max pooling on integers: unsigned bytes above 127 must compare as
// unsigned, negative int32 values as signed, and padding never wins.
// INPUT 0: rng.integers(0, 256, shape)
// INPUT 1: rng.integers(-1000, 1000, shape)
// REFERENCE: pool(a0, 'max', [2, 2], [2, 2])
// REFERENCE: pool(a1, 'max', [3, 3], [2, 2], [1, 1, 1, 1])
// TOLERANCE: rtol=0 atol=0
func.func @main(%a0: tensor<1x2x6x6xui8>, %a1: tensor<2x1x5x5xi32>) -> (tensor<1x2x3x3xui8>, tensor<2x1x3x3xi32>) {
  %r = msgraph.max_pool %a0 {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xui8>) -> tensor<1x2x3x3xui8>
  %s = msgraph.max_pool %a1 {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x1x5x5xi32>) -> tensor<2x1x3x3xi32>
  return %r, %s : tensor<1x2x3x3xui8>, tensor<2x1x3x3xi32>
}
