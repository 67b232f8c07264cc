func.func @main(%x: tensor<4x300xf32>, %g: tensor<300xf32>) -> tensor<4x300xf32> {
  %e = msgraph.exp %x : tensor<4x300xf32>
  %r = msgraph.mul %e, %g : (tensor<4x300xf32>, tensor<300xf32>) -> tensor<4x300xf32>
  return %r : tensor<4x300xf32>
}
