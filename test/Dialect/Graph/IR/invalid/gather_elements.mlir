// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.gather_elements.

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  // expected-error @+1 {{expected axis in [-2, 2), but found 2}}
  %y = msgraph.gather_elements %x, %i {axis = 2 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<6xi64>) {
  // expected-error @+1 {{expected indices of rank 2, but found 'tensor<6xi64>'}}
  %y = msgraph.gather_elements %x, %i : (tensor<3x4xf32>, tensor<6xi64>) -> tensor<6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<2x5xi64>) {
  // expected-error @+1 {{expected indices no larger than the input off the axis, but found 'tensor<2x5xi64>' for 'tensor<3x4xf32>'}}
  %y = msgraph.gather_elements %x, %i : (tensor<3x4xf32>, tensor<2x5xi64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) {
  // expected-error @+1 {{'msgraph.gather_elements' op expected result type 'tensor<3x2xf32>' (or a refinement of it), but found 'tensor<3x2xf16>'}}
  %y = msgraph.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf16>
  return
}

// -----

func.func @invalid(%x: tensor<3x4xf32>, %i: tensor<3x2xf32>) {
  // expected-error @+1 {{'msgraph.gather_elements' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3x2xf32>'}}
  %y = msgraph.gather_elements %x, %i : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return
}
