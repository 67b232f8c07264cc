// RUN: %check %s --work-dir %t

// REFERENCE: a0 @ a1
// REFERENCE: a2 @ a1
// REFERENCE: a3 @ a1
// REFERENCE: a2 @ a3
// TOLERANCE: rtol=1e-05 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%a0: tensor<8x16xf32>, %a1: tensor<16x12xf32>, %a2: tensor<2x3x8x16xf32>, %a3: tensor<16xf32>) -> (tensor<8x12xf32>, tensor<2x3x8x12xf32>, tensor<12xf32>, tensor<2x3x8xf32>) {
  %r = msgraph.matmul %a0, %a1 : (tensor<8x16xf32>, tensor<16x12xf32>) -> tensor<8x12xf32>
  %s = msgraph.matmul %a2, %a1 : (tensor<2x3x8x16xf32>, tensor<16x12xf32>) -> tensor<2x3x8x12xf32>
  %u = msgraph.matmul %a3, %a1 : (tensor<16xf32>, tensor<16x12xf32>) -> tensor<12xf32>
  %v = msgraph.matmul %a2, %a3 : (tensor<2x3x8x16xf32>, tensor<16xf32>) -> tensor<2x3x8xf32>
  return %r, %s, %u, %v : tensor<8x12xf32>, tensor<2x3x8x12xf32>, tensor<12xf32>, tensor<2x3x8xf32>
}
