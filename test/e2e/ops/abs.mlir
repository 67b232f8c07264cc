// RUN: %check %s --work-dir %t

// REFERENCE: np.abs(a0)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.abs %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
