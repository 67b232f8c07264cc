// RUN: ms-opt %s -pass-pipeline='builtin.module(func.func(msdist-multi-copy{copies=1}))' -verify-diagnostics

// One copy splits nothing: the pass option is an error, not a no-op.
// expected-error @+1 {{expected at least 2 copies, found 1}}
func.func @one_copy(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}
