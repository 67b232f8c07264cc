// RUN: %check %s --work-dir %t

// Trigonometric and hyperbolic functions against NumPy (f64 reference
// rounded to f32), inside each function's domain.
// REFERENCE: np.sin(a0)
// REFERENCE: np.cos(a0)
// REFERENCE: np.tan(a0)
// REFERENCE: np.arcsin(a0)
// REFERENCE: np.arccos(a0)
// REFERENCE: np.arctan(a2)
// REFERENCE: np.sinh(a2)
// REFERENCE: np.cosh(a2)
// REFERENCE: np.arcsinh(a2)
// REFERENCE: np.arccosh(a1)
// REFERENCE: np.arctanh(a0)
// INPUT 0: rng.uniform(-0.95, 0.95, shape)
// INPUT 1: rng.uniform(1.0, 50.0, shape)
// INPUT 2: rng.uniform(-8.0, 8.0, shape)
// TOLERANCE: rtol=2e-6 atol=1e-6
func.func @main(%a0: tensor<4x16xf32>, %a1: tensor<64xf32>, %a2: tensor<64xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x16xf32>) {
  %0 = msgraph.sin %a0 : tensor<4x16xf32>
  %1 = msgraph.cos %a0 : tensor<4x16xf32>
  %2 = msgraph.tan %a0 : tensor<4x16xf32>
  %3 = msgraph.asin %a0 : tensor<4x16xf32>
  %4 = msgraph.acos %a0 : tensor<4x16xf32>
  %5 = msgraph.atan %a2 : tensor<64xf32>
  %6 = msgraph.sinh %a2 : tensor<64xf32>
  %7 = msgraph.cosh %a2 : tensor<64xf32>
  %8 = msgraph.asinh %a2 : tensor<64xf32>
  %9 = msgraph.acosh %a1 : tensor<64xf32>
  %10 = msgraph.atanh %a0 : tensor<4x16xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<4x16xf32>
}
