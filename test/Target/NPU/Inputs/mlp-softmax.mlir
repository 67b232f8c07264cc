func.func @main(%x: tensor<64x128xf32>, %w: tensor<128x96xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  %0 = msgraph.matmul %x, %w : (tensor<64x128xf32>, tensor<128x96xf32>) -> tensor<64x96xf32>
  %1 = msgraph.add %0, %b : (tensor<64x96xf32>, tensor<96xf32>) -> tensor<64x96xf32>
  %2 = msgraph.relu %1 : tensor<64x96xf32>
  %3 = msgraph.softmax %2 {axis = -1 : i64} : tensor<64x96xf32>
  return %3 : tensor<64x96xf32>
}
