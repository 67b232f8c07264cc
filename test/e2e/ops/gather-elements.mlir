// RUN: %check %s --work-dir %t

// gather_elements along each axis, with negative indices (counted from the
// end) and indices smaller than the input off the axis.
// INPUT 1: rng.integers(-4, 4, shape)
// INPUT 2: rng.integers(-3, 3, shape)
// REFERENCE: gather_elements(a0, a1, 1)
// REFERENCE: gather_elements(a0, a2, 0)
// TOLERANCE: rtol=0 atol=0
func.func @main(%a0: tensor<3x4x2xf32>, %a1: tensor<2x5x2xi64>, %a2: tensor<4x3x1xi32>) -> (tensor<2x5x2xf32>, tensor<4x3x1xf32>) {
  %r = msgraph.gather_elements %a0, %a1 {axis = 1 : i64} : (tensor<3x4x2xf32>, tensor<2x5x2xi64>) -> tensor<2x5x2xf32>
  %s = msgraph.gather_elements %a0, %a2 {axis = 0 : i64} : (tensor<3x4x2xf32>, tensor<4x3x1xi32>) -> tensor<4x3x1xf32>
  return %r, %s : tensor<2x5x2xf32>, tensor<4x3x1xf32>
}
