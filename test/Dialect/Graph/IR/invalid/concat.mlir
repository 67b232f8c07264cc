// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.concat.

func.func @invalid(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{expected input #1 to match dimension 1 (3), but found 4}}
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{expected input #1 to have rank 2 and element type 'f32', but found 'tensor<3xf32>'}}
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expected axis in [-2, 2), but found 2}}
  %r = msgraph.concat %a {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected at least one input, but found 0}}
  %r = msgraph.concat {axis = 0 : i64} : () -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'msgraph.concat' op expected result type 'tensor<6x3xf32>' (or a refinement of it), but found 'tensor<5x3xf32>'}}
  %r = msgraph.concat %a, %b {axis = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return
}
