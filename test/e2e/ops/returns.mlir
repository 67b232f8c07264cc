// RUN: %check %s --work-dir %t

// Outputs that are an input, a weight, or one value returned twice go through copies.
// REFERENCE: a0
// REFERENCE: np.array([1, 2, 3, 4], np.float32)
// REFERENCE: np.exp(a0)
// REFERENCE: np.exp(a0)
func.func @main(%a0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %c = msgraph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %r = msgraph.exp %a0 : tensor<4xf32>
  return %a0, %c, %r, %r : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
