// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.clip.

func.func @invalid(%x: tensor<8xf32>) {
  // expected-error @+1 {{'msgraph.clip' op expected min <= max, but found min = 2.000000e+00 and max = 1.000000e+00}}
  %r = msgraph.clip %x {min = 2.0 : f64, max = 1.0 : f64} : tensor<8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8xi1>) {
  // expected-error @+1 {{'msgraph.clip' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float or 8-bit signless integer or 16-bit signless integer or 32-bit signless integer or 64-bit signless integer or 8-bit unsigned integer or 16-bit unsigned integer or 32-bit unsigned integer or 64-bit unsigned integer values, but got 'tensor<8xi1>'}}
  %r = msgraph.clip %x : tensor<8xi1>
  return
}
