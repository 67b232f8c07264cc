
// Verifier errors of msgraph.cumsum.

func.func @invalid(%x: tensor<2x8xf32>) {
  %r = msgraph.cumsum %x {axis = -3 : i64} : tensor<2x8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<f32>) {
  %r = msgraph.cumsum %x {axis = 0 : i64} : tensor<f32>
  return
}

// -----

func.func @invalid(%x: tensor<4xi1>) {
  %r = msgraph.cumsum %x {axis = 0 : i64} : tensor<4xi1>
  return
}

// -----

func.func @invalid(%x: tensor<4xf32>) {
  %r = "msgraph.cumsum"(%x) {axis = 0 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  return
}
