
// Verifier errors of msgraph.batch_norm.

func.func @invalid(%x: tensor<1x8x4x4xf32>, %s: tensor<4xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  %r = msgraph.batch_norm %x, %s, %b, %m, %v : (tensor<1x8x4x4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf16>, %v: tensor<8xf32>) {
  %r = msgraph.batch_norm %x, %s, %b, %m, %v : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

func.func @invalid(%x: tensor<8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  %r = msgraph.batch_norm %x, %s, %b, %m, %v : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x8x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  %r = msgraph.batch_norm %x, %s, %b, %m, %v : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x5xf32>
  return
}

// -----

func.func @invalid(%x: tensor<1x?x4x4xf32>, %s: tensor<8xf32>, %b: tensor<8x2xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) {
  %r = msgraph.batch_norm %x, %s, %b, %m, %v : (tensor<1x?x4x4xf32>, tensor<8xf32>, tensor<8x2xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x?x4x4xf32>
  return
}
