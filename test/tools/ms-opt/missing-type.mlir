// RUN: not ms-opt %s 2>&1 | FileCheck %s
// CHECK: missing-type.mlir:4:{{[0-9]+}}: error: expected ':'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.exp %x
  return %0 : tensor<4xf32>
}
