// RUN: ms-opt %s | ms-opt | FileCheck %s
// RUN: ms-opt %s --mlir-print-op-generic | ms-opt | FileCheck %s

// CHECK-LABEL: func @matmul_bias_gelu
// CHECK: %[[R:.+]] = msfusion.group(%{{.*}}, %{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> (tensor<8x32xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<64x32xf32>, %[[B:.+]]: tensor<32xf32>):
// CHECK-NEXT: %[[M:.+]] = msgraph.matmul %[[A]], %[[W]]
// CHECK-NEXT: %[[S:.+]] = msgraph.add %[[M]], %[[B]]
// CHECK-NEXT: %[[G:.+]] = msgraph.gelu %[[S]]
// CHECK-NEXT: msfusion.yield %[[G]] : tensor<8x32xf32>
// CHECK: return %[[R]]
func.func @matmul_bias_gelu(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %r = msfusion.group(%x, %w, %b : tensor<8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> (tensor<8x32xf32>) {
  ^bb0(%a: tensor<8x64xf32>, %ww: tensor<64x32xf32>, %bb: tensor<32xf32>):
    %0 = msgraph.matmul %a, %ww : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %1 = msgraph.add %0, %bb : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    %2 = msgraph.gelu %1 : tensor<8x32xf32>
    msfusion.yield %2 : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}

// A group without inputs (a cloned constant feeds it) and with two results.
// CHECK-LABEL: func @two_results
// CHECK: %{{.*}}:2 = msfusion.group() -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK: msfusion.yield %{{.*}}, %{{.*}} : tensor<4xf32>, tensor<4xf32>
func.func @two_results() -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = msfusion.group() -> (tensor<4xf32>, tensor<4xf32>) {
    %c = msgraph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %0 = msgraph.exp %c : tensor<4xf32>
    %1 = msgraph.neg %0 : tensor<4xf32>
    msfusion.yield %0, %1 : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// Row reductions of one shape share a group (group_c6): a softmax written
// as ops.
// CHECK-LABEL: func @softmax_as_ops
// CHECK: msgraph.reduce_max
// CHECK: msgraph.reduce_sum
// CHECK: msfusion.yield
func.func @softmax_as_ops(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %r = msfusion.group(%x : tensor<4x16xf32>) -> (tensor<4x16xf32>) {
  ^bb0(%a: tensor<4x16xf32>):
    %m = msgraph.reduce_max %a {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
    %d = msgraph.sub %a, %m : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
    %e = msgraph.exp %d : tensor<4x16xf32>
    %s = msgraph.reduce_sum %e {axes = array<i64: 1>} : (tensor<4x16xf32>) -> tensor<4x1xf32>
    %o = msgraph.div %e, %s : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
    msfusion.yield %o : tensor<4x16xf32>
  }
  return %r : tensor<4x16xf32>
}
