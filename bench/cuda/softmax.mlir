// Softmax over rows of 4096 (a block per row, warp shuffles), 4096 rows.
// TORCH: torch.softmax(a0, -1)
// MOVES: 134217728
func.func @main(%a0: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = msgraph.softmax %a0 : tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}
