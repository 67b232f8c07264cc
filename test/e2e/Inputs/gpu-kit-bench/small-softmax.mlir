// A softmax small enough to time on the CPU, with a variant (whose cuda
// flag the cpu target ignores): gpu-kit.test's benchmark directory.
// VARIANT: wide --cuda-wide-tiles
// TORCH: torch.softmax(a0, -1)
// MOVES: 131072
func.func @main(%a0: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %r = msgraph.softmax %a0 : tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}
