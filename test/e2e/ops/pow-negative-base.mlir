// RUN: %check %s --work-dir %t

// Negative bases with integral exponents follow C pow ((-2)^2 = 4,
// (-2)^3 = -8), as ONNX Pow and NumPy do; an exp(y * log(x)) lowering would
// give NaN.
// REFERENCE: np.power(a0, a1)
// INPUT 0: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 2, shape)
// INPUT 1: rng.integers(-3, 4, shape).astype(np.float32)
// TOLERANCE: rtol=1e-05 atol=1e-06
func.func @main(%a0: tensor<2x3x4xf32>, %a1: tensor<3x1xf32>) -> (tensor<2x3x4xf32>) {
  %r = msgraph.pow %a0, %a1 : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}
