
// Verifier errors of msgraph.gelu.

func.func @invalid(%x: tensor<8xf32>) {
  %r = msgraph.gelu %x {approximate = "fast"} : tensor<8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8xi32>) {
  %r = msgraph.gelu %x : tensor<8xi32>
  return
}
