// RUN: %check %s --work-dir %t

// REFERENCE: resize_nearest(a0, [1, 1, 2, 1.5])
// REFERENCE: resize_linear(a0, [1, 1, 2, 2])
// REFERENCE: resize_linear(a0, [1, 1, 0.5, 1.6], 'align_corners')
// REFERENCE: resize_nearest(a0, [1, 1, 3, 3], 'asymmetric', 'floor')
// TOLERANCE: rtol=1e-05 atol=1e-06
func.func @main(%a0: tensor<1x2x4x5xf32>) -> (tensor<1x2x8x7xf32>, tensor<1x2x8x10xf32>, tensor<1x2x2x8xf32>, tensor<1x2x12x15xf32>) {
  %r = msgraph.resize %a0 {scales = array<f64: 1.0, 1.0, 2.0, 1.5>} : (tensor<1x2x4x5xf32>) -> tensor<1x2x8x7xf32>
  %s = msgraph.resize %a0 {mode = "linear", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x2x4x5xf32>) -> tensor<1x2x8x10xf32>
  %u = msgraph.resize %a0 {mode = "linear", coordinate_transformation_mode = "align_corners", scales = array<f64: 1.0, 1.0, 0.5, 1.6>} : (tensor<1x2x4x5xf32>) -> tensor<1x2x2x8xf32>
  %v = msgraph.resize %a0 {coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f64: 1.0, 1.0, 3.0, 3.0>} : (tensor<1x2x4x5xf32>) -> tensor<1x2x12x15xf32>
  return %r, %s, %u, %v : tensor<1x2x8x7xf32>, tensor<1x2x8x10xf32>, tensor<1x2x2x8xf32>, tensor<1x2x12x15xf32>
}
