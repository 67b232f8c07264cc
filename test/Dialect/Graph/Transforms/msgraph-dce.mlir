// RUN: ms-opt %s -split-input-file -msgraph-dce | FileCheck %s

// CHECK-LABEL: func @dead_chain
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NEXT: %[[R:.+]] = msgraph.relu %[[X]]
// CHECK-NEXT: return %[[R]]
func.func @dead_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = msgraph.constant dense<1.0> : tensor<4xf32>
  %0 = msgraph.add %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = msgraph.exp %0 : tensor<4xf32>
  %2 = msgraph.tanh %1 : tensor<4xf32>
  %r = msgraph.relu %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Ops of other dialects are removed too when they are trivially dead; ops
// with side effects stay.
// CHECK-LABEL: func @effects_stay
// CHECK-NOT: arith.addi
// CHECK: memref.store
func.func @effects_stay(%m: memref<4xi32>, %i: index, %v: i32) {
  %0 = arith.addi %v, %v : i32
  memref.store %v, %m[%i] : memref<4xi32>
  return
}
