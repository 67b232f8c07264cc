func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.exp %x : tensor<4xf32>
  return %0 : tensor<4x