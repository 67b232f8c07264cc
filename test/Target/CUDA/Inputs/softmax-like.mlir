func.func @main(%x: tensor<4x300xf32>, %g: tensor<300xf32>) -> tensor<4x300xf32> {
  %m = msgraph.reduce_mean %x {axes = array<i64: 1>} : (tensor<4x300xf32>) -> tensor<4x1xf32>
  %d = msgraph.sub %x, %m : (tensor<4x300xf32>, tensor<4x1xf32>) -> tensor<4x300xf32>
  %e = msgraph.exp %d : tensor<4x300xf32>
  %r = msgraph.mul %e, %g : (tensor<4x300xf32>, tensor<300xf32>) -> tensor<4x300xf32>
  return %r : tensor<4x300xf32>
}
