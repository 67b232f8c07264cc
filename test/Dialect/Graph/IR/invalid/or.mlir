// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.or.

func.func @invalid(%x: tensor<3xi8>, %y: tensor<3xi8>) {
  // expected-error @+1 {{'msgraph.or' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xi8>'}}
  %r = msgraph.or %x, %y : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return
}
