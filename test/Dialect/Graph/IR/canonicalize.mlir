// RUN: ms-opt %s -split-input-file -canonicalize | FileCheck %s

// Multi-op canonicalization patterns of msgraph (single-op folds are in
// fold.mlir).

// CHECK-LABEL: func @reshape_chain
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK: %[[R:.+]] = msgraph.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK: return %[[R]]
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = msgraph.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = msgraph.reshape %0 : (tensor<24xf32>) -> tensor<6x4xf32>
  %2 = msgraph.reshape %1 : (tensor<6x4xf32>) -> tensor<4x6xf32>
  return %2 : tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func @reshape_drop_static_shape_operand
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK: %[[R:.+]] = msgraph.reshape %[[X]] : (tensor<?x4xf32>) -> tensor<2x2x2xf32>
func.func @reshape_drop_static_shape_operand(%x: tensor<?x4xf32>, %s: tensor<3xi64>) -> tensor<2x2x2xf32> {
  %0 = msgraph.reshape %x, %s : (tensor<?x4xf32>, tensor<3xi64>) -> tensor<2x2x2xf32>
  return %0 : tensor<2x2x2xf32>
}

// -----

// CHECK-LABEL: func @reshape_to_same_type
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NOT: msgraph.reshape
// CHECK: return %[[X]]
func.func @reshape_to_same_type(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = msgraph.reshape %x : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = msgraph.reshape %0 : (tensor<6xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @transpose_chain
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK: %[[R:.+]] = msgraph.transpose %[[X]] {permutation = array<i64: 2, 0, 1>}
// CHECK-SAME: (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK: return %[[R]]
func.func @transpose_chain(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = msgraph.transpose %x {permutation = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %1 = msgraph.transpose %0 {permutation = array<i64: 1, 2, 0>} : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  return %1 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func @transpose_inverse_pair
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NOT: msgraph.transpose
// CHECK: return %[[X]]
func.func @transpose_inverse_pair(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = msgraph.transpose %x {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = msgraph.transpose %0 {permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @add_of_neg
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4xf32>
// CHECK: %[[A:.+]] = msgraph.sub %[[X]], %[[Y]]
// CHECK: %[[B:.+]] = msgraph.sub %[[X]], %[[Y]]
// CHECK: return %[[A]], %[[B]]
func.func @add_of_neg(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %n = msgraph.neg %y : tensor<4xf32>
  %0 = msgraph.add %x, %n : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = msgraph.add %n, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @mul_of_negs
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<4xf32>, %[[Y:[a-zA-Z0-9_]+]]: tensor<4xf32>
// CHECK-NOT: msgraph.neg
// CHECK: %[[R:.+]] = msgraph.mul %[[X]], %[[Y]]
// CHECK: return %[[R]]
func.func @mul_of_negs(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %a = msgraph.neg %x : tensor<4xf32>
  %b = msgraph.neg %y : tensor<4xf32>
  %0 = msgraph.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func @double_negation
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK-NOT: msgraph.neg
// CHECK: return %[[X]]
func.func @double_negation(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = msgraph.neg %x : tensor<4xi32>
  %1 = msgraph.neg %0 : tensor<4xi32>
  return %1 : tensor<4xi32>
}

// -----

// CHECK-LABEL: func @relu_idempotent
// CHECK: %[[R:.+]] = msgraph.relu
// CHECK-NOT: msgraph.relu
// CHECK: return %[[R]]
func.func @relu_idempotent(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = msgraph.relu %x : tensor<4xf32>
  %1 = msgraph.relu %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Broadcasting must not be lost: x + 0 keeps the add when the zero widens x.
// CHECK-LABEL: func @add_zero_that_broadcasts
// CHECK: msgraph.add
func.func @add_zero_that_broadcasts(%x: tensor<4xf32>) -> tensor<2x4xf32> {
  %z = msgraph.constant dense<0.0> : tensor<2x4xf32>
  %0 = msgraph.add %x, %z : (tensor<4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
