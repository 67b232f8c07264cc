// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.expand.

func.func @invalid(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'msgraph.expand' op expected input dimension 1 (2) to be 1 or equal to result dimension 1, but found 4}}
  %r = msgraph.expand %x : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x2xf32>) {
  // expected-error @+1 {{'msgraph.expand' op expected result rank >= input rank 2, but found 1}}
  %r = msgraph.expand %x : (tensor<3x2xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{'msgraph.expand' op expected result element type 'f32', but found 'f16'}}
  %r = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<3x4xf16>
  return
}

// -----

func.func @invalid(%x: tensor<3x1xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{'msgraph.expand' op expected shape operand of length 2 (the result rank), but found 3}}
  %r = msgraph.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3x?xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x1xf32>) {
  // expected-error @+1 {{'msgraph.expand' op expected a shape operand when result dimension 0 is dynamic but the input does not give it}}
  %r = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<?x3x4xf32>
  return
}
