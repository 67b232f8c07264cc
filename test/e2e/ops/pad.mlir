// RUN: %check %s --work-dir %t

// REFERENCE: np.pad(a0, ((1, 0), (2, 1)), constant_values=2.5)
// REFERENCE: np.pad(a0, ((2, 1), (1, 3)), mode='reflect')
// REFERENCE: np.pad(a0, ((0, 2), (2, 0)), mode='edge')
// REFERENCE: np.pad(a0, ((1, 1), (1, 1)), mode='wrap')
// REFERENCE: np.pad(a0[1:, :2], ((0, 0), (1, 0)))
func.func @main(%a0: tensor<3x4xf32>) -> (tensor<4x7xf32>, tensor<6x8xf32>, tensor<5x6xf32>, tensor<5x6xf32>, tensor<2x3xf32>) {
  %r = msgraph.pad %a0 {pads = array<i64: 1, 2, 0, 1>, value = 2.5 : f64} : (tensor<3x4xf32>) -> tensor<4x7xf32>
  %s = msgraph.pad %a0 {mode = "reflect", pads = array<i64: 2, 1, 1, 3>} : (tensor<3x4xf32>) -> tensor<6x8xf32>
  %u = msgraph.pad %a0 {mode = "edge", pads = array<i64: 0, 2, 2, 0>} : (tensor<3x4xf32>) -> tensor<5x6xf32>
  %v = msgraph.pad %a0 {mode = "wrap", pads = array<i64: 1, 1, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x6xf32>
  %w = msgraph.pad %a0 {pads = array<i64: -1, 1, 0, -2>} : (tensor<3x4xf32>) -> tensor<2x3xf32>
  return %r, %s, %u, %v, %w : tensor<4x7xf32>, tensor<6x8xf32>, tensor<5x6xf32>, tensor<5x6xf32>, tensor<2x3xf32>
}
