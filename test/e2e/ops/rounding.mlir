// RUN: %check %s --work-dir %t

// Floor, ceil and round (halves to even) on quarter steps, which include
// exact halves, in f32 and f16.
// REFERENCE: np.floor(a0)
// REFERENCE: np.ceil(a0)
// REFERENCE: np.round(a0)
// REFERENCE: np.round(a1)
// INPUT 0: rng.integers(-40, 40, shape) / 4
// INPUT 1: rng.integers(-40, 40, shape) / 4
// TOLERANCE: rtol=0 atol=0
func.func @main(%a0: tensor<3x32xf32>, %a1: tensor<32xf16>) -> (tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>, tensor<32xf16>) {
  %0 = msgraph.floor %a0 : tensor<3x32xf32>
  %1 = msgraph.ceil %a0 : tensor<3x32xf32>
  %2 = msgraph.round %a0 : tensor<3x32xf32>
  %3 = msgraph.round %a1 : tensor<32xf16>
  return %0, %1, %2, %3 : tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>, tensor<32xf16>
}
