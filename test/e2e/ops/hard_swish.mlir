// RUN: %check %s --work-dir %t

// REFERENCE: hard_swish(a0)
// INPUT 0: rng.uniform(-5, 5, shape)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.hard_swish %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
