// RUN: %check %s --work-dir %t

// REFERENCE: np.clip(a0, -0.5, 0.25)
// REFERENCE: np.maximum(a1, -2)
func.func @main(%a0: tensor<3x4xf32>, %a1: tensor<8xi32>) -> (tensor<3x4xf32>, tensor<8xi32>) {
  %r = msgraph.clip %a0 {min = -0.5 : f64, max = 0.25 : f64} : tensor<3x4xf32>
  %s = msgraph.clip %a1 {min = -2.0 : f64} : tensor<8xi32>
  return %r, %s : tensor<3x4xf32>, tensor<8xi32>
}
