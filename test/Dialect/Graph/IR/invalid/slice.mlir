// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.slice.

func.func @invalid(%x: tensor<2x6xf32>) {
  // expected-error @+1 {{expected starts, ends and steps of length 2 (the input rank), but found 1, 1 and 1}}
  %r = msgraph.slice %x {ends = array<i64: 2>, starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<2x6xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @invalid(%x: tensor<6xf32>) {
  // expected-error @+1 {{expected non-zero steps, but found [0]}}
  %r = msgraph.slice %x {ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 0>} : (tensor<6xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<6xf32>) {
  // expected-error @+1 {{expected normalized bounds along dimension 0 of size 6, but found start 0, end 7, step 1}}
  %r = msgraph.slice %x {ends = array<i64: 7>, starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<6xf32>) -> tensor<7xf32>
  return
}

// -----

func.func @invalid(%x: tensor<?xf32>) {
  // expected-error @+1 {{expected dynamic dimension 0 to be taken whole (start 0, step 1, end kDynamic), but found start 1, end 3, step 1}}
  %r = msgraph.slice %x {ends = array<i64: 3>, starts = array<i64: 1>, steps = array<i64: 1>} : (tensor<?xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @invalid(%x: tensor<6xf32>) {
  // expected-error @+1 {{'msgraph.slice' op expected result type 'tensor<2xf32>' (or a refinement of it), but found 'tensor<4xf32>'}}
  %r = msgraph.slice %x {ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 2>} : (tensor<6xf32>) -> tensor<4xf32>
  return
}
