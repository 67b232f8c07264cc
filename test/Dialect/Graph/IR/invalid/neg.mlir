// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.neg.

func.func @invalid(%x: tensor<4xui8>) {
  // expected-error @+1 {{'msgraph.neg' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xui8>'}}
  %r = msgraph.neg %x : tensor<4xui8>
  return
}

// -----

func.func @invalid(%x: tensor<4xi1>) {
  // expected-error @+1 {{'msgraph.neg' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xi1>'}}
  %r = msgraph.neg %x : tensor<4xi1>
  return
}
