
// Verifier errors of msgraph.ceil.

func.func @invalid(%x: tensor<4xi32>) {
  %r = msgraph.ceil %x : tensor<4xi32>
  return
}

// -----

func.func @invalid(%x: tensor<4xf32>) {
  %r = "msgraph.ceil"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return
}
