
// Verifier errors of msgraph.add.

func.func @invalid(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  %r = msgraph.add %x, %y : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xi1>) {
  %r = msgraph.add %x, %y : (tensor<3xf32>, tensor<3xi1>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  %r = msgraph.add %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf16>) {
  %r = msgraph.add %x, %y : (tensor<3xf32>, tensor<3xf16>) -> tensor<3xf32>
  return
}
