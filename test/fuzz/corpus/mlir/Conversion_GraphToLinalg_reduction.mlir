
func.func @reduce_mean_keep_dims(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = msgraph.reduce_mean %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @argmax(%x: tensor<3x4xf32>) -> tensor<4xi64> {
  %0 = msgraph.argmax %x {axis = 0 : i64, keep_dims = false} : (tensor<3x4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// Softmax: max, exp(x - max), sum, divide.
func.func @softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = msgraph.softmax %x : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @log_softmax(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = msgraph.log_softmax %x {axis = 0 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// A scan is a loop along the axis carrying one slice; exclusive writes the
// carried slice before combining the next input slice into it.
func.func @cumsum_exclusive_reverse(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = msgraph.cumsum %x {axis = -1 : i64, exclusive = true, reverse = true} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @cumprod_int(%x: tensor<4x3xi32>) -> tensor<4x3xi32> {
  %0 = msgraph.cumprod %x {axis = 0 : i64} : tensor<4x3xi32>
  return %0 : tensor<4x3xi32>
}
