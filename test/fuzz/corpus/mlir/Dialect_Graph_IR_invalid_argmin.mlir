
// Verifier errors of msgraph.argmin.

func.func @invalid(%x: tensor<2x3xf32>) {
  %r = msgraph.argmin %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  %r = msgraph.argmin %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi32>
  return
}
