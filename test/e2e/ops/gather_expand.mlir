// RUN: %check %s --work-dir %t

// REFERENCE: np.take(a0, a1, axis=0)
// REFERENCE: np.take(a0, a1, axis=1)
// REFERENCE: np.broadcast_to(a2, (2, 3, 4))
// INPUT 1: rng.integers(-3, 3, shape)
func.func @main(%a0: tensor<5x3xf32>, %a1: tensor<2x2xi64>, %a2: tensor<3x1xf32>) -> (tensor<2x2x3xf32>, tensor<5x2x2xf32>, tensor<2x3x4xf32>) {
  %r = msgraph.gather %a0, %a1 : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<2x2x3xf32>
  %s = msgraph.gather %a0, %a1 {axis = 1 : i64} : (tensor<5x3xf32>, tensor<2x2xi64>) -> tensor<5x2x2xf32>
  %u = msgraph.expand %a2 : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %r, %s, %u : tensor<2x2x3xf32>, tensor<5x2x2xf32>, tensor<2x3x4xf32>
}
