// RUN: %check %s --work-dir %t

// Bitwise ops on signed and unsigned integers; shift amounts run past the
// bit width, where every bit is shifted out (NumPy gives the same).
// REFERENCE: a0 & a1
// REFERENCE: a0 | a1
// REFERENCE: a0 ^ a1
// REFERENCE: ~a0
// REFERENCE: np.left_shift(a2, a3)
// REFERENCE: np.right_shift(a2, a3)
// REFERENCE: np.right_shift(a4, a5)
// REFERENCE: np.logical_xor(a6, a7)
// INPUT 0: rng.integers(-2**31, 2**31, shape)
// INPUT 1: rng.integers(-2**31, 2**31, shape)
// INPUT 2: rng.integers(0, 256, shape)
// INPUT 3: rng.integers(0, 10, shape)
// INPUT 4: rng.integers(-2**15, 2**15, shape)
// INPUT 5: rng.integers(0, 18, shape)
func.func @main(%a0: tensor<2x8xi32>, %a1: tensor<8xi32>, %a2: tensor<16xui8>, %a3: tensor<16xui8>, %a4: tensor<16xi16>, %a5: tensor<16xi16>, %a6: tensor<8xi1>, %a7: tensor<8xi1>) -> (tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<16xui8>, tensor<16xui8>, tensor<16xi16>, tensor<8xi1>) {
  %0 = msgraph.and %a0, %a1 : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
  %1 = msgraph.or %a0, %a1 : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
  %2 = msgraph.xor %a0, %a1 : (tensor<2x8xi32>, tensor<8xi32>) -> tensor<2x8xi32>
  %3 = msgraph.not %a0 : tensor<2x8xi32>
  %4 = msgraph.shift_left %a2, %a3 : (tensor<16xui8>, tensor<16xui8>) -> tensor<16xui8>
  %5 = msgraph.shift_right %a2, %a3 : (tensor<16xui8>, tensor<16xui8>) -> tensor<16xui8>
  %6 = msgraph.shift_right %a4, %a5 : (tensor<16xi16>, tensor<16xi16>) -> tensor<16xi16>
  %7 = msgraph.xor %a6, %a7 : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<16xui8>, tensor<16xui8>, tensor<16xi16>, tensor<8xi1>
}
