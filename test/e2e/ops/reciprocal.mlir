// RUN: %check %s --work-dir %t

// REFERENCE: 1 / a0
// INPUT 0: rng.uniform(0.1, 2.0, shape)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.reciprocal %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
