// RUN: %check %s --work-dir %t

// REFERENCE: resize_cubic(a0, [1, 1, 2, 2])
// REFERENCE: resize_cubic(a0, [1, 1, 2, 2], a=-0.5, exclude_outside=True)
// TOLERANCE: rtol=0.0001 atol=1e-05
func.func @main(%a0: tensor<1x1x4x4xf32>) -> (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) {
  %r = msgraph.resize %a0 {mode = "cubic", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  %s = msgraph.resize %a0 {mode = "cubic", exclude_outside = true, cubic_coeff_a = -0.5 : f64, scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32>
  return %r, %s : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
}
