
// Verifier errors of msgraph.clip.

func.func @invalid(%x: tensor<8xf32>) {
  %r = msgraph.clip %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8xi1>) {
  %r = msgraph.clip %x : tensor<8xi1>
  return
}
