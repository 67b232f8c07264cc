// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of the #msgraph.relayout attribute (relayout_c1..c5).

func.func @invalid() {
  // expected-error @+1 {{expected a source of integers or floats of whole bytes, but found 'i1'}}
  %r = msgraph.constant #msgraph.relayout<dense<true> : tensor<2x2xi1>, shape = [2, 2], permutation = [1, 0]> : tensor<2x2xi1>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a shape of 6 elements (the source's), but found [2, 2]}}
  %r = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<2x3xf32>, shape = [2, 2], permutation = [1, 0]> : tensor<3x2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a shape of sizes at least 0, but found -2}}
  %r = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<2x3xf32>, shape = [-2, -3], permutation = [1, 0]> : tensor<3x2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a permutation of the 2 dims of the shape, but found [0, 0]}}
  %r = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<2x3xf32>, shape = [2, 3], permutation = [0, 0]> : tensor<3x2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a static type of 6 elements, but found 'tensor<4x2xf32>'}}
  %r = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<2x3xf32>, shape = [2, 3], permutation = [1, 0]> : tensor<4x2xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected element type 'f32' (or bf16 or f16 from f32), but found 'f64'}}
  %r = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<2x3xf32>, shape = [2, 3], permutation = [1, 0]> : tensor<3x2xf64>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{expected a shape of 0 elements (the source's), but found [4, 4611686018427387904]}}
  %r = msgraph.constant #msgraph.relayout<dense<> : tensor<0xf32>, shape = [4, 4611686018427387904], permutation = [0, 1]> : tensor<0xf32>
  return
}
