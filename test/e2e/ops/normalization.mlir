// RUN: %check %s --work-dir %t

// REFERENCE: batch_norm(a0, a1, a2, a3, a4, 1e-3)
// REFERENCE: layer_norm(a0, a5, a6)
// REFERENCE: instance_norm(a0, a1, a2)
// REFERENCE: lrn(a0, 3, alpha=0.5)
// INPUT 4: rng.uniform(0.5, 2, shape)
// TOLERANCE: rtol=0.0001 atol=1e-05
func.func @main(%a0: tensor<2x3x4x5xf32>, %a1: tensor<3xf32>, %a2: tensor<3xf32>, %a3: tensor<3xf32>, %a4: tensor<3xf32>, %a5: tensor<5xf32>, %a6: tensor<5xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) {
  %r = msgraph.batch_norm %a0, %a1, %a2, %a3, %a4 {epsilon = 1.0e-03 : f32} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  %s = msgraph.layer_norm %a0, %a5, %a6 : (tensor<2x3x4x5xf32>, tensor<5xf32>, tensor<5xf32>) -> tensor<2x3x4x5xf32>
  %u = msgraph.instance_norm %a0, %a1, %a2 : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
  %v = msgraph.lrn %a0 {size = 3 : i64, alpha = 0.5 : f32} : tensor<2x3x4x5xf32>
  return %r, %s, %u, %v : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>
}
