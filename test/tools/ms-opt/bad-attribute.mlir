// RUN: not ms-opt %s 2>&1 | FileCheck %s
// CHECK: error: {{.*}}permutation
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = msgraph.transpose %x {permutation = "reversed"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
