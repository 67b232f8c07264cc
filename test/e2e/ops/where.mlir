// RUN: %check %s --work-dir %t

// REFERENCE: np.where(a0, a1, a2)
func.func @main(%a0: tensor<3x1xi1>, %a1: tensor<4xf32>, %a2: tensor<3x4xf32>) -> (tensor<3x4xf32>) {
  %r = msgraph.where %a0, %a1, %a2 : (tensor<3x1xi1>, tensor<4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
