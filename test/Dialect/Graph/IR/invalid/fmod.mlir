// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.fmod.

func.func @invalid(%x: tensor<2x3xui8>, %y: tensor<2x4xui8>) {
  // expected-error @+1 {{expected broadcast-compatible operand shapes, but found 'tensor<2x3xui8>' and 'tensor<2x4xui8>'}}
  %r = msgraph.fmod %x, %y : (tensor<2x3xui8>, tensor<2x4xui8>) -> tensor<2x3xui8>
  return
}

// -----

func.func @invalid(%x: tensor<3xui8>, %y: tensor<3xi1>) {
  // expected-error @+1 {{'msgraph.fmod' op operand #1 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<3xi1>'}}
  %r = msgraph.fmod %x, %y : (tensor<3xui8>, tensor<3xi1>) -> tensor<3xui8>
  return
}

// -----

func.func @invalid(%x: tensor<3xui8>, %y: tensor<3xui8>) {
  // expected-error @+1 {{'msgraph.fmod' op expected result type 'tensor<3xui8>' (or a refinement of it), but found 'tensor<4xui8>'}}
  %r = msgraph.fmod %x, %y : (tensor<3xui8>, tensor<3xui8>) -> tensor<4xui8>
  return
}
