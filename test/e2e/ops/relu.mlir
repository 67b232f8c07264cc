// RUN: %check %s --work-dir %t

// REFERENCE: np.maximum(a0, 0)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.relu %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
