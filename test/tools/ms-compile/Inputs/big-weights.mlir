// A matmul with a 64 MB weight: writing its module takes long enough for
// kill-compile.py to kill ms-compile in the middle.
func.func @main(%x: tensor<4x4096xf32>) -> tensor<4x4096xf32> {
  %w = msgraph.constant dense<0.5> : tensor<4096x4096xf32>
  %y = msgraph.matmul %x, %w : (tensor<4x4096xf32>, tensor<4096x4096xf32>) -> tensor<4x4096xf32>
  return %y : tensor<4x4096xf32>
}
