
// Verifier errors of msgraph.concat.

func.func @invalid(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x3xf32>) {
  %r = msgraph.concat %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid() {
  %r = msgraph.concat {axis = 0 : i64} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return
}
