// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.matmul.

func.func @invalid(%a: tensor<4x5xf32>, %b: tensor<6x7xf32>) {
  // expected-error @+1 {{expected contracting dimensions to match, but found 5 (lhs) and 6 (rhs)}}
  %r = msgraph.matmul %a, %b : (tensor<4x5xf32>, tensor<6x7xf32>) -> tensor<4x7xf32>
  return
}

// -----

func.func @invalid(%a: tensor<2x4x5xf32>, %b: tensor<3x5x7xf32>) {
  // expected-error @+1 {{expected broadcast-compatible batch dimensions, but found 'tensor<2x4x5xf32>' and 'tensor<3x5x7xf32>'}}
  %r = msgraph.matmul %a, %b : (tensor<2x4x5xf32>, tensor<3x5x7xf32>) -> tensor<2x4x7xf32>
  return
}

// -----

func.func @invalid(%a: tensor<4x5xf32>, %b: tensor<5x7xf16>) {
  // expected-error @+1 {{expected operands to have the same element type, but found 'f32' and 'f16'}}
  %r = msgraph.matmul %a, %b : (tensor<4x5xf32>, tensor<5x7xf16>) -> tensor<4x7xf32>
  return
}

// -----

func.func @invalid(%a: tensor<f32>, %b: tensor<5x7xf32>) {
  // expected-error @+1 {{expected operands of rank at least 1, but found 'tensor<f32>' and 'tensor<5x7xf32>'}}
  %r = msgraph.matmul %a, %b : (tensor<f32>, tensor<5x7xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @invalid(%a: tensor<4x5xf32>, %b: tensor<5x7xf32>) {
  // expected-error @+1 {{'msgraph.matmul' op expected result type 'tensor<4x7xf32>' (or a refinement of it), but found 'tensor<4x5xf32>'}}
  %r = msgraph.matmul %a, %b : (tensor<4x5xf32>, tensor<5x7xf32>) -> tensor<4x5xf32>
  return
}
