// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the string ops.

func.func @invalid(%x: tensor<2x3x!msgraph.string>) {
  // expected-error @+1 {{expected words of shape [C] or [1, C], but found 'tensor<2x3x!msgraph.string>'}}
  %r = msgraph.string_normalizer %x : (tensor<2x3x!msgraph.string>) -> tensor<2x3x!msgraph.string>
  return
}

// -----

func.func @invalid(%x: tensor<3x!msgraph.string>) {
  // expected-error @+1 {{expected case_change_action NONE, UPPER or LOWER, but found 'TITLE'}}
  %r = msgraph.string_normalizer %x {case_change_action = "TITLE"} : (tensor<3x!msgraph.string>) -> tensor<3x!msgraph.string>
  return
}

// -----

func.func @invalid(%x: tensor<3x!msgraph.string>) {
  // expected-error @+1 {{expected a dynamic last result extent (the number of words kept depends on the data), but found 'tensor<2x!msgraph.string>'}}
  %r = msgraph.string_normalizer %x {stopwords = ["a"]} : (tensor<3x!msgraph.string>) -> tensor<2x!msgraph.string>
  return
}

// -----

func.func @invalid(%x: tensor<3x!msgraph.string>) {
  // expected-error @+1 {{'msgraph.string_normalizer' op expected result type 'tensor<3x!msgraph.string>' (or a refinement of it), but found 'tensor<4x!msgraph.string>'}}
  %r = msgraph.string_normalizer %x : (tensor<3x!msgraph.string>) -> tensor<4x!msgraph.string>
  return
}

// -----

func.func @invalid(%x: tensor<3xf32>) {
  // expected-error @+1 {{'msgraph.string_normalizer' op operand #0 must be ranked tensor of a UTF-8 string of any length values, but got 'tensor<3xf32>'}}
  %r = msgraph.string_normalizer %x : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @invalid(%x: tensor<2x!msgraph.string>, %y: tensor<3x!msgraph.string>) {
  // expected-error @+1 {{expected broadcast-compatible operand shapes, but found 'tensor<2x!msgraph.string>' and 'tensor<3x!msgraph.string>'}}
  %r = msgraph.string_equal %x, %y : (tensor<2x!msgraph.string>, tensor<3x!msgraph.string>) -> tensor<2xi1>
  return
}

// -----

func.func @invalid(%x: tensor<2x!msgraph.string>, %y: tensor<2x!msgraph.string>) {
  // expected-error @+1 {{'msgraph.string_concat' op expected result type 'tensor<2x!msgraph.string>' (or a refinement of it), but found 'tensor<1x!msgraph.string>'}}
  %r = msgraph.string_concat %x, %y : (tensor<2x!msgraph.string>, tensor<2x!msgraph.string>) -> tensor<1x!msgraph.string>
  return
}

// -----

// Numeric ops never take strings.
func.func @invalid(%x: tensor<2xf32>) {
  // expected-error @+1 {{'msgraph.add' op result #0 must be ranked tensor of}}
  %r = msgraph.add %x, %x : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x!msgraph.string>
  return
}
