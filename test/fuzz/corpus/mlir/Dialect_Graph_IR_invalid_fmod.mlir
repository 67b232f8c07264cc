
// Verifier errors of msgraph.fmod.

func.func @invalid(%x: tensor<2x3xui8>, %y: tensor<2x4xui8>) {
  %r = msgraph.fmod %x, %y : (tensor<2x3xui8>, tensor<2x4xui8>) -> tensor<2x3xui8>
  return
}

// -----

func.func @invalid(%x: tensor<3xui8>, %y: tensor<3xi1>) {
  %r = msgraph.fmod %x, %y : (tensor<3xui8>, tensor<3xi1>) -> tensor<3xui8>
  return
}

// -----

func.func @invalid(%x: tensor<3xui8>, %y: tensor<3xui8>) {
  %r = msgraph.fmod %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<4xui8>
  return
}
