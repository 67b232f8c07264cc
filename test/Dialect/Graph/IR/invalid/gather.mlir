// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.gather.

func.func @invalid(%t: tensor<3x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expected axis in [-2, 2), but found 2}}
  %r = msgraph.gather %t, %i {axis = 2 : i64} : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @invalid(%t: tensor<3x4xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'msgraph.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %r = msgraph.gather %t, %i : (tensor<3x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid(%t: tensor<3x4xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{'msgraph.gather' op expected result type 'tensor<2x4xf32>' (or a refinement of it), but found 'tensor<2x3xf32>'}}
  %r = msgraph.gather %t, %i : (tensor<3x4xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}
