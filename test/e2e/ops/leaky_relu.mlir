// RUN: %check %s --work-dir %t

// REFERENCE: leaky_relu(a0, 0.2)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.leaky_relu %a0 {alpha = 0.2 : f32} : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
