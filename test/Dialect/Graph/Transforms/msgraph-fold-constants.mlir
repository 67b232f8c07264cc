// RUN: ms-opt %s -split-input-file -msgraph-fold-constants | FileCheck %s
// RUN: ms-opt %s -split-input-file -msgraph-fold-constants="max-elements=2" | FileCheck %s --check-prefix=LIMIT

// A whole constant subgraph (weight preprocessing) collapses in one run.
// CHECK-LABEL: func @constant_subgraph
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]
// CHECK: %[[W:.+]] = msgraph.constant dense<{{\[}}[2.000000e+00, 6.000000e+00], [4.000000e+00, 8.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: msgraph.transpose
// CHECK: %[[R:.+]] = msgraph.matmul %[[X]], %[[W]]
// CHECK: return %[[R]]
// LIMIT-LABEL: func @constant_subgraph
// LIMIT: msgraph.transpose
func.func @constant_subgraph(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = msgraph.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %two = msgraph.constant dense<2.0> : tensor<f32>
  %t = msgraph.transpose %w {permutation = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = msgraph.mul %t, %two : (tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>
  %r = msgraph.matmul %x, %s : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// Ops with a non-constant operand are left alone, even when a folder could
// simplify them: that is canonicalization's job.
// CHECK-LABEL: func @non_constant_operand
// CHECK: msgraph.add
// CHECK: msgraph.exp
func.func @non_constant_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %z = msgraph.constant dense<0.0> : tensor<4xf32>
  %0 = msgraph.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = msgraph.exp %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Splats fold regardless of the element limit.
// CHECK-LABEL: func @splat
// CHECK: msgraph.constant dense<2.000000e+00> : tensor<64x64xf32>
// LIMIT-LABEL: func @splat
// LIMIT: msgraph.constant dense<2.000000e+00> : tensor<64x64xf32>
// LIMIT-NOT: msgraph.add
func.func @splat() -> tensor<64x64xf32> {
  %a = msgraph.constant dense<1.0> : tensor<64x64xf32>
  %0 = msgraph.add %a, %a : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Integer overflow wraps like the CPU kernels do.
// CHECK-LABEL: func @wraps
// CHECK: msgraph.constant dense<-128> : tensor<2xi8>
func.func @wraps() -> tensor<2xi8> {
  %a = msgraph.constant dense<127> : tensor<2xi8>
  %b = msgraph.constant dense<1> : tensor<2xi8>
  %0 = msgraph.add %a, %b : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}
