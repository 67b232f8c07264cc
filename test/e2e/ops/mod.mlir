// RUN: %check %s --work-dir %t

// mod takes the divisor's sign (NumPy's %), fmod the dividend's (C's fmod);
// integer remainders by zero (and INT32_MIN by -1) are 0, never a trap.
// INPUT 0: np.array([7, -7, 7, -7, 5, -2147483648, 0, 9], np.int32).reshape(shape)
// INPUT 1: np.array([3, 3, -3, -3, 0, -1, 4, -4], np.int32).reshape(shape)
// INPUT 2: rng.uniform(-10, 10, shape)
// INPUT 3: rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 4, shape)
// REFERENCE: np.where(a1 == 0, 0, np.mod(a0.astype(np.int64), np.where(a1 == 0, 1, a1))).astype(np.int32)
// REFERENCE: np.where(a1 == 0, 0, np.fmod(a0.astype(np.int64), np.where(a1 == 0, 1, a1))).astype(np.int32)
// REFERENCE: np.mod(a2, a3)
// REFERENCE: np.fmod(a2, a3)
// TOLERANCE: rtol=1e-6 atol=1e-6
func.func @main(%a0: tensor<2x4xi32>, %a1: tensor<2x4xi32>, %a2: tensor<3x5xf32>, %a3: tensor<3x5xf32>) -> (tensor<2x4xi32>, tensor<2x4xi32>, tensor<3x5xf32>, tensor<3x5xf32>) {
  %m = msgraph.mod %a0, %a1 : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %f = msgraph.fmod %a0, %a1 : (tensor<2x4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  %x = msgraph.mod %a2, %a3 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  %y = msgraph.fmod %a2, %a3 : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
  return %m, %f, %x, %y : tensor<2x4xi32>, tensor<2x4xi32>, tensor<3x5xf32>, tensor<3x5xf32>
}
