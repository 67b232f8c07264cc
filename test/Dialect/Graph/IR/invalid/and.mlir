// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.and.

func.func @invalid(%x: tensor<3xf32>, %y: tensor<3xf32>) {
  // expected-error @+1 {{'msgraph.and' op operand #0 must be ranked tensor of 1-bit signless integer or 8-bit signless integer}}
  %r = msgraph.and %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}
