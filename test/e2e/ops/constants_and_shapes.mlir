// RUN: %check %s --work-dir %t

// REFERENCE: a0 + np.array([[1, 2, 3], [4, 5, 6]], np.float32)
// REFERENCE: np.array([2, 3])
// REFERENCE: np.full((2, 3), 7, np.int32)
// REFERENCE: np.arange(1.5, 4.0, 0.5, dtype=np.float32)
func.func @main(%a0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xi64>, tensor<2x3xi32>, tensor<5xf32>) {
  %c = msgraph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %r = msgraph.add %a0, %c : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = msgraph.shape %a0 : (tensor<2x3xf32>) -> tensor<2xi64>
  %u = msgraph.constant_of_shape %s {value = 7 : i32} : (tensor<2xi64>) -> tensor<2x3xi32>
  %st = msgraph.constant dense<1.5> : tensor<f32>
  %li = msgraph.constant dense<4.0> : tensor<f32>
  %de = msgraph.constant dense<0.5> : tensor<f32>
  %v = msgraph.range %st, %li, %de : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<5xf32>
  return %r, %s, %u, %v : tensor<2x3xf32>, tensor<2xi64>, tensor<2x3xi32>, tensor<5xf32>
}
