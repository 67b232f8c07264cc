// RUN: %check %s --work-dir %t

// REFERENCE: conv(a0, a1, a2, strides=[2, 1], pads=[1, 0, 2, 1])
// REFERENCE: conv(a0, a3, dilations=[2, 1], group=2)
// REFERENCE: conv(a4, a5, strides=[3])
// TOLERANCE: rtol=0.0001 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (convolutions run on the cube with fp16 inputs: docs/NPU.md)
func.func @main(%a0: tensor<2x4x9x9xf32>, %a1: tensor<6x4x3x3xf32>, %a2: tensor<6xf32>, %a3: tensor<6x2x3x3xf32>, %a4: tensor<1x3x10xf32>, %a5: tensor<2x3x4xf32>) -> (tensor<2x6x5x8xf32>, tensor<2x6x5x7xf32>, tensor<1x2x3xf32>) {
  %r = msgraph.conv %a0, %a1, %a2 {pads = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 1>} : (tensor<2x4x9x9xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x5x8xf32>
  %s = msgraph.conv %a0, %a3 {dilations = array<i64: 2, 1>, group = 2 : i64} : (tensor<2x4x9x9xf32>, tensor<6x2x3x3xf32>) -> tensor<2x6x5x7xf32>
  %u = msgraph.conv %a4, %a5 {strides = array<i64: 3>} : (tensor<1x3x10xf32>, tensor<2x3x4xf32>) -> tensor<1x2x3xf32>
  return %r, %s, %u : tensor<2x6x5x8xf32>, tensor<2x6x5x7xf32>, tensor<1x2x3xf32>
}
