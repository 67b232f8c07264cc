// RUN: %check %s --work-dir %t
// RUN: %check %s --work-dir %t.v3 --levels O1 --compile-flags=--target-cpu=x86-64-v3
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v4 --compile-to=linalg | FileCheck %s
// Convolutions the register-tiled contraction kernel covers after an
// im2col copy (ms-cpu-contraction-kernels), at every level: a 3x3 conv
// with bias, residual and ReLU applied in registers (batch 2, 10x10
// positions: a partial last block of columns); a 7x7 stride-2 stem (rows
// of the input read whole, every second element kept); a 1x1 stride-2
// downsample; a grouped conv (groups of 8 output channels); a dilated 1-D
// conv; a 3x3 conv on 7x7 positions (fewer columns than two vectors: the
// row blocks are the outer forall dim); a conv with one output position
// (im2col rows one element wide); a 3x3 conv on 64x64 positions whose
// im2col copy (2.4 MB) runs in 8 tiles of 8 output rows with its bias,
// residual and ReLU. Results match float64 NumPy and O0.
// Every conv is a kernel with one fused multiply-add per register row, no
// generic reduction left.
// CHECK-LABEL: func.func @fused_0_conv_add_relu
// CHECK-NOT: "reduction"
// CHECK: vector.fma
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK-LABEL: func.func @kernel_1
// CHECK: vector.shuffle
// CHECK: vector.fma
// CHECK-NOT: "reduction"
// CHECK-LABEL: func.func @kernel_2
// CHECK: vector.fma
// CHECK-NOT: "reduction"
// CHECK-LABEL: func.func @fused_7_conv_add_relu
// CHECK: scf.forall (%{{.+}}) = (0) to (64) step (8)
// CHECK: scf.forall (%{{.+}}) = (0) to (512) step (32)
// CHECK: vector.fma
// CHECK: arith.maximumf {{.*}} : vector<32xf32>

// Compiled for AVX2 (x86-64-v3: blocks of 6 rows by two 8-lane vectors)
// the results match too.
// REFERENCE: np.maximum(conv(a0, a1, a2, pads=[1, 1, 1, 1]) + a0, 0)
// REFERENCE: conv(a3, a4, strides=[2, 2], pads=[3, 3, 3, 3])
// REFERENCE: conv(a0, a5, strides=[2, 2])
// REFERENCE: conv(a0, a6, group=2, pads=[1, 1, 1, 1])
// REFERENCE: conv(a7, a8, dilations=[2])
// REFERENCE: conv(a9, a10, pads=[1, 1, 1, 1])
// REFERENCE: conv(a11, a12)
// REFERENCE: np.maximum(conv(a13, a14, a15, pads=[1, 1, 1, 1]) + a16, 0)
// TOLERANCE: rtol=0.0001 atol=1e-04
// NPU-TOLERANCE: rtol=1e-2 atol=1e-2 (convolutions run on the cube with fp16 inputs: docs/NPU.md)
func.func @main(%a0: tensor<2x16x10x10xf32>, %a1: tensor<16x16x3x3xf32>, %a2: tensor<16xf32>, %a3: tensor<1x3x20x20xf32>, %a4: tensor<8x3x7x7xf32>, %a5: tensor<24x16x1x1xf32>, %a6: tensor<16x8x3x3xf32>, %a7: tensor<1x4x40xf32>, %a8: tensor<8x4x5xf32>, %a9: tensor<1x32x7x7xf32>, %a10: tensor<64x32x3x3xf32>, %a11: tensor<1x8x3x3xf32>, %a12: tensor<8x8x3x3xf32>, %a13: tensor<1x16x64x64xf32>, %a14: tensor<8x16x3x3xf32>, %a15: tensor<8xf32>, %a16: tensor<1x8x64x64xf32>) -> (tensor<2x16x10x10xf32>, tensor<1x8x10x10xf32>, tensor<2x24x5x5xf32>, tensor<2x16x10x10xf32>, tensor<1x8x32xf32>, tensor<1x64x7x7xf32>, tensor<1x8x1x1xf32>, tensor<1x8x64x64xf32>) {
  %c = msgraph.conv %a0, %a1, %a2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x10x10xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x10xf32>
  %s = msgraph.add %c, %a0 : (tensor<2x16x10x10xf32>, tensor<2x16x10x10xf32>) -> tensor<2x16x10x10xf32>
  %r = msgraph.relu %s : tensor<2x16x10x10xf32>
  %stem = msgraph.conv %a3, %a4 {pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x20x20xf32>, tensor<8x3x7x7xf32>) -> tensor<1x8x10x10xf32>
  %down = msgraph.conv %a0, %a5 {strides = array<i64: 2, 2>} : (tensor<2x16x10x10xf32>, tensor<24x16x1x1xf32>) -> tensor<2x24x5x5xf32>
  %grouped = msgraph.conv %a0, %a6 {group = 2 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x10x10xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x10x10xf32>
  %dilated = msgraph.conv %a7, %a8 {dilations = array<i64: 2>} : (tensor<1x4x40xf32>, tensor<8x4x5xf32>) -> tensor<1x8x32xf32>
  %small = msgraph.conv %a9, %a10 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x7x7xf32>, tensor<64x32x3x3xf32>) -> tensor<1x64x7x7xf32>
  %one = msgraph.conv %a11, %a12 : (tensor<1x8x3x3xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x1x1xf32>
  %bc = msgraph.conv %a13, %a14, %a15 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x16x64x64xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>) -> tensor<1x8x64x64xf32>
  %bs = msgraph.add %bc, %a16 : (tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %big = msgraph.relu %bs : tensor<1x8x64x64xf32>
  return %r, %stem, %down, %grouped, %dilated, %small, %one, %big : tensor<2x16x10x10xf32>, tensor<1x8x10x10xf32>, tensor<2x24x5x5xf32>, tensor<2x16x10x10xf32>, tensor<1x8x32xf32>, tensor<1x64x7x7xf32>, tensor<1x8x1x1xf32>, tensor<1x8x64x64xf32>
}
