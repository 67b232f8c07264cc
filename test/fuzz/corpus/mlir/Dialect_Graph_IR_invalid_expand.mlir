
// Verifier errors of msgraph.expand.

func.func @invalid(%x: tensor<3x2xf32>) {
  %r = msgraph.expand %x : (tensor<3x2xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x2xf32>) {
  %r = msgraph.expand %x : (tensor<3x2xf32>) -> tensor<6xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x1xf32>) {
  %r = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<3x4xf16>
  return
}

// -----

func.func @invalid(%x: tensor<3x1xf32>, %s: tensor<3xi64>) {
  %r = msgraph.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<3x?xf32>
  return
}

// -----

func.func @invalid(%x: tensor<3x1xf32>) {
  %r = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<?x3x4xf32>
  return
}
