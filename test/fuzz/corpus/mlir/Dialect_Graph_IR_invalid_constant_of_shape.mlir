
// Verifier errors of msgraph.constant_of_shape.

func.func @invalid(%s: tensor<3xi64>) {
  %r = msgraph.constant_of_shape %s {value = 0.0 : f32} : (tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid(%s: tensor<2xi64>) {
  %r = msgraph.constant_of_shape %s {value = 0 : i32} : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid(%s: tensor<2xi32>) {
  %r = msgraph.constant_of_shape %s {value = 0.0 : f32} : (tensor<2xi32>) -> tensor<?x?xf32>
  return
}
