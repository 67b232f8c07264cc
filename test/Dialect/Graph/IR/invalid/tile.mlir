// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.tile.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected 2 repeats (one per dimension), but found 1}}
  %r = msgraph.tile %x {repeats = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected non-negative repeats, but found [2, -1]}}
  %r = msgraph.tile %x {repeats = array<i64: 2, -1>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.tile' op expected result type 'tensor<4x6xf32>' (or a refinement of it), but found 'tensor<4x3xf32>'}}
  %r = msgraph.tile %x {repeats = array<i64: 2, 2>} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @overflowing_repeats(%x: tensor<4x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{expected dimension 0 tiled (4 x 2639807571536724066) to fit in 64 bits}}
  %r = msgraph.tile %x {repeats = array<i64: 2639807571536724066, 1>} : (tensor<4x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
