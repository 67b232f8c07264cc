// RUN: ms-opt %s -split-input-file -ms-outline-kernels -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @main
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4xf32>
// CHECK: %[[C:.+]] = msgraph.constant
// CHECK: %[[A:.+]] = call @kernel_0(%[[X]], %[[C]])
// CHECK: %[[B:.+]] = call @kernel_1(%[[A]])
// CHECK: return %[[B]]
// CHECK: func @kernel_0(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel}
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: return
// CHECK: func @kernel_1(%{{.*}}: tensor<4xf32>) -> tensor<4xf32> attributes {ms.kernel}
// CHECK-NEXT: msgraph.exp
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = msgraph.constant dense<1.0> : tensor<4xf32>
  %0 = msgraph.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = msgraph.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected @main or exactly one public function as the entry, but found 2 public functions}}
module {
  func.func @a() {
    return
  }
  func.func @b() {
    return
  }
}

// -----

// Nothing to compute for an empty result: it becomes a constant.
// CHECK-LABEL: func @empty
// CHECK: %[[E:.+]] = msgraph.constant dense<> : tensor<3x0xf32>
// CHECK-NOT: call
// CHECK: return %[[E]]
func.func @empty(%x: tensor<0x3xf32>) -> tensor<3x0xf32> {
  %0 = msgraph.reshape %x : (tensor<0x3xf32>) -> tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}

// -----

// An empty operand is not passed: the kernel rebuilds it.
// CHECK-LABEL: func @empty_operand
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<2x0xf32>
// CHECK: %[[R:.+]] = call @kernel_0() : () -> tensor<2x1xf32>
// CHECK: func @kernel_0() -> tensor<2x1xf32>
// CHECK-NEXT: %[[E:.+]] = msgraph.constant dense<> : tensor<2x0xf32>
// CHECK-NEXT: msgraph.reduce_sum %[[E]]
func.func @empty_operand(%x: tensor<2x0xf32>) -> tensor<2x1xf32> {
  %0 = msgraph.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x0xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// A fused group becomes one kernel named after its ops, listing them all in
// msfusion.ops; the call takes the group's inputs.
// CHECK-LABEL: func @main
// CHECK-SAME: (%[[X:.+]]: tensor<8x64xf32>, %[[W:.+]]: tensor<64x32xf32>, %[[B:.+]]: tensor<32xf32>)
// CHECK: %[[E:.+]] = call @kernel_0(%[[X]])
// CHECK: %[[R:.+]] = call @fused_1_matmul_add_gelu(%[[E]], %[[W]], %[[B]])
// CHECK: return %[[R]]
// CHECK: func @kernel_0
// CHECK: func @fused_1_matmul_add_gelu(%[[A:.+]]: tensor<8x64xf32>, %{{.*}}: tensor<64x32xf32>, %{{.*}}: tensor<32xf32>) -> tensor<8x32xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.matmul", "msgraph.add", "msgraph.gelu"]}
// CHECK-NEXT: msgraph.matmul %[[A]]
// CHECK-NEXT: msgraph.add
// CHECK-NEXT: %[[G:.+]] = msgraph.gelu
// CHECK-NEXT: return %[[G]]
func.func @main(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %e = msgraph.exp %x : tensor<8x64xf32>
  %r = msfusion.group(%e, %w, %b : tensor<8x64xf32>, tensor<64x32xf32>, tensor<32xf32>) -> (tensor<8x32xf32>) {
  ^bb0(%a: tensor<8x64xf32>, %ww: tensor<64x32xf32>, %bb: tensor<32xf32>):
    %0 = msgraph.matmul %a, %ww : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
    %1 = msgraph.add %0, %bb : (tensor<8x32xf32>, tensor<32xf32>) -> tensor<8x32xf32>
    %2 = msgraph.gelu %1 : tensor<8x32xf32>
    msfusion.yield %2 : tensor<8x32xf32>
  }
  return %r : tensor<8x32xf32>
}

// -----

// A fused kernel's name lists at most four ops.
// CHECK-LABEL: func @main
// CHECK: call @fused_0_exp_neg_abs_sqrt(
// CHECK: msfusion.ops = ["msgraph.exp", "msgraph.neg", "msgraph.abs", "msgraph.sqrt", "msgraph.tanh"]
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = msfusion.group(%x : tensor<8xf32>) -> (tensor<8xf32>) {
  ^bb0(%a: tensor<8xf32>):
    %0 = msgraph.exp %a : tensor<8xf32>
    %1 = msgraph.neg %0 : tensor<8xf32>
    %2 = msgraph.abs %1 : tensor<8xf32>
    %3 = msgraph.sqrt %2 : tensor<8xf32>
    %4 = msgraph.tanh %3 : tensor<8xf32>
    %5 = msgraph.neg %4 : tensor<8xf32>
    msfusion.yield %5 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}
