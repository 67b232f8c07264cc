// RUN: %check %s --work-dir %t

// A boolean mask chosen between a constant and a matrix product: at O1 and
// O2 the where is the product's epilogue, which on the CPU reads the mask
// as vectors along the columns. A tensor of booleans holds a byte per
// element, which those vectors must load as bytes
// (ms-cpu-legalize-bool-memory), not as LLVM's packed bits. A product
// compared with zero gives booleans too.
// INPUT 2: rng.random(shape) > 0.5
// REFERENCE: np.where(a2, np.float32(-1e4), a0 @ a1)
// REFERENCE: (a3 @ a1) > 0
// TOLERANCE: rtol=1e-05 atol=1e-05
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (fp16 cube inputs: docs/NPU.md)
func.func @main(%a0: tensor<64x32xf32>, %a1: tensor<32x64xf32>, %a2: tensor<64x64xi1>, %a3: tensor<64x32xf32>) -> (tensor<64x64xf32>, tensor<64x64xi1>) {
  %ninf = msgraph.constant dense<-1.0e+04> : tensor<f32>
  %s = msgraph.matmul %a0, %a1 : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %w = msgraph.where %a2, %ninf, %s : (tensor<64x64xi1>, tensor<f32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %t = msgraph.matmul %a3, %a1 : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %zero = msgraph.constant dense<0.0> : tensor<f32>
  %g = msgraph.greater %t, %zero : (tensor<64x64xf32>, tensor<f32>) -> tensor<64x64xi1>
  return %w, %g : tensor<64x64xf32>, tensor<64x64xi1>
}
