// RUN: %check %s --work-dir %t

// REFERENCE: softmax(a0, -1)
// REFERENCE: log_softmax(a0, 1)
// INPUT 0: rng.uniform(-5, 5, shape)
func.func @main(%a0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r = msgraph.softmax %a0 : tensor<2x3x4xf32>
  %s = msgraph.log_softmax %a0 {axis = 1 : i64} : tensor<2x3x4xf32>
  return %r, %s : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
