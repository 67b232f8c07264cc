// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.greater.

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'msgraph.greater' op result #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xf32>'}}
  %r = msgraph.greater %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{expected operands to have the same element type, but found 'f32' and 'i32'}}
  %r = msgraph.greater %x, %y : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xi1>
  return
}
