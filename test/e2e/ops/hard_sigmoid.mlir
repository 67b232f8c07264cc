// RUN: %check %s --work-dir %t

// REFERENCE: hard_sigmoid(a0, 0.3, 0.4)
// INPUT 0: rng.uniform(-4, 4, shape)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.hard_sigmoid %a0 {alpha = 0.3 : f32, beta = 0.4 : f32} : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
