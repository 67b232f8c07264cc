// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.hard_sigmoid.

func.func @invalid(%x: tensor<8xi64>) {
  // expected-error @+1 {{'msgraph.hard_sigmoid' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<8xi64>'}}
  %r = msgraph.hard_sigmoid %x : tensor<8xi64>
  return
}
