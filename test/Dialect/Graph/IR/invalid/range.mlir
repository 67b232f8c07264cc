// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.range.

func.func @invalid(%a: tensor<1xf32>, %b: tensor<f32>, %c: tensor<f32>) {
  // expected-error @+1 {{'msgraph.range' op expected start to be a 0-D tensor, but found 'tensor<1xf32>'}}
  %r = msgraph.range %a, %b, %c : (tensor<1xf32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>) {
  // expected-error @+1 {{'msgraph.range' op expected delta element type 'f32', but found 'i32'}}
  %r = msgraph.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<i32>) -> tensor<?xf32>
  return
}

// -----

func.func @invalid(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>) {
  // expected-error @+1 {{'msgraph.range' op expected a 1-D result, but found rank 2}}
  %r = msgraph.range %a, %b, %c : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
  return
}
