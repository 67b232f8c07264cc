
// Verifier errors of msgraph.cast.

func.func @invalid(%x: tensor<4xf32>) {
  %r = msgraph.cast %x : (tensor<4xf32>) -> tensor<5xi32>
  return
}

// -----

func.func @invalid(%x: tensor<4xf32>) {
  %r = msgraph.cast %x : (tensor<4xf32>) -> tensor<4x1xi32>
  return
}

// -----

func.func @invalid(%x: tensor<?x4xf32>) {
  %r = msgraph.cast %x : (tensor<?x4xf32>) -> tensor<?x5xi32>
  return
}
