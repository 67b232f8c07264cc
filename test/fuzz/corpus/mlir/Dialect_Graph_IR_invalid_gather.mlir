
// Verifier errors of msgraph.gather.

func.func @invalid(%t: tensor<3x4xf32>, %i: tensor<2xi64>) {
  %r = msgraph.gather %t, %i {axis = 2 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @invalid(%t: tensor<3x4xf32>, %i: tensor<2xf32>) {
  %r = msgraph.gather %t, %i : (tensor<3x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid(%t: tensor<3x4xf32>, %i: tensor<2xi64>) {
  %r = msgraph.gather %t, %i : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}
