// RUN: ms-opt %s -split-input-file -convert-msgraph-to-linalg -verify-diagnostics

func.func @dynamic(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'msgraph.exp' op expected static shapes for code generation, but found 'tensor<?x4xf32>'; pin the dynamic dimensions first}}
  %0 = msgraph.exp %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
