// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.reshape.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.reshape' op expected the result to have 6 elements (as the input), but found 7}}
  %r = msgraph.reshape %x : (tensor<2x3xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.reshape' op expected result element type 'f32', but found 'i32'}}
  %r = msgraph.reshape %x : (tensor<2x3xf32>) -> tensor<6xi32>
  return
}

// -----

func.func @invalid(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'msgraph.reshape' op expected a shape operand when the result has more than one dynamic dimension, but found 2}}
  %r = msgraph.reshape %x : (tensor<?x3xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid(%x: tensor<?x3xf32>, %s: tensor<3xi64>) {
  // expected-error @+1 {{'msgraph.reshape' op expected shape operand of length 2 (the result rank), but found 3}}
  %r = msgraph.reshape %x, %s : (tensor<?x3xf32>, tensor<3xi64>) -> tensor<?x?xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.reshape' op expected the static result dimensions to divide the input element count 6, but found product 4}}
  %r = msgraph.reshape %x : (tensor<2x3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @overflowing_known_dims(%x: tensor<4x4xf32>, %s: tensor<3xi64>) -> tensor<4294967296x4294967296x?xf32> {
  // expected-error @+1 {{expected the static result dimensions' product to fit in 64 bits}}
  %r = msgraph.reshape %x, %s : (tensor<4x4xf32>, tensor<3xi64>) -> tensor<4294967296x4294967296x?xf32>
  return %r : tensor<4294967296x4294967296x?xf32>
}
