// RUN: ms-opt %s -msgraph-optimize | FileCheck %s

// The graph optimization pipeline end to end on a small MLP whose weights are
// stored transposed (as ONNX Gemm with transB exports them): the weight
// transposes fold away, the no-op identity and x*1 disappear, dead code goes,
// and the dynamic result shapes become static (the function keeps the
// signature its caller uses through a tensor.cast).

// CHECK-LABEL: func private @mlp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x8xf32>) -> tensor<?x?xf32>
// CHECK-DAG: %[[W1:.+]] = msgraph.constant dense<{{.*}}> : tensor<8x3xf32>
// CHECK-DAG: %[[W2:.+]] = msgraph.constant dense<{{.*}}> : tensor<3x2xf32>
// CHECK-NOT: msgraph.transpose
// CHECK-NOT: msgraph.identity
// CHECK: %[[H:.+]] = msgraph.matmul %[[X]], %[[W1]] : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK: %[[A:.+]] = msgraph.relu %[[H]] : tensor<4x3xf32>
// CHECK: %[[O:.+]] = msgraph.matmul %[[A]], %[[W2]] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK-NOT: msgraph.mul
// CHECK: %[[C:.+]] = tensor.cast %[[O]] : tensor<4x2xf32> to tensor<?x?xf32>
// CHECK: return %[[C]]
func.func private @mlp(%x: tensor<4x8xf32>) -> tensor<?x?xf32> {
  %w1t = msgraph.constant dense<0.5> : tensor<3x8xf32>
  %w2t = msgraph.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %one = msgraph.constant dense<1.0> : tensor<f32>
  %w1 = msgraph.transpose %w1t {permutation = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<8x3xf32>
  %w2 = msgraph.transpose %w2t {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %xi = msgraph.identity %x : tensor<4x8xf32>
  %h = msgraph.matmul %xi, %w1 : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<?x?xf32>
  %a = msgraph.relu %h : tensor<?x?xf32>
  %dead = msgraph.exp %a : tensor<?x?xf32>
  %o = msgraph.matmul %a, %w2 : (tensor<?x?xf32>, tensor<3x2xf32>) -> tensor<?x?xf32>
  %s = msgraph.mul %o, %one : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

func.func @main(%x: tensor<4x8xf32>) -> tensor<?x?xf32> {
  %0 = call @mlp(%x) : (tensor<4x8xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
