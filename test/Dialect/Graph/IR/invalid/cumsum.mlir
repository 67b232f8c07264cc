// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.cumsum.

func.func @invalid(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'msgraph.cumsum' op expected axis in [-2, 2), but found -3}}
  %r = msgraph.cumsum %x {axis = -3 : i64} : tensor<2x8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<f32>) {
  // expected-error @+1 {{'msgraph.cumsum' op expected axis in [0, 0), but found 0}}
  %r = msgraph.cumsum %x {axis = 0 : i64} : tensor<f32>
  return
}

// -----

func.func @invalid(%x: tensor<4xi1>) {
  // expected-error @+1 {{'msgraph.cumsum' op operand #0 must be ranked tensor of 16-bit float}}
  %r = msgraph.cumsum %x {axis = 0 : i64} : tensor<4xi1>
  return
}

// -----

func.func @invalid(%x: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.cumsum' op requires the same type for all operands and results}}
  %r = "msgraph.cumsum"(%x) {axis = 0 : i64} : (tensor<4xf32>) -> tensor<4xf16>
  return
}
