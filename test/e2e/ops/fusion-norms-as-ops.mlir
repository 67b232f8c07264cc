// RUN: %check %s --work-dir %t
// RUN: ms-compile %s -O1 --compile-to=plan | FileCheck %s
// RUN: ms-compile %s -O1 --compile-to=plan | grep -c msexec.launch | FileCheck %s --check-prefix=COUNT
// RUN: ms-compile %s -O1 --compile-to=linalg | grep -c "scf.forall (" | FileCheck %s --check-prefix=COUNT
// LayerNorm (with the residual add before it), RMSNorm and softmax written
// op by op, as exporters before opset 17 (and hand-written LLaMA code)
// produce them: at O1 each is one kernel tiled by rows, computing each
// row's statistics once (msfusion-form-groups F2b). All levels match the
// float64 reference and O0.

// Each kernel is named after its distinct ops, in order, and each is tiled.
// COUNT: 3
// CHECK-DAG: source_op = "msgraph.add+msgraph.reduce_mean+msgraph.sub+msgraph.pow+msgraph.sqrt+msgraph.div+msgraph.mul"
// CHECK-DAG: source_op = "msgraph.mul+msgraph.reduce_mean+msgraph.add+msgraph.sqrt+msgraph.reciprocal"
// CHECK-DAG: source_op = "msgraph.reduce_max+msgraph.sub+msgraph.exp+msgraph.reduce_sum+msgraph.div"

// REFERENCE: layer_norm(a0 + a1, a2, a3)
// REFERENCE: a0 / np.sqrt(np.mean(a0 * a0, axis=-1, keepdims=True) + 1e-6) * a2
// REFERENCE: softmax(a1)
// TOLERANCE: rtol=0.0001 atol=1e-05
func.func @main(%x: tensor<2x64x256xf32>, %r: tensor<2x64x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> (tensor<2x64x256xf32>, tensor<2x64x256xf32>, tensor<2x64x256xf32>) {
  %h = msgraph.add %x, %r : (tensor<2x64x256xf32>, tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %mean = msgraph.reduce_mean %h {axes = array<i64: -1>} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %d = msgraph.sub %h, %mean : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %two = msgraph.constant dense<2.0> : tensor<f32>
  %sq = msgraph.pow %d, %two : (tensor<2x64x256xf32>, tensor<f32>) -> tensor<2x64x256xf32>
  %var = msgraph.reduce_mean %sq {axes = array<i64: -1>} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %eps = msgraph.constant dense<1.0e-5> : tensor<f32>
  %ve = msgraph.add %var, %eps : (tensor<2x64x1xf32>, tensor<f32>) -> tensor<2x64x1xf32>
  %s = msgraph.sqrt %ve : tensor<2x64x1xf32>
  %n = msgraph.div %d, %s : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %m = msgraph.mul %n, %g : (tensor<2x64x256xf32>, tensor<256xf32>) -> tensor<2x64x256xf32>
  %ln = msgraph.add %m, %b : (tensor<2x64x256xf32>, tensor<256xf32>) -> tensor<2x64x256xf32>

  %xx = msgraph.mul %x, %x : (tensor<2x64x256xf32>, tensor<2x64x256xf32>) -> tensor<2x64x256xf32>
  %ms = msgraph.reduce_mean %xx {axes = array<i64: -1>} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %eps6 = msgraph.constant dense<1.0e-6> : tensor<f32>
  %mse = msgraph.add %ms, %eps6 : (tensor<2x64x1xf32>, tensor<f32>) -> tensor<2x64x1xf32>
  %rt = msgraph.sqrt %mse : tensor<2x64x1xf32>
  %inv = msgraph.reciprocal %rt : tensor<2x64x1xf32>
  %xn = msgraph.mul %x, %inv : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %rms = msgraph.mul %xn, %g : (tensor<2x64x256xf32>, tensor<256xf32>) -> tensor<2x64x256xf32>

  %mx = msgraph.reduce_max %r {axes = array<i64: -1>} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %sh = msgraph.sub %r, %mx : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  %ex = msgraph.exp %sh : tensor<2x64x256xf32>
  %sum = msgraph.reduce_sum %ex {axes = array<i64: -1>} : (tensor<2x64x256xf32>) -> tensor<2x64x1xf32>
  %sm = msgraph.div %ex, %sum : (tensor<2x64x256xf32>, tensor<2x64x1xf32>) -> tensor<2x64x256xf32>
  return %ln, %rms, %sm : tensor<2x64x256xf32>, tensor<2x64x256xf32>, tensor<2x64x256xf32>
}
