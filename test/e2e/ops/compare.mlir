// RUN: %check %s --work-dir %t

// REFERENCE: a0 == a1
// REFERENCE: a0 < a1
// REFERENCE: a2 >= a3
// REFERENCE: a2 <= a3
// REFERENCE: a0 > a1
// INPUT 0: rng.integers(-2, 3, shape)
// INPUT 1: rng.integers(-2, 3, shape)
func.func @main(%a0: tensor<3x4xf32>, %a1: tensor<4xf32>, %a2: tensor<5xi64>, %a3: tensor<i64>) -> (tensor<3x4xi1>, tensor<3x4xi1>, tensor<5xi1>, tensor<5xi1>, tensor<3x4xi1>) {
  %r = msgraph.equal %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %s = msgraph.less %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  %u = msgraph.greater_equal %a2, %a3 : (tensor<5xi64>, tensor<i64>) -> tensor<5xi1>
  %v = msgraph.less_equal %a2, %a3 : (tensor<5xi64>, tensor<i64>) -> tensor<5xi1>
  %w = msgraph.greater %a0, %a1 : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xi1>
  return %r, %s, %u, %v, %w : tensor<3x4xi1>, tensor<3x4xi1>, tensor<5xi1>, tensor<5xi1>, tensor<3x4xi1>
}
