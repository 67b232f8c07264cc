// RUN: %check %s --work-dir %t
// At O1 the whole program is one fused kernel: the scale and shift, the
// tanh GELU written out (x^3 as a power of 3) and the layer norm, tiled by
// rows (64x1024: 4 tiles of 16 rows), with the intermediates in per-tile
// buffers. Each level's results equal O0's within the tolerance (the power
// becomes x*x*x at O1).

// REFERENCE: layer_norm(gelu(a0 * a1 + a2, "tanh"), a3, a4)
// TOLERANCE: rtol=0.0001 atol=1e-05
func.func @main(%a0: tensor<64x1024xf32>, %a1: tensor<1024xf32>, %a2: tensor<1024xf32>, %a3: tensor<1024xf32>, %a4: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %half = msgraph.constant dense<0.5> : tensor<f32>
  %one = msgraph.constant dense<1.0> : tensor<f32>
  %three = msgraph.constant dense<3.0> : tensor<f32>
  %c = msgraph.constant dense<0.044715> : tensor<f32>
  %k = msgraph.constant dense<0.7978845608> : tensor<f32>
  %0 = msgraph.mul %a0, %a1 : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %h = msgraph.add %0, %a2 : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %1 = msgraph.pow %h, %three : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64x1024xf32>
  %2 = msgraph.mul %1, %c : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64x1024xf32>
  %3 = msgraph.add %h, %2 : (tensor<64x1024xf32>, tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %4 = msgraph.mul %3, %k : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64x1024xf32>
  %5 = msgraph.tanh %4 : tensor<64x1024xf32>
  %6 = msgraph.add %5, %one : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64x1024xf32>
  %7 = msgraph.mul %h, %half : (tensor<64x1024xf32>, tensor<f32>) -> tensor<64x1024xf32>
  %8 = msgraph.mul %7, %6 : (tensor<64x1024xf32>, tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %9 = msgraph.layer_norm %8, %a3, %a4 : (tensor<64x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  return %9 : tensor<64x1024xf32>
}
