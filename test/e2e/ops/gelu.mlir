// RUN: %check %s --work-dir %t

// REFERENCE: gelu(a0)
// REFERENCE: gelu(a0, 'tanh')
// INPUT 0: rng.uniform(-4, 4, shape)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %r = msgraph.gelu %a0 : tensor<3x4xf32>
  %s = msgraph.gelu %a0 {approximate = "tanh"} : tensor<3x4xf32>
  return %r, %s : tensor<3x4xf32>, tensor<3x4xf32>
}
