// RUN: ms-opt %s -split-input-file -verify-diagnostics

// Verifier errors of msgraph.leaky_relu.

func.func @invalid(%x: tensor<8xf32>) {
  // expected-error @+1 {{custom op 'msgraph.leaky_relu' 'msgraph.leaky_relu' op attribute 'alpha' failed to satisfy constraint: 32-bit float attribute}}
  %r = msgraph.leaky_relu %x {alpha = 1 : i32} : tensor<8xf32>
  return
}
