// RUN: ms-opt %s | ms-opt | FileCheck %s

// A constant in another layout (#msgraph.relayout) round-trips: a [4, 64]
// matrix as two panels of 32 columns, and as bf16 pairs of rows.

// CHECK-LABEL: func.func @relayout
// CHECK: msgraph.constant #msgraph.relayout<dense<1.000000e+00> : tensor<4x64xf32>, shape = [4, 2, 32], permutation = [1, 0, 2]> : tensor<2x4x32xf32>
// CHECK: msgraph.constant #msgraph.relayout<dense<2.000000e+00> : tensor<4x64xf32>, shape = [2, 2, 2, 32], permutation = [2, 0, 3, 1]> : tensor<2x2x64xbf16>
func.func @relayout() -> (tensor<2x4x32xf32>, tensor<2x2x64xbf16>) {
  %a = msgraph.constant #msgraph.relayout<dense<1.0> : tensor<4x64xf32>, shape = [4, 2, 32], permutation = [1, 0, 2]> : tensor<2x4x32xf32>
  %b = msgraph.constant #msgraph.relayout<dense<2.0> : tensor<4x64xf32>, shape = [2, 2, 2, 32], permutation = [2, 0, 3, 1]> : tensor<2x2x64xbf16>
  return %a, %b : tensor<2x4x32xf32>, tensor<2x2x64xbf16>
}
