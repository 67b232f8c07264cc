// The means of 8 columns of 8M floats (a reduction over the first axis):
// few outputs, each read across rows and split over 66 blocks.
// TORCH: a0.mean(0)
// MOVES: 268435456
func.func @main(%a0: tensor<8388608x8xf32>) -> tensor<8xf32> {
  %m = msgraph.reduce_mean %a0 {axes = array<i64: 0>, keep_dims = false} : (tensor<8388608x8xf32>) -> tensor<8xf32>
  return %m : tensor<8xf32>
}
