// RUN: ms-opt %s -split-input-file | FileCheck %s
// RUN: ms-opt %s -split-input-file -mlir-print-op-generic | ms-opt -split-input-file | FileCheck %s

// Round-trip tests for msgraph.attention.

// CHECK-LABEL: func @attention
// CHECK: %[[R:.+]] = msgraph.attention %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}}, %{{[a-zA-Z0-9_]+}} : (tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32>
// CHECK: return %[[R]]
func.func @attention(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x10x16xf32>, %v: tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32> {
  %r = msgraph.attention %q, %k, %v : (tensor<2x4x8x16xf32>, tensor<2x4x10x16xf32>, tensor<2x4x10x32xf32>) -> tensor<2x4x8x32xf32>
  return %r : tensor<2x4x8x32xf32>
}

// -----

// Grouped-query, causal after a 6-key past, masked, scaled and softcapped.
// CHECK-LABEL: func @attention_all
// CHECK: msgraph.attention %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} {causal_offset = 6 : i64, is_causal = true, scale = 2.500000e-01 : f64, softcap = 3.000000e+01 : f64} : (tensor<1x8x4x16xf16>, tensor<1x2x10x16xf16>, tensor<1x2x10x16xf16>, tensor<1x1x4x10xf16>) -> tensor<1x8x4x16xf16>
func.func @attention_all(%q: tensor<1x8x4x16xf16>, %k: tensor<1x2x10x16xf16>, %v: tensor<1x2x10x16xf16>, %m: tensor<1x1x4x10xf16>) -> tensor<1x8x4x16xf16> {
  %r = msgraph.attention %q, %k, %v, %m {is_causal = true, causal_offset = 6 : i64, scale = 0.25 : f64, softcap = 30.0 : f64} : (tensor<1x8x4x16xf16>, tensor<1x2x10x16xf16>, tensor<1x2x10x16xf16>, tensor<1x1x4x10xf16>) -> tensor<1x8x4x16xf16>
  return %r : tensor<1x8x4x16xf16>
}
