// Layer normalization of 8192 rows of 1024 (BERT-large's width).
// TORCH: torch.nn.functional.layer_norm(a0, (1024,), a1, a2)
// MOVES: 67108864
func.func @main(%a0: tensor<8192x1024xf32>, %a1: tensor<1024xf32>, %a2: tensor<1024xf32>) -> tensor<8192x1024xf32> {
  %r = msgraph.layer_norm %a0, %a1, %a2 : (tensor<8192x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<8192x1024xf32>
  return %r : tensor<8192x1024xf32>
}
