// The issue-3 benchmark: a 64x1024 -> 4096 -> 1024 GELU MLP. Weights are
// inputs so that the file stays small; ms-run fills them with random data.
func.func @main(%x: tensor<64x1024xf32>, %w1: tensor<1024x4096xf32>, %b1: tensor<4096xf32>,
                %w2: tensor<4096x1024xf32>, %b2: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %h0 = msgraph.matmul %x, %w1 : (tensor<64x1024xf32>, tensor<1024x4096xf32>) -> tensor<64x4096xf32>
  %h1 = msgraph.add %h0, %b1 : (tensor<64x4096xf32>, tensor<4096xf32>) -> tensor<64x4096xf32>
  %h = msgraph.gelu %h1 : tensor<64x4096xf32>
  %o0 = msgraph.matmul %h, %w2 : (tensor<64x4096xf32>, tensor<4096x1024xf32>) -> tensor<64x1024xf32>
  %o = msgraph.add %o0, %b2 : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  return %o : tensor<64x1024xf32>
}
