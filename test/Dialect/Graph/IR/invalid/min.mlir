// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.min.

func.func @invalid(%x: tensor<2x3xi64>, %y: tensor<2x4xi64>) {
  // expected-error @+1 {{expected broadcast-compatible operand shapes, but found 'tensor<2x3xi64>' and 'tensor<2x4xi64>'}}
  %r = msgraph.min %x, %y : (tensor<2x3xi64>, tensor<2x4xi64>) -> tensor<2x3xi64>
  return
}

// -----

func.func @invalid(%x: tensor<3xi64>, %y: tensor<3xi1>) {
  // expected-error @+1 {{'msgraph.min' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xi1>'}}
  %r = msgraph.min %x, %y : (tensor<3xi64>, tensor<3xi1>) -> tensor<3xi64>
  return
}

// -----

func.func @invalid(%x: tensor<3xi64>, %y: tensor<3xi64>) {
  // expected-error @+1 {{'msgraph.min' op expected result type 'tensor<3xi64>' (or a refinement of it), but found 'tensor<4xi64>'}}
  %r = msgraph.min %x, %y : (tensor<3xi64>, tensor<3xi64>) -> tensor<4xi64>
  return
}
