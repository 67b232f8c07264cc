// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.identity.

// CHECK-LABEL: func @identity_i64
// CHECK: %[[R:.+]] = msgraph.identity %{{[a-zA-Z0-9_]+}} : tensor<3xi64>
// CHECK: return %[[R]]
func.func @identity_i64(%x: tensor<3xi64>) -> tensor<3xi64> {
  %r = msgraph.identity %x : tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// CHECK-LABEL: func @identity_bf16
// CHECK: %[[R:.+]] = msgraph.identity %{{[a-zA-Z0-9_]+}} : tensor<?x2xbf16>
// CHECK: return %[[R]]
func.func @identity_bf16(%x: tensor<?x2xbf16>) -> tensor<?x2xbf16> {
  %r = msgraph.identity %x : tensor<?x2xbf16>
  return %r : tensor<?x2xbf16>
}
