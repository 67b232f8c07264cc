// A GPT-style pre-norm transformer layer at GPT-3 6.7B's width: hidden 4096,
// 32 heads of 128, FFN 16384, 2048 tokens (batch 1), f32; the weights are
// inputs so that the file stays small. Too big to run on this machine, it
// is for dry runs and simulation at scale (docs/Architecture.md,
// "Simulating a plan"), e.g. tensor parallel over 8 devices:
//
//   ms-compile examples/gpt-layer.mlir -O1 --dry-run --simulate h100-nvlink \
//     --mesh 8 --mesh-axes tp --shard wq=-,tp --shard wk=-,tp \
//     --shard wv=-,tp --shard wo=tp,- --shard w1=-,tp --shard w2=tp,-
//
// Attention is written op by op (fusion raises it to msgraph.attention
// after the dist phase), so that its heads are split with the
// projections.
func.func @main(%x: tensor<2048x4096xf32> {ms.name = "x"},
                %wq: tensor<4096x4096xf32> {ms.name = "wq"},
                %wk: tensor<4096x4096xf32> {ms.name = "wk"},
                %wv: tensor<4096x4096xf32> {ms.name = "wv"},
                %wo: tensor<4096x4096xf32> {ms.name = "wo"},
                %w1: tensor<4096x16384xf32> {ms.name = "w1"},
                %w2: tensor<16384x4096xf32> {ms.name = "w2"},
                %g1: tensor<4096xf32> {ms.name = "g1"},
                %g2: tensor<4096xf32> {ms.name = "g2"}) -> (tensor<2048x4096xf32> {ms.name = "y"}) {
  %n1 = msgraph.layer_norm %x, %g1 {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2048x4096xf32>, tensor<4096xf32>) -> tensor<2048x4096xf32>
  %q0 = msgraph.matmul %n1, %wq : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
  %k0 = msgraph.matmul %n1, %wk : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
  %v0 = msgraph.matmul %n1, %wv : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
  %q1 = msgraph.reshape %q0 : (tensor<2048x4096xf32>) -> tensor<1x2048x32x128xf32>
  %k1 = msgraph.reshape %k0 : (tensor<2048x4096xf32>) -> tensor<1x2048x32x128xf32>
  %v1 = msgraph.reshape %v0 : (tensor<2048x4096xf32>) -> tensor<1x2048x32x128xf32>
  %q = msgraph.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2048x32x128xf32>) -> tensor<1x32x2048x128xf32>
  %k = msgraph.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2048x32x128xf32>) -> tensor<1x32x2048x128xf32>
  %v = msgraph.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x2048x32x128xf32>) -> tensor<1x32x2048x128xf32>
  %kt = msgraph.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (tensor<1x32x2048x128xf32>) -> tensor<1x32x128x2048xf32>
  %s0 = msgraph.matmul %q, %kt : (tensor<1x32x2048x128xf32>, tensor<1x32x128x2048xf32>) -> tensor<1x32x2048x2048xf32>
  %scale = msgraph.constant dense<0.0883883461> : tensor<f32>
  %s1 = msgraph.mul %s0, %scale : (tensor<1x32x2048x2048xf32>, tensor<f32>) -> tensor<1x32x2048x2048xf32>
  %p = msgraph.softmax %s1 {axis = -1 : i64} : tensor<1x32x2048x2048xf32>
  %a = msgraph.matmul %p, %v : (tensor<1x32x2048x2048xf32>, tensor<1x32x2048x128xf32>) -> tensor<1x32x2048x128xf32>
  %a1 = msgraph.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : (tensor<1x32x2048x128xf32>) -> tensor<1x2048x32x128xf32>
  %a2 = msgraph.reshape %a1 : (tensor<1x2048x32x128xf32>) -> tensor<2048x4096xf32>
  %o = msgraph.matmul %a2, %wo : (tensor<2048x4096xf32>, tensor<4096x4096xf32>) -> tensor<2048x4096xf32>
  %h = msgraph.add %x, %o : (tensor<2048x4096xf32>, tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  %n2 = msgraph.layer_norm %h, %g2 {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2048x4096xf32>, tensor<4096xf32>) -> tensor<2048x4096xf32>
  %f1 = msgraph.matmul %n2, %w1 : (tensor<2048x4096xf32>, tensor<4096x16384xf32>) -> tensor<2048x16384xf32>
  %f2 = msgraph.gelu %f1 : tensor<2048x16384xf32>
  %f3 = msgraph.matmul %f2, %w2 : (tensor<2048x16384xf32>, tensor<16384x4096xf32>) -> tensor<2048x4096xf32>
  %y = msgraph.add %h, %f3 : (tensor<2048x4096xf32>, tensor<2048x4096xf32>) -> tensor<2048x4096xf32>
  return %y : tensor<2048x4096xf32>
}
