// RUN: not ms-opt %s 2>&1 | FileCheck %s
// CHECK: error: custom op 'msgraph.frobnicate' is unknown
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.frobnicate %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
