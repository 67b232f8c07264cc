// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.instance_norm.

func.func @invalid(%x: tensor<1x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'msgraph.instance_norm' op expected input of rank at least 3, but found 'tensor<1x8xf32>'}}
  %r = msgraph.instance_norm %x, %s, %b : (tensor<1x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{'msgraph.instance_norm' op expected bias of shape [8] (the channel count), but found 'tensor<2x4xf32>'}}
  %r = msgraph.instance_norm %x, %s, %b : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<2x4xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf16>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'msgraph.instance_norm' op expected scale element type 'f32', but found 'f16'}}
  %r = msgraph.instance_norm %x, %s, %b : (tensor<1x8x4x4xf32>, tensor<8xf16>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'msgraph.instance_norm' op expected result type compatible with the input type 'tensor<1x8x4x4xf32>', but found 'tensor<1x8x4x8xf32>'}}
  %r = msgraph.instance_norm %x, %s, %b : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x8xf32>
  return
}
