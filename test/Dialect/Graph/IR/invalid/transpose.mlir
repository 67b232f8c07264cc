// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.transpose.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected permutation of [0, 2), but found [0, 0]}}
  %r = msgraph.transpose %x {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected permutation of [0, 2), but found [1]}}
  %r = msgraph.transpose %x {permutation = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.transpose' op expected result type 'tensor<3x2xf32>' (or a refinement of it), but found 'tensor<2x3xf32>'}}
  %r = msgraph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
