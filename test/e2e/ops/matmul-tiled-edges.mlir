// RUN: %check %s --work-dir %t

// Products the cuda target tiles through shared memory (ms-cuda-tile-matmul),
// shaped so that each way of staging an operand runs: N odd (B read an
// element at a time), N even but not a multiple of 4 (two at a time), rows
// spanning a batch dimension, and A transposed (its rows innermost, read
// four at a time along them). On the CPU they are plain matmuls.
// REFERENCE: a0 @ a1
// REFERENCE: a2 @ a3
// REFERENCE: a4.T @ a1
// TOLERANCE: rtol=1e-05 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%a0: tensor<40x24xf32>, %a1: tensor<24x33xf32>, %a2: tensor<2x20x36xf32>, %a3: tensor<36x18xf32>, %a4: tensor<24x40xf32>) -> (tensor<40x33xf32>, tensor<2x20x18xf32>, tensor<40x33xf32>) {
  %r = msgraph.matmul %a0, %a1 : (tensor<40x24xf32>, tensor<24x33xf32>) -> tensor<40x33xf32>
  %s = msgraph.matmul %a2, %a3 : (tensor<2x20x36xf32>, tensor<36x18xf32>) -> tensor<2x20x18xf32>
  %t = msgraph.transpose %a4 {permutation = array<i64: 1, 0>} : (tensor<24x40xf32>) -> tensor<40x24xf32>
  %u = msgraph.matmul %t, %a1 : (tensor<40x24xf32>, tensor<24x33xf32>) -> tensor<40x33xf32>
  return %r, %s, %u : tensor<40x33xf32>, tensor<2x20x18xf32>, tensor<40x33xf32>
}
