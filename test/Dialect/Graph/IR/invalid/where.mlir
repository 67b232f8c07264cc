// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.where.

func.func @invalid(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{expected operands to have the same element type, but found 'f32' and 'i32'}}
  %r = msgraph.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid(%c: tensor<3xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{expected the condition to broadcast with the values, but found 'tensor<3xi1>' and 'tensor<4xf32>'}}
  %r = msgraph.where %c, %a, %b : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid(%c: tensor<4xf32>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<4xf32>'}}
  %r = msgraph.where %c, %a, %b : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.where' op expected result type 'tensor<4xf32>' (or a refinement of it), but found 'tensor<5xf32>'}}
  %r = msgraph.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return
}
