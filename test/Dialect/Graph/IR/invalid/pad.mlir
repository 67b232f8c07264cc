// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.pad.

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected mode "constant", "reflect", "edge" or "wrap", but found "mirror"}}
  %r = msgraph.pad %x {mode = "mirror", pads = array<i64: 0, 0, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected 4 pads (begins then ends), but found 2}}
  %r = msgraph.pad %x {pads = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected a non-negative size along dimension 1, but found -1}}
  %r = msgraph.pad %x {pads = array<i64: 0, -2, 0, -2>} : (tensor<2x3xf32>) -> tensor<2x0xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected a padded size within int64 along dimension 0, but found pads 4611686018427387904 and 4611686018427387904}}
  %r = msgraph.pad %x {pads = array<i64: 4611686018427387904, 0, 4611686018427387904, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected reflect pads smaller than dimension 1 (3), but found 3 and 0}}
  %r = msgraph.pad %x {mode = "reflect", pads = array<i64: 0, 3, 0, 0>} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{expected a non-empty dimension 1 for "edge" padding}}
  %r = msgraph.pad %x {mode = "edge", pads = array<i64: 0, 1, 0, 0>} : (tensor<2x0xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'msgraph.pad' op expected result type 'tensor<2x5xf32>' (or a refinement of it), but found 'tensor<2x4xf32>'}}
  %r = msgraph.pad %x {pads = array<i64: 0, 1, 0, 1>} : (tensor<2x3xf32>) -> tensor<2x4xf32>
  return
}
