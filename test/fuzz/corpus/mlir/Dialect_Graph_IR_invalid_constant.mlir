
// Verifier errors of msgraph.constant.

func.func @invalid() {
  %r = "msgraph.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @invalid() {
  %r = "msgraph.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}
