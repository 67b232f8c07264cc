
// Verifier errors of msgraph.equal.

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  %r = msgraph.equal %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xi32>) {
  %r = msgraph.equal %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  return
}
