// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.argmax.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [-2, 2), but found 3}}
  %r = msgraph.argmax %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.argmax' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2x1xi32>'}}
  %r = msgraph.argmax %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.argmax' op expected result type 'tensor<2x1xi64>' (or a refinement of it), but found 'tensor<3x1xi64>'}}
  %r = msgraph.argmax %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x1xi64>
  return
}
