// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.resize.

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected 4 scales (one per dimension), but found 3}}
  %r = msgraph.resize %x {scales = array<f64: 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected positive scales}}
  %r = msgraph.resize %x {scales = array<f64: 1.0, 1.0, 0.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected mode "nearest", "linear" or "cubic", but found "area"}}
  %r = msgraph.resize %x {mode = "area", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected a supported coordinate_transformation_mode, but found "tf_crop"}}
  %r = msgraph.resize %x {coordinate_transformation_mode = "tf_crop", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected a supported nearest_mode, but found "up"}}
  %r = msgraph.resize %x {nearest_mode = "up", scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected result of rank 4 and element type 'f32', but found 'tensor<1x3x16xf32>'}}
  %r = msgraph.resize %x {scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected roi with 8 values for tf_crop_and_resize, but found 4}}
  %r = msgraph.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", roi = array<f64: 0.0, 0.0, 1.0, 1.0>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>) {
  // expected-error @+1 {{'msgraph.resize' op expected no roi with coordinate_transformation_mode "half_pixel", but found one}}
  %r = msgraph.resize %x {roi = array<f64: 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0>, scales = array<f64: 1.0, 1.0, 2.0, 2.0>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
  return
}
