// RUN: %check %s --work-dir %t

// REFERENCE: np.trunc(a0 / a1).astype(np.int32)
// REFERENCE: (a2 - a3).astype(np.uint8)
// REFERENCE: np.maximum(a2, a3)
// REFERENCE: a0 * a1
// INPUT 0: rng.integers(-100, 100, shape)
// INPUT 1: rng.choice([-7, -3, 2, 5], shape)
// INPUT 2: rng.integers(0, 256, shape)
// INPUT 3: rng.integers(0, 256, shape)
func.func @main(%a0: tensor<2x4xi32>, %a1: tensor<4xi32>, %a2: tensor<4xui8>, %a3: tensor<4xui8>) -> (tensor<2x4xi32>, tensor<4xui8>, tensor<4xui8>, tensor<2x4xi32>) {
  %r = msgraph.div %a0, %a1 : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  %s = msgraph.sub %a2, %a3 : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %u = msgraph.max %a2, %a3 : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %v = msgraph.mul %a0, %a1 : (tensor<2x4xi32>, tensor<4xi32>) -> tensor<2x4xi32>
  return %r, %s, %u, %v : tensor<2x4xi32>, tensor<4xui8>, tensor<4xui8>, tensor<2x4xi32>
}
