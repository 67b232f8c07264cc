// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.softmax.

func.func @invalid(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'msgraph.softmax' op expected axis in [-2, 2), but found 2}}
  %r = msgraph.softmax %x {axis = 2 : i64} : tensor<2x8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x8xi32>) {
  // expected-error @+1 {{'msgraph.softmax' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<2x8xi32>'}}
  %r = msgraph.softmax %x : tensor<2x8xi32>
  return
}
