// RUN: ms-opt %s -ms-deduplicate-kernels | FileCheck %s

// Three layers' kernels: @kernel_2 is @kernel_0 with other value names
// and locations (it goes; its call calls @kernel_0); @kernel_4 differs
// from @kernel_1 in an op's attribute, @kernel_3 from @kernel_0 in a type
// (they stay). Functions that are not kernels are left alone.
// CHECK-LABEL: func.func @main
// CHECK: %[[A:.+]] = call @kernel_0(%{{.+}}, %{{.+}})
// CHECK: %[[B:.+]] = call @kernel_1(%[[A]])
// CHECK: %[[C:.+]] = call @kernel_0(%[[B]], %{{.+}})
// CHECK: call @kernel_3(
// CHECK: call @kernel_4(
// CHECK: call @helper(
// CHECK: func.func @kernel_0
// CHECK: func.func @kernel_1
// CHECK-NOT: func.func @kernel_2
// CHECK: func.func @kernel_3
// CHECK: func.func @kernel_4
// CHECK: func.func private @helper(
// CHECK: func.func private @helper_copy(
func.func @main(%x: tensor<4x8xf32>, %y: tensor<2x8xf32>) -> (tensor<4x8xf32>, tensor<2x8xf32>, tensor<4x8xf32>) {
  %w0 = msgraph.constant dense<1.0> : tensor<8xf32>
  %w1 = msgraph.constant dense<2.0> : tensor<8xf32>
  %a = call @kernel_0(%x, %w0) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %b = call @kernel_1(%a) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %c = call @kernel_2(%b, %w1) : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %d = call @kernel_3(%y, %w1) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %g = call @kernel_4(%c) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %e = call @helper(%g) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %f = call @helper_copy(%e) : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %f, %d, %c : tensor<4x8xf32>, tensor<2x8xf32>, tensor<4x8xf32>
}
func.func @kernel_0(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>) -> tensor<4x8xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.add", "msgraph.relu"]} {
  %0 = msgraph.add %arg0, %arg1 : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = msgraph.relu %0 : tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
func.func @kernel_1(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ms.kernel} {
  %0 = msgraph.softmax %arg0 {axis = 1 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func @kernel_2(%in: tensor<4x8xf32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.add", "msgraph.relu"]} {
  %sum = msgraph.add %in, %bias : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32> loc("layer2")
  %r = msgraph.relu %sum : tensor<4x8xf32> loc("layer2")
  return %r : tensor<4x8xf32>
}
func.func @kernel_3(%arg0: tensor<2x8xf32>, %arg1: tensor<8xf32>) -> tensor<2x8xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.add", "msgraph.relu"]} {
  %0 = msgraph.add %arg0, %arg1 : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %1 = msgraph.relu %0 : tensor<2x8xf32>
  return %1 : tensor<2x8xf32>
}
func.func @kernel_4(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> attributes {ms.kernel} {
  %0 = msgraph.softmax %arg0 {axis = 0 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
func.func private @helper(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %arg0 : tensor<4x8xf32>
}
func.func private @helper_copy(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
  return %arg0 : tensor<4x8xf32>
}
