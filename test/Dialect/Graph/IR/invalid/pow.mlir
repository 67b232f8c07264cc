// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.pow.

func.func @invalid(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+1 {{expected broadcast-compatible operand shapes, but found 'tensor<2x3xf32>' and 'tensor<2x4xf32>'}}
  %r = msgraph.pow %x, %y : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xi1>) {
  // expected-error @+1 {{'msgraph.pow' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3xi1>'}}
  %r = msgraph.pow %x, %y : (tensor<3xf32>, tensor<3xi1>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'msgraph.pow' op expected result type 'tensor<3xf32>' (or a refinement of it), but found 'tensor<4xf32>'}}
  %r = msgraph.pow %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3xi32>, %y: tensor<3xi32>) {
  // expected-error @+1 {{'msgraph.pow' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<3xi32>'}}
  %r = msgraph.pow %x, %y : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
  return
}
