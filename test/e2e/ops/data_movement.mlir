// RUN: %check %s --work-dir %t

// REFERENCE: a0.reshape(6, 4)
// REFERENCE: a0.transpose(2, 0, 1)
// REFERENCE: np.concatenate([a0, a1, a0], 0)
// REFERENCE: a1[3:0:-2, 0:3, 1:4:2]
// REFERENCE: np.tile(a0, (1, 2, 1))
func.func @main(%a0: tensor<2x3x4xf32>, %a1: tensor<4x3x4xf32>) -> (tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<8x3x4xf32>, tensor<2x3x2xf32>, tensor<2x6x4xf32>) {
  %r = msgraph.reshape %a0 : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %s = msgraph.transpose %a0 {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %u = msgraph.concat %a0, %a1, %a0 {axis = 0 : i64} : (tensor<2x3x4xf32>, tensor<4x3x4xf32>, tensor<2x3x4xf32>) -> tensor<8x3x4xf32>
  %v = msgraph.slice %a1 {starts = array<i64: 3, 0, 1>, ends = array<i64: 0, 3, 4>, steps = array<i64: -2, 1, 2>} : (tensor<4x3x4xf32>) -> tensor<2x3x2xf32>
  %w = msgraph.tile %a0 {repeats = array<i64: 1, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x6x4xf32>
  return %r, %s, %u, %v, %w : tensor<6x4xf32>, tensor<4x2x3xf32>, tensor<8x3x4xf32>, tensor<2x3x2xf32>, tensor<2x6x4xf32>
}
