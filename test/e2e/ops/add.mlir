// RUN: %check %s --work-dir %t

// REFERENCE: a0 + a1
// TOLERANCE: rtol=1e-05 atol=1e-06
func.func @main(%a0: tensor<2x3x4xf32>, %a1: tensor<3x1xf32>) -> (tensor<2x3x4xf32>) {
  %r = msgraph.add %a0, %a1 : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
