
// Verifier errors of msgraph.avg_pool.

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  %r = msgraph.avg_pool %x {kernel_shape = array<i64: 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  %r = msgraph.avg_pool %x {kernel_shape = array<i64: 2, 0>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x31x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x32x32xf32>) {
  %r = msgraph.avg_pool %x {kernel_shape = array<i64: 2, 2>, pads = array<i64: 2, 0, 0, 0>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x33x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8x32xf32>) {
  %r = msgraph.avg_pool %x {kernel_shape = array<i64: 2>} : (tensor<8x32xf32>) -> tensor<8x31xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x2x2xf32>) {
  %r = msgraph.avg_pool %x {kernel_shape = array<i64: 3, 3>} : (tensor<1x8x2x2xf32>) -> tensor<1x8x1x1xf32>
  return
}
