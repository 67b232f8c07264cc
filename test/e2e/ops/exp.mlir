// RUN: %check %s --work-dir %t

// REFERENCE: np.exp(a0)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.exp %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
