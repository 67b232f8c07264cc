// The sum of all 64M floats of a tensor: one output, a long reduction
// split over about 528 blocks whose totals a second launch combines.
// TORCH: a0.sum()
// MOVES: 268435456
func.func @main(%a0: tensor<8192x8192xf32>) -> tensor<f32> {
  %s = msgraph.reduce_sum %a0 {axes = array<i64>, keep_dims = false} : (tensor<8192x8192xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
