// RUN: not ms-opt %s 2>&1 | FileCheck %s
// Unranked tensors are rejected: every msgraph value has a rank.
// CHECK: error: custom op 'msgraph.exp' invalid kind of type specified: expected builtin.tensor, but found 'tensor<*xf32>'
func.func @f(%x: tensor<*xf32>) -> tensor<*xf32> {
  %0 = msgraph.exp %x : tensor<*xf32>
  return %0 : tensor<*xf32>
}
