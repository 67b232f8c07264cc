// RUN: %check %s --work-dir %t
// Four identical layers (matmul + bias + ReLU, then a second matmul), each
// on its own weights: the plan runs one layer's steps as a body called
// once per layer (msexec-outline-repeated-steps) at O0 and O1, and the O2
// graph function calls one function per layer; every level against NumPy.
// RUN: ms-compile %s -O0 -o %t.O0.msm
// RUN: %python %ms_src_root/utils/msm.py --steps %t.O0.msm | FileCheck %s --check-prefix=O0
// O0: body main_body ({{[0-9]+}} params): launch launch launch launch
// O0-NEXT: call main_body
// O0-NEXT: call main_body
// O0-NEXT: call main_body
// O0-NEXT: call main_body
// O0-NOT: launch
// RUN: ms-compile %s -O1 -o %t.O1.msm
// RUN: %python %ms_src_root/utils/msm.py --steps %t.O1.msm | FileCheck %s --check-prefix=O1
// O1: body main_body ({{[0-9]+}} params): launch launch
// O1-COUNT-4: call main_body
// O1-NOT: launch

// REFERENCE: np.maximum(np.maximum(np.maximum(np.maximum(a0 @ a1 + a2, 0) @ a3 @ a4 + a5, 0) @ a6 @ a7 + a8, 0) @ a9 @ a10 + a11, 0) @ a12
// Weights in [-0.5, 0.5] keep the activations near 1 through 8 matmuls.
// INPUT 1: rng.uniform(-0.5, 0.5, shape)
// INPUT 3: rng.uniform(-0.5, 0.5, shape)
// INPUT 4: rng.uniform(-0.5, 0.5, shape)
// INPUT 6: rng.uniform(-0.5, 0.5, shape)
// INPUT 7: rng.uniform(-0.5, 0.5, shape)
// INPUT 9: rng.uniform(-0.5, 0.5, shape)
// INPUT 10: rng.uniform(-0.5, 0.5, shape)
// INPUT 12: rng.uniform(-0.5, 0.5, shape)
// TOLERANCE: rtol=1e-4 atol=1e-4
// NPU-TOLERANCE: rtol=2e-2 atol=2e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%x: tensor<8x16xf32>, %wa0: tensor<16x16xf32>, %ba0: tensor<16xf32>, %wb0: tensor<16x16xf32>, %wa1: tensor<16x16xf32>, %ba1: tensor<16xf32>, %wb1: tensor<16x16xf32>, %wa2: tensor<16x16xf32>, %ba2: tensor<16xf32>, %wb2: tensor<16x16xf32>, %wa3: tensor<16x16xf32>, %ba3: tensor<16xf32>, %wb3: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %m0 = msgraph.matmul %x, %wa0 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %a0 = msgraph.add %m0, %ba0 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r0 = msgraph.relu %a0 : tensor<8x16xf32>
  %h0 = msgraph.matmul %r0, %wb0 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %m1 = msgraph.matmul %h0, %wa1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %a1 = msgraph.add %m1, %ba1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r1 = msgraph.relu %a1 : tensor<8x16xf32>
  %h1 = msgraph.matmul %r1, %wb1 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %m2 = msgraph.matmul %h1, %wa2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %a2 = msgraph.add %m2, %ba2 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r2 = msgraph.relu %a2 : tensor<8x16xf32>
  %h2 = msgraph.matmul %r2, %wb2 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %m3 = msgraph.matmul %h2, %wa3 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %a3 = msgraph.add %m3, %ba3 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %r3 = msgraph.relu %a3 : tensor<8x16xf32>
  %h3 = msgraph.matmul %r3, %wb3 : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %h3 : tensor<8x16xf32>
}
