// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.cast.

func.func @invalid(%x: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.cast' op expected the result shape to match the input shape [4], but found [5]}}
  %r = msgraph.cast %x : (tensor<4xf32>) -> tensor<5xi32>
  return
}

// -----

func.func @invalid(%x: tensor<4xf32>) {
  // expected-error @+1 {{'msgraph.cast' op expected the result shape to match the input shape [4], but found [4, 1]}}
  %r = msgraph.cast %x : (tensor<4xf32>) -> tensor<4x1xi32>
  return
}

// -----

func.func @invalid(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'msgraph.cast' op expected the result shape to match the input shape [?, 4], but found [?, 5]}}
  %r = msgraph.cast %x : (tensor<?x4xf32>) -> tensor<?x5xi32>
  return
}
