// RUN: not ms-opt %s 2>&1 | FileCheck %s
// CHECK: error: use of undeclared SSA value name
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
