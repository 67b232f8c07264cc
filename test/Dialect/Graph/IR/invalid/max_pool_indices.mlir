// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.max_pool_indices.

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.max_pool_indices' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<1x3x4x4xi32>'}}
  %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xi32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.max_pool_indices' op expected result type 'tensor<1x3x4x4xi64>' (or a refinement of it), but found 'tensor<1x3x5x4xi64>'}}
  %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x5x4xi64>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{expected 2 kernel_shape values, but found 1}}
  %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xi64>
  return
}

// -----

func.func @invalid(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{expected input of rank at least 3 (N x C x spatial), but found 'tensor<8x8xf32>'}}
  %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>} : (tensor<8x8xf32>) -> tensor<4x4xi64>
  return
}

// -----

func.func @invalid(%x: tensor<1x1x4x4xi1>) {
  // expected-error @+1 {{'msgraph.max_pool_indices' op operand #0 must be ranked tensor of}}
  %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x1x4x4xi1>) -> tensor<1x1x3x3xi64>
  return
}
