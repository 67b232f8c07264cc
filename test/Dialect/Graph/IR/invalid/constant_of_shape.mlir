// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.constant_of_shape.

func.func @invalid(%s: tensor<3xi64>) {
  // expected-error @+1 {{'msgraph.constant_of_shape' op expected shape operand of length 2 (the result rank), but found 3}}
  %r = msgraph.constant_of_shape %s {value = 0.0 : f32} : (tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid(%s: tensor<2xi64>) {
  // expected-error @+1 {{'msgraph.constant_of_shape' op expected value of type 'f32', but found 'i32'}}
  %r = msgraph.constant_of_shape %s {value = 0 : i32} : (tensor<2xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid(%s: tensor<2xi32>) {
  // expected-error @+1 {{'msgraph.constant_of_shape' op operand #0 must be 1D tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %r = msgraph.constant_of_shape %s {value = 0.0 : f32} : (tensor<2xi32>) -> tensor<?x?xf32>
  return
}
