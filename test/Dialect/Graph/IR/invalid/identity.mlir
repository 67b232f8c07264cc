// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.identity.

func.func @invalid(%x: tensor<3xi64>) {
  // expected-error @+1 {{'msgraph.identity' op requires the same type for all operands and results}}
  %r = "msgraph.identity"(%x) : (tensor<3xi64>) -> tensor<3xi32>
  return
}

// -----

func.func @invalid(%x: tensor<3xcomplex<f32>>) {
  // expected-error @+1 {{'msgraph.identity' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 1-bit signless integer or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xcomplex<f32>>'}}
  %r = "msgraph.identity"(%x) : (tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>>
  return
}
