// RUN: %check %s --work-dir %t

// REFERENCE: conv_transpose(a0, a1, a2, strides=[2, 2])
// REFERENCE: conv_transpose(a0, a3, strides=[2, 3], pads=[1, 0, 0, 1], output_padding=[1, 0], group=2)
// TOLERANCE: rtol=0.0001 atol=1e-05
func.func @main(%a0: tensor<1x4x3x3xf32>, %a1: tensor<4x2x3x3xf32>, %a2: tensor<2xf32>, %a3: tensor<4x1x2x2xf32>) -> (tensor<1x2x7x7xf32>, tensor<1x2x6x7xf32>) {
  %r = msgraph.conv_transpose %a0, %a1, %a2 {strides = array<i64: 2, 2>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x7x7xf32>
  %s = msgraph.conv_transpose %a0, %a3 {group = 2 : i64, output_padding = array<i64: 1, 0>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 3>} : (tensor<1x4x3x3xf32>, tensor<4x1x2x2xf32>) -> tensor<1x2x6x7xf32>
  return %r, %s : tensor<1x2x7x7xf32>, tensor<1x2x6x7xf32>
}
