// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.shape.

func.func @invalid(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'msgraph.shape' op expected result type 'tensor<2xi64>' (or a refinement of it), but found 'tensor<3xi64>'}}
  %r = msgraph.shape %x : (tensor<?x4xf32>) -> tensor<3xi64>
  return
}

// -----

func.func @invalid(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'msgraph.shape' op result #0 must be 1D tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %r = msgraph.shape %x : (tensor<?x4xf32>) -> tensor<2xi32>
  return
}
