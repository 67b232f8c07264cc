// RUN: %check %s --work-dir %t

// REFERENCE: a0 @ a1
// REFERENCE: a2 @ a3
// TOLERANCE: rtol=1e-05 atol=1e-05
func.func @main(%a0: tensor<4x8x16xf32>, %a1: tensor<4x16x8xf32>, %a2: tensor<2x1x5x3xi32>, %a3: tensor<4x3x2xi32>) -> (tensor<4x8x8xf32>, tensor<2x4x5x2xi32>) {
  %r = msgraph.matmul %a0, %a1 : (tensor<4x8x16xf32>, tensor<4x16x8xf32>) -> tensor<4x8x8xf32>
  %s = msgraph.matmul %a2, %a3 : (tensor<2x1x5x3xi32>, tensor<4x3x2xi32>) -> tensor<2x4x5x2xi32>
  return %r, %s : tensor<4x8x8xf32>, tensor<2x4x5x2xi32>
}
