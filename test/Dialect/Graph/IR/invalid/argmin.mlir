// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.argmin.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [-2, 2), but found 3}}
  %r = msgraph.argmin %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.argmin' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2x1xi32>'}}
  %r = msgraph.argmin %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi32>
  return
}
