// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.conv.

func.func @invalid(%x: tensor<3x224x224xf32>, %w: tensor<64x3x7xf32>) {
  // expected-error @+1 {{expected input channels (224) to equal weight dimension 1 times group (3 x 1)}}
  %r = msgraph.conv %x, %w : (tensor<3x224x224xf32>, tensor<64x3x7xf32>) -> tensor<3x64x218xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x4xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{expected input of rank at least 3 (N x C x spatial), but found 'tensor<2x4xf32>'}}
  %r = msgraph.conv %x, %w : (tensor<2x4xf32>, tensor<8x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3xf32>) {
  // expected-error @+1 {{expected weight of rank 4 (the input rank), but found 'tensor<4x3x3xf32>'}}
  %r = msgraph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf16>) {
  // expected-error @+1 {{expected weight element type 'f32', but found 'f16'}}
  %r = msgraph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected 2 strides (one per spatial dimension), but found 1}}
  %r = msgraph.conv %x, %w {strides = array<i64: 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected 2 dilations (one per spatial dimension), but found 3}}
  %r = msgraph.conv %x, %w {dilations = array<i64: 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected 4 pads (begins then ends), but found 2}}
  %r = msgraph.conv %x, %w {pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected positive strides, but found [0, 1]}}
  %r = msgraph.conv %x, %w {strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected positive dilations, but found [1, -1]}}
  %r = msgraph.conv %x, %w {dilations = array<i64: 1, -1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected non-negative pads, but found [-1, 0, 0, 0]}}
  %r = msgraph.conv %x, %w {pads = array<i64: -1, 0, 0, 0>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{expected group >= 1, but found 0}}
  %r = msgraph.conv %x, %w {group = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x4x8x8xf32>, %w: tensor<6x1x3x3xf32>) {
  // expected-error @+1 {{expected output channels (6) to be divisible by group (4)}}
  %r = msgraph.conv %x, %w {group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<6x1x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{expected bias of type 'tensor<4xf32>', but found 'tensor<5xf32>'}}
  %r = msgraph.conv %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<5xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x2x2xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected the dilated kernel to fit in the padded input along spatial dimension 0, but found input size 2 and kernel size 3}}
  %r = msgraph.conv %x, %w : (tensor<1x3x2x2xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{'msgraph.conv' op expected result type 'tensor<1x4x6x6xf32>' (or a refinement of it), but found 'tensor<1x4x8x8xf32>'}}
  %r = msgraph.conv %x, %w : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected strides below 2^31, but found [4611686018427387904, 1]}}
  %r = msgraph.conv %x, %w {strides = array<i64: 4611686018427387904, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x9223372036854775807x3xf32>) {
  // expected-error @+1 {{expected window sizes within int64, but the output size along spatial dimension 0 overflows}}
  %r = msgraph.conv %x, %w {dilations = array<i64: 2, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x9223372036854775807x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @overflowing_group(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{expected input channels (4) to equal weight dimension 1 times group (2 x 4611686018427387904)}}
  %r = msgraph.conv %x, %w {group = 4611686018427387904 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return %r : tensor<1x4x6x6xf32>
}
