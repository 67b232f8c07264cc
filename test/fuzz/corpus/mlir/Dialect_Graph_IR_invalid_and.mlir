
// Verifier errors of msgraph.and.

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  %r = msgraph.and %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
