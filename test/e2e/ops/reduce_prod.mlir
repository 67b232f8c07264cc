// RUN: %check %s --work-dir %t

// REFERENCE: np.prod(a0, axis=(0, 2), keepdims=True)
// REFERENCE: np.prod(a0)
// REFERENCE: np.prod(a1, axis=-1).astype(np.int32)
// INPUT 1: rng.integers(-3, 4, shape)
// TOLERANCE: rtol=1e-05 atol=1e-05
func.func @main(%a0: tensor<2x3x4xf32>, %a1: tensor<3x5xi32>) -> (tensor<1x3x1xf32>, tensor<f32>, tensor<3xi32>) {
  %r = msgraph.reduce_prod %a0 {axes = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %s = msgraph.reduce_prod %a0 {axes = array<i64>, keep_dims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %u = msgraph.reduce_prod %a1 {axes = array<i64: -1>, keep_dims = false} : (tensor<3x5xi32>) -> tensor<3xi32>
  return %r, %s, %u : tensor<1x3x1xf32>, tensor<f32>, tensor<3xi32>
}
