// RUN: %check %s --work-dir %t

// REFERENCE: np.log(a0)
// INPUT 0: rng.uniform(0.1, 2.0, shape)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.log %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
