// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.shift_left.

func.func @invalid(%x: tensor<3xi1>, %y: tensor<3xi1>) {
  // expected-error @+1 {{'msgraph.shift_left' op operand #0 must be ranked tensor of 8-bit signless integer or 16-bit signless integer}}
  %r = msgraph.shift_left %x, %y : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @invalid(%x: tensor<3xi32>, %y: tensor<4xi32>) {
  // expected-error @+1 {{expected broadcast-compatible operand shapes, but found 'tensor<3xi32>' and 'tensor<4xi32>'}}
  %r = msgraph.shift_left %x, %y : (tensor<3xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @invalid(%x: tensor<3xi32>, %y: tensor<3xi16>) {
  // expected-error @+1 {{expected operands to have the same element type, but found 'i32' and 'i16'}}
  %r = msgraph.shift_left %x, %y : (tensor<3xi32>, tensor<3xi16>) -> tensor<3xi32>
  return
}
