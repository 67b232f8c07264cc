// RUN: not ms-opt %s -msgraph-optimize 2>&1 | FileCheck %s
// An invalid op stops the tool before any pass runs.
// CHECK: verify-after-parse.mlir:6:8: error: expected axis in [-1, 1), but found 4
// CHECK-NOT: module
func.func @f(%x: tensor<4xf32>) -> tensor<8xf32> {
  %0 = msgraph.concat %x, %x {axis = 4 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
