// RUN: %check %s --work-dir %t

// REFERENCE: np.argmax(a0, axis=1)[:, None, :]
// REFERENCE: np.argmin(a1, axis=1)
// REFERENCE: 4 - np.argmax(a1[:, ::-1], axis=1)
// INPUT 1: rng.integers(-2, 3, shape)
func.func @main(%a0: tensor<2x3x4xf32>, %a1: tensor<3x5xi32>) -> (tensor<2x1x4xi64>, tensor<3xi64>, tensor<3xi64>) {
  %r = msgraph.argmax %a0 {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %s = msgraph.argmin %a1 {axis = 1 : i64, keep_dims = false} : (tensor<3x5xi32>) -> tensor<3xi64>
  %u = msgraph.argmax %a1 {axis = 1 : i64, keep_dims = false, select_last_index = true} : (tensor<3x5xi32>) -> tensor<3xi64>
  return %r, %s, %u : tensor<2x1x4xi64>, tensor<3xi64>, tensor<3xi64>
}
