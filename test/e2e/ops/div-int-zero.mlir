// RUN: %check %s --work-dir %t

// Integer division truncates toward zero and never traps: x / 0 is 0 and
// INT32_MIN / -1 wraps to INT32_MIN (a plain divsi raises SIGFPE).
// REFERENCE: np.where(a1 == 0, 0, np.where((a0 == np.iinfo(np.int32).min) & (a1 == -1), a0, np.trunc(a0.astype(np.float64) / np.where(a1 == 0, 1, a1)))).astype(np.int32)
// INPUT 0: np.array([7, -7, 5, -2147483648, 0, 9], np.int32).reshape(shape)
// INPUT 1: np.array([2, 2, 0, -1, 0, -4], np.int32).reshape(shape)
// TOLERANCE: rtol=0 atol=0
func.func @main(%a0: tensor<2x3xi32>, %a1: tensor<2x3xi32>) -> (tensor<2x3xi32>) {
  %r = msgraph.div %a0, %a1 : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %r : tensor<2x3xi32>
}
