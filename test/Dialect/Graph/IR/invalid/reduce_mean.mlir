// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.reduce_mean.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axes in [-2, 2), but found 2}}
  %r = msgraph.reduce_mean %x {axes = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected distinct axes, but found [1, -1]}}
  %r = msgraph.reduce_mean %x {axes = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.reduce_mean' op expected result type 'tensor<2x1xf32>' (or a refinement of it), but found 'tensor<2xf32>'}}
  %r = msgraph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}
