// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.not.

func.func @invalid(%x: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.not' op operand #0 must be ranked tensor of 1-bit signless integer or 8-bit signless integer}}
  %r = msgraph.not %x : tensor<4xf32>
  return
}
