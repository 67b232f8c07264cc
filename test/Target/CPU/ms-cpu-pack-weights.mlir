// RUN: ms-opt %s -split-input-file -ms-cpu-pack-weights | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-cpu-pack-weights=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: not ms-opt %s -split-input-file -ms-cpu-pack-weights=precision=f16 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: expected precision f32 or bf16, found 'f16'

// A 3x3 conv on 2x2 positions with 16 output channels (w[m, ...] = m),
// called twice with the same constant weight: the constant is transposed
// once to [C, KH, KW, M] (a relayout the module writer computes; its
// bytes are checked in test/Unit) and the kernel transposes its argument
// back for the conv.
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<16x2x3x3xf32>, shape = [16, 2, 3, 3], permutation = [1, 2, 3, 0]> : tensor<2x3x3x16xf32>
// CHECK-NOT: tensor<16x2x3x3xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: (%{{.+}}: tensor<1x2x4x4xf32>, %[[ARG:.+]]: tensor<2x3x3x16xf32>)
// CHECK: %[[BACK:.+]] = msgraph.transpose %[[ARG]] {permutation = array<i64: 3, 0, 1, 2>} : (tensor<2x3x3x16xf32>) -> tensor<16x2x3x3xf32>
// CHECK: msgraph.conv %{{.+}}, %[[BACK]]
func.func @main(%x: tensor<1x2x4x4xf32>) -> (tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>) {
  %w = msgraph.constant dense<[[[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]], [[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]], [[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]], [[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0], [3.0, 3.0, 3.0]], [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]], [[[4.0, 4.0, 4.0], [4.0, 4.0, 4.0], [4.0, 4.0, 4.0]], [[4.0, 4.0, 4.0], [4.0, 4.0, 4.0], [4.0, 4.0, 4.0]]], [[[5.0, 5.0, 5.0], [5.0, 5.0, 5.0], [5.0, 5.0, 5.0]], [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]], [[[6.0, 6.0, 6.0], [6.0, 6.0, 6.0], [6.0, 6.0, 6.0]], [[6.0, 6.0, 6.0], [6.0, 6.0, 6.0], [6.0, 6.0, 6.0]]], [[[7.0, 7.0, 7.0], [7.0, 7.0, 7.0], [7.0, 7.0, 7.0]], [[7.0, 7.0, 7.0], [7.0, 7.0, 7.0], [7.0, 7.0, 7.0]]], [[[8.0, 8.0, 8.0], [8.0, 8.0, 8.0], [8.0, 8.0, 8.0]], [[8.0, 8.0, 8.0], [8.0, 8.0, 8.0], [8.0, 8.0, 8.0]]], [[[9.0, 9.0, 9.0], [9.0, 9.0, 9.0], [9.0, 9.0, 9.0]], [[9.0, 9.0, 9.0], [9.0, 9.0, 9.0], [9.0, 9.0, 9.0]]], [[[10.0, 10.0, 10.0], [10.0, 10.0, 10.0], [10.0, 10.0, 10.0]], [[10.0, 10.0, 10.0], [10.0, 10.0, 10.0], [10.0, 10.0, 10.0]]], [[[11.0, 11.0, 11.0], [11.0, 11.0, 11.0], [11.0, 11.0, 11.0]], [[11.0, 11.0, 11.0], [11.0, 11.0, 11.0], [11.0, 11.0, 11.0]]], [[[12.0, 12.0, 12.0], [12.0, 12.0, 12.0], [12.0, 12.0, 12.0]], [[12.0, 12.0, 12.0], [12.0, 12.0, 12.0], [12.0, 12.0, 12.0]]], [[[13.0, 13.0, 13.0], [13.0, 13.0, 13.0], [13.0, 13.0, 13.0]], [[13.0, 13.0, 13.0], [13.0, 13.0, 13.0], [13.0, 13.0, 13.0]]], [[[14.0, 14.0, 14.0], [14.0, 14.0, 14.0], [14.0, 14.0, 14.0]], [[14.0, 14.0, 14.0], [14.0, 14.0, 14.0], [14.0, 14.0, 14.0]]], [[[15.0, 15.0, 15.0], [15.0, 15.0, 15.0], [15.0, 15.0, 15.0]], [[15.0, 15.0, 15.0], [15.0, 15.0, 15.0], [15.0, 15.0, 15.0]]]]> : tensor<16x2x3x3xf32>
  %a = call @kernel_0(%x, %w) : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  %b = call @kernel_0(%x, %w) : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  return %a, %b : tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>
}
func.func @kernel_0(%x: tensor<1x2x4x4xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  return %0 : tensor<1x16x2x2xf32>
}

// -----

// Left as they are: a weight that is not a constant in one of the calls;
// more output positions than channels, a multiple of 32 of them (8x4, 16
// channels); a grouped conv; a 1x1 conv with 32 positions; a weight the
// kernel reads twice.
// CHECK-LABEL: func.func @main
// CHECK-NOT: msgraph.transpose
// CHECK-NOT: x16xf32>
func.func @main(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x10x6xf32>, %wx: tensor<16x2x3x3xf32>, %x4: tensor<1x4x8x4xf32>) -> (tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>, tensor<1x16x8x4xf32>, tensor<1x16x2x2xf32>, tensor<1x16x8x4xf32>, tensor<1x16x2x2xf32>) {
  %w = msgraph.constant dense<1.0> : tensor<16x2x3x3xf32>
  %wg = msgraph.constant dense<1.0> : tensor<16x1x3x3xf32>
  %w1 = msgraph.constant dense<1.0> : tensor<16x4x1x1xf32>
  %a = call @kernel_0(%x, %w) : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  %b = call @kernel_0(%x, %wx) : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  %c = call @kernel_1(%y, %w) : (tensor<1x2x10x6xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x8x4xf32>
  %d = call @kernel_2(%x, %wg) : (tensor<1x2x4x4xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x2x2xf32>
  %e = call @kernel_3(%x4, %w1) : (tensor<1x4x8x4xf32>, tensor<16x4x1x1xf32>) -> tensor<1x16x8x4xf32>
  %f = call @kernel_4(%x, %w) : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  return %a, %b, %c, %d, %e, %f : tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>, tensor<1x16x8x4xf32>, tensor<1x16x2x2xf32>, tensor<1x16x8x4xf32>, tensor<1x16x2x2xf32>
}
func.func @kernel_0(%x: tensor<1x2x4x4xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  return %0 : tensor<1x16x2x2xf32>
}
func.func @kernel_1(%x: tensor<1x2x10x6xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<1x16x8x4xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x10x6xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x8x4xf32>
  return %0 : tensor<1x16x8x4xf32>
}
func.func @kernel_2(%x: tensor<1x2x4x4xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x2x2xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w {group = 2 : i64} : (tensor<1x2x4x4xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x2x2xf32>
  return %0 : tensor<1x16x2x2xf32>
}
func.func @kernel_3(%x: tensor<1x4x8x4xf32>, %w: tensor<16x4x1x1xf32>) -> tensor<1x16x8x4xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x4x8x4xf32>, tensor<16x4x1x1xf32>) -> tensor<1x16x8x4xf32>
  return %0 : tensor<1x16x8x4xf32>
}
func.func @kernel_4(%x: tensor<1x2x4x4xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  %1 = msgraph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x2x2xf32>
  %2 = msgraph.add %0, %1 : (tensor<1x16x2x2xf32>, tensor<1x16x2x2xf32>) -> tensor<1x16x2x2xf32>
  return %2 : tensor<1x16x2x2xf32>
}

// -----

// More output positions than channels but not a multiple of 32 (4x4, 8
// channels): a stride-1 conv has its weight stored [C, KH, KW, M]; one of
// stride 2 (the same 4x4 positions) keeps it.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[W:.+]] = msgraph.constant dense<1.000000e+00> : tensor<2x3x3x8xf32>
// CHECK-DAG: %[[W2:.+]] = msgraph.constant dense<2.000000e+00> : tensor<8x2x3x3xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK: call @kernel_1(%{{.+}}, %[[W2]])
func.func @main(%x: tensor<1x2x6x6xf32>, %y: tensor<1x2x9x9xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %w = msgraph.constant dense<1.0> : tensor<8x2x3x3xf32>
  %w2 = msgraph.constant dense<2.0> : tensor<8x2x3x3xf32>
  %a = call @kernel_0(%x, %w) : (tensor<1x2x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  %b = call @kernel_1(%y, %w2) : (tensor<1x2x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %a, %b : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
func.func @kernel_0(%x: tensor<1x2x6x6xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}
func.func @kernel_1(%x: tensor<1x2x9x9xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w {strides = array<i64: 2, 2>} : (tensor<1x2x9x9xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A matmul by a constant [4, 64] weight (w[k, n] = n), called twice with
// it: the constant is stored once as two panels of 32 columns, [2, 4, 32]
// ([4, 64] = [4, 2, 32] transposed), and the kernel transposes and
// reshapes its argument back for the matmul.
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<4x64xf32>, shape = [4, 2, 32], permutation = [1, 0, 2]> : tensor<2x4x32xf32>
// CHECK-NOT: tensor<4x64xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: (%{{.+}}: tensor<8x4xf32>, %[[ARG:.+]]: tensor<2x4x32xf32>)
// CHECK: %[[T:.+]] = msgraph.transpose %[[ARG]] {permutation = array<i64: 1, 0, 2>} : (tensor<2x4x32xf32>) -> tensor<4x2x32xf32>
// CHECK: %[[B:.+]] = msgraph.reshape %[[T]] : (tensor<4x2x32xf32>) -> tensor<4x64xf32>
// CHECK: msgraph.matmul %{{.+}}, %[[B]]
func.func @main(%x: tensor<8x4xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %w = msgraph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<4x64xf32>
  %a = call @kernel_0(%x, %w) : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  %b = call @kernel_0(%x, %w) : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  return %a, %b : tensor<8x64xf32>, tensor<8x64xf32>
}
func.func @kernel_0(%x: tensor<8x4xf32>, %w: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}

// -----

// A 1x1 conv on 2x2 positions with 64 output channels (w[m, c] = 2m + c):
// its weight, a [C * KH * KW, M] = [2, 64] matrix once transposed, is
// stored as two panels of 32 channels, [2, 2, 32] ([64, 2] = [2, 32, 2]
// with its last two dims swapped), and the kernel turns its argument back
// with a transpose, a reshape to [C, KH, KW, M] and the conv's transpose.
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<64x2x1x1xf32>, shape = [2, 32, 2], permutation = [0, 2, 1]> : tensor<2x2x32xf32>
// CHECK-NOT: tensor<64x2x1x1xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: (%{{.+}}: tensor<1x2x2x2xf32>, %[[ARG:.+]]: tensor<2x2x32xf32>)
// CHECK: %[[T:.+]] = msgraph.transpose %[[ARG]] {permutation = array<i64: 1, 0, 2>} : (tensor<2x2x32xf32>) -> tensor<2x2x32xf32>
// CHECK: %[[R:.+]] = msgraph.reshape %[[T]] : (tensor<2x2x32xf32>) -> tensor<2x1x1x64xf32>
// CHECK: %[[BACK:.+]] = msgraph.transpose %[[R]] {permutation = array<i64: 3, 0, 1, 2>} : (tensor<2x1x1x64xf32>) -> tensor<64x2x1x1xf32>
// CHECK: msgraph.conv %{{.+}}, %[[BACK]]
func.func @main(%x: tensor<1x2x2x2xf32>) -> tensor<1x64x2x2xf32> {
  %w = msgraph.constant dense<[[[[0.0]], [[1.0]]], [[[2.0]], [[3.0]]], [[[4.0]], [[5.0]]], [[[6.0]], [[7.0]]], [[[8.0]], [[9.0]]], [[[10.0]], [[11.0]]], [[[12.0]], [[13.0]]], [[[14.0]], [[15.0]]], [[[16.0]], [[17.0]]], [[[18.0]], [[19.0]]], [[[20.0]], [[21.0]]], [[[22.0]], [[23.0]]], [[[24.0]], [[25.0]]], [[[26.0]], [[27.0]]], [[[28.0]], [[29.0]]], [[[30.0]], [[31.0]]], [[[32.0]], [[33.0]]], [[[34.0]], [[35.0]]], [[[36.0]], [[37.0]]], [[[38.0]], [[39.0]]], [[[40.0]], [[41.0]]], [[[42.0]], [[43.0]]], [[[44.0]], [[45.0]]], [[[46.0]], [[47.0]]], [[[48.0]], [[49.0]]], [[[50.0]], [[51.0]]], [[[52.0]], [[53.0]]], [[[54.0]], [[55.0]]], [[[56.0]], [[57.0]]], [[[58.0]], [[59.0]]], [[[60.0]], [[61.0]]], [[[62.0]], [[63.0]]], [[[64.0]], [[65.0]]], [[[66.0]], [[67.0]]], [[[68.0]], [[69.0]]], [[[70.0]], [[71.0]]], [[[72.0]], [[73.0]]], [[[74.0]], [[75.0]]], [[[76.0]], [[77.0]]], [[[78.0]], [[79.0]]], [[[80.0]], [[81.0]]], [[[82.0]], [[83.0]]], [[[84.0]], [[85.0]]], [[[86.0]], [[87.0]]], [[[88.0]], [[89.0]]], [[[90.0]], [[91.0]]], [[[92.0]], [[93.0]]], [[[94.0]], [[95.0]]], [[[96.0]], [[97.0]]], [[[98.0]], [[99.0]]], [[[100.0]], [[101.0]]], [[[102.0]], [[103.0]]], [[[104.0]], [[105.0]]], [[[106.0]], [[107.0]]], [[[108.0]], [[109.0]]], [[[110.0]], [[111.0]]], [[[112.0]], [[113.0]]], [[[114.0]], [[115.0]]], [[[116.0]], [[117.0]]], [[[118.0]], [[119.0]]], [[[120.0]], [[121.0]]], [[[122.0]], [[123.0]]], [[[124.0]], [[125.0]]], [[[126.0]], [[127.0]]]]> : tensor<64x2x1x1xf32>
  %a = call @kernel_0(%x, %w) : (tensor<1x2x2x2xf32>, tensor<64x2x1x1xf32>) -> tensor<1x64x2x2xf32>
  return %a : tensor<1x64x2x2xf32>
}
func.func @kernel_0(%x: tensor<1x2x2x2xf32>, %w: tensor<64x2x1x1xf32>) -> tensor<1x64x2x2xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x2x2xf32>, tensor<64x2x1x1xf32>) -> tensor<1x64x2x2xf32>
  return %0 : tensor<1x64x2x2xf32>
}

// -----

// A 3x3 stride-1 conv from 32 to 32 channels on 28x28 positions (even
// rows and columns, a 64 KiB transformed filter) runs as Winograd F(2x2,
// 3x3): its all-ones weight is stored as G g G^T, [16, 32, 32] (element 0
// 1.0, element [1, 0, 0] 1.5: 0x3F800000, 0x3FC00000), the kernel argument
// marked ms.winograd_filter and unpacked by Gp U Gp^T for the conv.
// CHECK-LABEL: func.func @main
// CHECK: %[[U:.+]] = msgraph.constant dense<"0x0000803F{{.*}}"> : tensor<16x32x32xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[U]])
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: %[[ARG:[^:]+]]: tensor<16x32x32xf32> {ms.winograd_filter}
// CHECK: %[[R:.+]] = msgraph.reshape %[[ARG]] : (tensor<16x32x32xf32>) -> tensor<4x4x32x32xf32>
// CHECK: %[[T:.+]] = msgraph.transpose %[[R]] {permutation = array<i64: 2, 3, 0, 1>}
// CHECK: %[[GP:.+]] = msgraph.constant dense<{{\[}}[1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, -1.000000e+00, 0.000000e+00]
// CHECK: %[[ROWS:.+]] = msgraph.matmul %[[GP]], %[[T]] : (tensor<3x4xf32>, tensor<32x32x4x4xf32>) -> tensor<32x32x3x4xf32>
// CHECK: %[[W:.+]] = msgraph.matmul %[[ROWS]], %{{.+}} : (tensor<32x32x3x4xf32>, tensor<4x3xf32>) -> tensor<32x32x3x3xf32>
// CHECK: msgraph.conv %{{.+}}, %[[W]]
func.func @main(%x: tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32> {
  %w = msgraph.constant dense<1.0> : tensor<32x32x3x3xf32>
  %y = call @kernel_0(%x, %w) : (tensor<1x32x28x28xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x28x28xf32>
  return %y : tensor<1x32x28x28xf32>
}
func.func @kernel_0(%x: tensor<1x32x28x28xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x28x28xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x28x28xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x28x28xf32>
  return %0 : tensor<1x32x28x28xf32>
}

// -----

// A weight in an external-data file (msgraph.external_data) is stored in
// panels too, as a relayout of the file's constant: the runtime computes
// it from the file as it loads the module. (A splat weight would fold to
// another splat, held in the module: its bytes are one element.)
// CHECK-LABEL: func.func @external
// CHECK: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<4x64xf32>, shape = [4, 2, 32], permutation = [1, 0, 2]> : tensor<2x4x32xf32>
// CHECK: call @external_kernel(%{{.+}}, %[[W]])
module attributes {msgraph.external_data = [
    ["/d/m.onnx.data", 0 : i64, 1024 : i64, dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<4x64xf32>]]} {
  func.func @external(%x: tensor<8x4xf32>) -> tensor<8x64xf32> {
    %w = msgraph.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0]]> : tensor<4x64xf32>
    %0 = call @external_kernel(%x, %w) : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
    return %0 : tensor<8x64xf32>
  }
  func.func @external_kernel(%x: tensor<8x4xf32>, %w: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ms.kernel} {
    %0 = msgraph.matmul %x, %w : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
    return %0 : tensor<8x64xf32>
  }
}

// -----

// precision=bf16: a [4, 64] weight (row k holds k) stored in bf16 as pairs
// of rows in panels of 32 columns, [2, 2, 64]: each row of a panel holds
// the pairs (k, k + 1) of its columns ([4, 64] = [2, 2, 2, 32] as [2, 2,
// 32, 2], rounded to bf16); the kernel splits the pairs, transposes them
// back to rows, extends them to f32 and unpacks the panels. With f32, the
// usual panels [2, 4, 32].
// BF16-LABEL: func.func @pairs
// BF16: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<4x64xf32>, shape = [2, 2, 2, 32], permutation = [2, 0, 3, 1]> : tensor<2x2x64xbf16>
// BF16: call @pairs_kernel(%{{.+}}, %[[W]])
// BF16-LABEL: func.func @pairs_kernel
// BF16-SAME: %[[ARG:[a-z0-9]+]]: tensor<2x2x64xbf16>
// BF16: %[[SPLIT:.+]] = msgraph.reshape %[[ARG]] : (tensor<2x2x64xbf16>) -> tensor<2x2x32x2xbf16>
// BF16: %[[BACK:.+]] = msgraph.transpose %[[SPLIT]] {permutation = array<i64: 0, 1, 3, 2>} : (tensor<2x2x32x2xbf16>) -> tensor<2x2x2x32xbf16>
// BF16: %[[PANELS:.+]] = msgraph.reshape %[[BACK]] : (tensor<2x2x2x32xbf16>) -> tensor<2x4x32xbf16>
// BF16: %[[F32:.+]] = msgraph.cast %[[PANELS]] : (tensor<2x4x32xbf16>) -> tensor<2x4x32xf32>
// BF16: msgraph.transpose %[[F32]] {permutation = array<i64: 1, 0, 2>}
// CHECK-LABEL: func.func @pairs_kernel
// CHECK-SAME: tensor<2x4x32xf32>
func.func @pairs(%x: tensor<8x4xf32>) -> tensor<8x64xf32> {
  %w = msgraph.constant dense<[
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
    [2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0],
    [3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0]]> : tensor<4x64xf32>
  %0 = call @pairs_kernel(%x, %w) : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
func.func @pairs_kernel(%x: tensor<8x4xf32>, %w: tensor<4x64xf32>) -> tensor<8x64xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<8x4xf32>, tensor<4x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
