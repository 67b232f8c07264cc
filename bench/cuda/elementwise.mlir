// A fused elementwise chain over 64M floats (256 MiB in, 256 MiB out): one
// kernel at O1; its bandwidth is compared with the device's copy bandwidth.
// TORCH: torch.relu(a0 * a1 + a1)
// MOVES: 536870912
func.func @main(%a0: tensor<67108864xf32>, %a1: tensor<f32>) -> tensor<67108864xf32> {
  %m = msgraph.mul %a0, %a1 : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %s = msgraph.add %m, %a1 : (tensor<67108864xf32>, tensor<f32>) -> tensor<67108864xf32>
  %r = msgraph.relu %s : tensor<67108864xf32>
  return %r : tensor<67108864xf32>
}
