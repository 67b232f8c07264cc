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
