// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.layer_norm.

func.func @invalid(%x: tensor<2x16x64xf32>, %g: tensor<32xf32>) {
  // expected-error @+1 {{'msgraph.layer_norm' op expected scale to broadcast to the normalized shape [64], but found 'tensor<32xf32>'}}
  %r = msgraph.layer_norm %x, %g : (tensor<2x16x64xf32>, tensor<32xf32>) -> tensor<2x16x64xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>, %b: tensor<64xf64>) {
  // expected-error @+1 {{'msgraph.layer_norm' op expected bias element type 'f32', but found 'f64'}}
  %r = msgraph.layer_norm %x, %g, %b : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf64>) -> tensor<2x16x64xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'msgraph.layer_norm' op expected axis in [-3, 3), but found 3}}
  %r = msgraph.layer_norm %x, %g {axis = 3 : i64} : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x16x64xf32>, %g: tensor<64xf32>) {
  // expected-error @+1 {{'msgraph.layer_norm' op expected result type compatible with the input type 'tensor<2x16x64xf32>', but found 'tensor<2x16x64xf16>'}}
  %r = msgraph.layer_norm %x, %g : (tensor<2x16x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf16>
  return
}
