// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.relu.

func.func @invalid(%x: tensor<4xui32>) {
  // expected-error @+1 {{'msgraph.relu' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<4xui32>'}}
  %r = msgraph.relu %x : tensor<4xui32>
  return
}

// -----

func.func @invalid(%x: tensor<*xf32>) {
  // expected-error @+1 {{'msgraph.relu' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer values, but got 'tensor<*xf32>'}}
  %r = "msgraph.relu"(%x) : (tensor<*xf32>) -> tensor<*xf32>
  return
}
