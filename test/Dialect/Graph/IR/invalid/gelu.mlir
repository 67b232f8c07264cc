// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.gelu.

func.func @invalid(%x: tensor<8xf32>) {
  // expected-error @+1 {{'msgraph.gelu' op expected approximate to be "none" or "tanh", but found "fast"}}
  %r = msgraph.gelu %x {approximate = "fast"} : tensor<8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8xi32>) {
  // expected-error @+1 {{'msgraph.gelu' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8xi32>'}}
  %r = msgraph.gelu %x : tensor<8xi32>
  return
}
