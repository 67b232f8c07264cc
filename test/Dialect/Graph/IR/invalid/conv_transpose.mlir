// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.conv_transpose.

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+1 {{expected input channels (8) to equal weight dimension 0 (6)}}
  %r = msgraph.conv_transpose %x, %w : (tensor<1x8x4x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected output_padding in [0, max(stride, dilation)), but found [1, 1]}}
  %r = msgraph.conv_transpose %x, %w {output_padding = array<i64: 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x7x7xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected 2 output_padding values, but found 1}}
  %r = msgraph.conv_transpose %x, %w {output_padding = array<i64: 0>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x1x1xf32>, %w: tensor<8x4x1x1xf32>) {
  // expected-error @+1 {{expected a positive output size along spatial dimension 0, but found 0}}
  %r = msgraph.conv_transpose %x, %w {pads = array<i64: 1, 1, 0, 0>} : (tensor<1x8x1x1xf32>, tensor<8x4x1x1xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{expected input of rank at least 3 (N x C x spatial), but found 'tensor<1x8xf32>'}}
  %r = msgraph.conv_transpose %x, %w : (tensor<1x8xf32>, tensor<8x4xf32>) -> tensor<1x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{expected bias of type 'tensor<4xf32>', but found 'tensor<8xf32>'}}
  %r = msgraph.conv_transpose %x, %w, %b : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf16>) {
  // expected-error @+1 {{expected weight element type 'f32', but found 'f16'}}
  %r = msgraph.conv_transpose %x, %w : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3xf32>) {
  // expected-error @+1 {{expected weight of rank 4 (the input rank), but found 'tensor<8x4x3xf32>'}}
  %r = msgraph.conv_transpose %x, %w : (tensor<1x8x4x4xf32>, tensor<8x4x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected group >= 1, but found 0}}
  %r = msgraph.conv_transpose %x, %w {group = 0 : i64} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{expected 2 strides (one per spatial dimension), but found 3}}
  %r = msgraph.conv_transpose %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x4x9223372036854775807x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{expected window sizes within int64, but the output size along spatial dimension 0 overflows}}
  %r = msgraph.conv_transpose %x, %w {strides = array<i64: 2, 1>} : (tensor<1x4x9223372036854775807x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x3x10x10xf32>
  return
}
