// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.lrn.

func.func @invalid(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+1 {{'msgraph.lrn' op expected size in [1, 2^31), but found 0}}
  %r = msgraph.lrn %x {size = 0 : i64} : tensor<1x8x4x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8xf32>) {
  // expected-error @+1 {{'msgraph.lrn' op expected input of rank at least 2, but found 'tensor<8xf32>'}}
  %r = msgraph.lrn %x {size = 3 : i64} : tensor<8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+1 {{'msgraph.lrn' op requires attribute 'size'}}
  %r = msgraph.lrn %x : tensor<1x8x4x4xf32>
  return
}
