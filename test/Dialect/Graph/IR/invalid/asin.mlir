// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.asin.

func.func @invalid(%x: tensor<4xi32>) {
  // expected-error @+1 {{'msgraph.asin' op operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values, but got 'tensor<4xi32>'}}
  %r = msgraph.asin %x : tensor<4xi32>
  return
}

// -----

func.func @invalid(%x: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.asin' op all non-scalar operands/results must have the same shape and base type}}
  %r = "msgraph.asin"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return
}
