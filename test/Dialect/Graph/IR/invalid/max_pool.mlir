// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.max_pool.

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{expected 2 kernel_shape values, but found 1}}
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{expected positive kernel_shape, but found [2, 0]}}
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2, 0>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{expected pads smaller than the dilated kernel (2) along spatial dimension 0, but found [2, 0, 0, 0]}}
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x33x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8x32xf32>) {
  // expected-error @+1 {{expected input of rank at least 3 (N x C x spatial), but found 'tensor<8x32xf32>'}}
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2>} : (tensor<8x32xf32>) -> tensor<8x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x2x2xf32>) {
  // expected-error @+1 {{expected the dilated kernel to fit in the padded input along spatial dimension 0, but found input size 2 and kernel size 3}}
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 3, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x8x1x1xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  // expected-error @+1 {{'msgraph.max_pool' op expected result type 'tensor<1x8x31x31xf32>' (or a refinement of it), but found 'tensor<1x8x32x32xf32>'}}
  %r = msgraph.max_pool %x {kernel_shape = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x32x32xf32>
  return
}
