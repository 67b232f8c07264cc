// RUN: %check %s --work-dir %t

// REFERENCE: sigmoid(a0)
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.sigmoid %a0 : tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
