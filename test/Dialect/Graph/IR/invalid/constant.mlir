// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.constant.

func.func @invalid() {
  // expected-error @+1 {{'msgraph.constant' op failed to verify that all of {value, result} have same type}}
  %r = "msgraph.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @invalid() {
  // expected-error @+1 {{'msgraph.constant' op attribute 'value' failed to satisfy constraint: constant vector/tensor attribute}}
  %r = "msgraph.constant"() {value = 1.0 : f32} : () -> tensor<f32>
  return
}
