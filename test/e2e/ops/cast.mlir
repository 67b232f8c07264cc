// RUN: %check %s --work-dir %t

// REFERENCE: a0.astype(np.int32)
// REFERENCE: a1.astype(np.float64)
// REFERENCE: a2.astype(np.float32)
// REFERENCE: a0 != 0
// REFERENCE: a0.astype(np.float16)
// INPUT 0: rng.uniform(-50, 50, shape)
// INPUT 2: rng.integers(0, 256, shape)
// TOLERANCE: rtol=0.001 atol=0.001
func.func @main(%a0: tensor<3x4xf32>, %a1: tensor<5xi32>, %a2: tensor<4xui8>) -> (tensor<3x4xi32>, tensor<5xf64>, tensor<4xf32>, tensor<3x4xi1>, tensor<3x4xf16>) {
  %r = msgraph.cast %a0 : (tensor<3x4xf32>) -> tensor<3x4xi32>
  %s = msgraph.cast %a1 : (tensor<5xi32>) -> tensor<5xf64>
  %u = msgraph.cast %a2 : (tensor<4xui8>) -> tensor<4xf32>
  %v = msgraph.cast %a0 : (tensor<3x4xf32>) -> tensor<3x4xi1>
  %w = msgraph.cast %a0 : (tensor<3x4xf32>) -> tensor<3x4xf16>
  return %r, %s, %u, %v, %w : tensor<3x4xi32>, tensor<5xf64>, tensor<4xf32>, tensor<3x4xi1>, tensor<3x4xf16>
}
