
// Verifier errors of msgraph.abs.

func.func @invalid(%x: tensor<4xi1>) {
  %r = msgraph.abs %x : tensor<4xi1>
  return
}
