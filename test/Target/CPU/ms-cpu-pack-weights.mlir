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

// -----

// precision=bf16, convolutions. Fewer positions than channels (2x2, 32
// channels, weight w[m, c, i, j] = (18m + 9c + 3i + j) / 8): the weight is
// stored in bf16 as pair panels of input channels, [M / 32, C / 2 * 9,
// 64] ([32, 2, 3, 3] = [1, 32, 1, 2, 3, 3] as [1, 1, 3, 3, 32, 2]), the
// argument marked ms.conv_pairs; the kernel extends it to f32 and unpacks
// it for the conv (for any reader but the contraction kernel, which reads
// the argument). More positions than channels (8x4, 16 channels, read
// through an im2col copy): stored as bf16 rows [M, C * 9], marked too. A
// conv of 3 input channels (27 = C * 9, odd) has its rows padded with a
// zero, [M, 28] (a constant computed here: the layout is no relayout), and
// its unpacking drops the zeros (a slice).
// BF16-LABEL: func.func @convs
// BF16-DAG: %[[P:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<32x2x3x3xf32>, shape = [1, 32, 1, 2, 3, 3], permutation = [0, 2, 4, 5, 1, 3]> : tensor<1x9x64xbf16>
// BF16-DAG: %[[R:.+]] = msgraph.constant #msgraph.relayout<dense<"0x{{.*}}"> : tensor<16x2x3x3xf32>, shape = [16, 18], permutation = [0, 1]> : tensor<16x18xbf16>
// BF16-DAG: %[[ODD:.+]] = msgraph.constant dense<"0x{{(803F){27}0000}}{{.*}}"> : tensor<16x28xbf16>
// BF16: call @panels_kernel(%{{.+}}, %[[P]])
// BF16: call @rows_kernel(%{{.+}}, %[[R]])
// BF16: call @odd_kernel(%{{.+}}, %[[ODD]])
// BF16-LABEL: func.func @panels_kernel
// BF16-SAME: %[[ARG:[a-z0-9]+]]: tensor<1x9x64xbf16> {ms.conv_pairs}
// BF16: %[[F32:.+]] = msgraph.cast %[[ARG]] : (tensor<1x9x64xbf16>) -> tensor<1x9x64xf32>
// BF16: %[[SPLIT:.+]] = msgraph.reshape %[[F32]] : (tensor<1x9x64xf32>) -> tensor<1x1x3x3x32x2xf32>
// BF16: %[[BACK:.+]] = msgraph.transpose %[[SPLIT]] {permutation = array<i64: 0, 4, 1, 5, 2, 3>} : (tensor<1x1x3x3x32x2xf32>) -> tensor<1x32x1x2x3x3xf32>
// BF16: %[[W:.+]] = msgraph.reshape %[[BACK]] : (tensor<1x32x1x2x3x3xf32>) -> tensor<32x2x3x3xf32>
// BF16: msgraph.conv %{{.+}}, %[[W]]
// BF16-LABEL: func.func @rows_kernel
// BF16-SAME: %[[ARG:[a-z0-9]+]]: tensor<16x18xbf16> {ms.conv_pairs}
// BF16: %[[F32:.+]] = msgraph.cast %[[ARG]] : (tensor<16x18xbf16>) -> tensor<16x18xf32>
// BF16: %[[W:.+]] = msgraph.reshape %[[F32]] : (tensor<16x18xf32>) -> tensor<16x2x3x3xf32>
// BF16: msgraph.conv %{{.+}}, %[[W]]
// BF16-LABEL: func.func @odd_kernel
// BF16-SAME: %[[ARG:[a-z0-9]+]]: tensor<16x28xbf16> {ms.conv_pairs}
// BF16: %[[F32:.+]] = msgraph.cast %[[ARG]] : (tensor<16x28xbf16>) -> tensor<16x28xf32>
// BF16: %[[ROWS:.+]] = msgraph.slice %[[F32]] {ends = array<i64: 16, 27>, starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<16x28xf32>) -> tensor<16x27xf32>
// BF16: msgraph.reshape %[[ROWS]] : (tensor<16x27xf32>) -> tensor<16x3x3x3xf32>
func.func @convs(%x: tensor<1x2x4x4xf32>, %y: tensor<1x2x10x6xf32>, %z: tensor<1x3x10x6xf32>) -> (tensor<1x32x2x2xf32>, tensor<1x16x8x4xf32>, tensor<1x16x8x4xf32>) {
  %w = msgraph.constant dense<"0x000000000000003E0000803E0000C03E0000003F0000203F0000403F0000603F0000803F0000903F0000A03F0000B03F0000C03F0000D03F0000E03F0000F03F0000004000000840000010400000184000002040000028400000304000003840000040400000484000005040000058400000604000006840000070400000784000008040000084400000884000008C4000009040000094400000984000009C400000A0400000A4400000A8400000AC400000B0400000B4400000B8400000BC400000C0400000C4400000C8400000CC400000D0400000D4400000D8400000DC400000E0400000E4400000E8400000EC400000F0400000F4400000F8400000FC40000000410000024100000441000006410000084100000A4100000C4100000E41000010410000124100001441000016410000184100001A4100001C4100001E41000020410000224100002441000026410000284100002A4100002C4100002E41000030410000324100003441000036410000384100003A4100003C4100003E41000040410000424100004441000046410000484100004A4100004C4100004E41000050410000524100005441000056410000584100005A4100005C4100005E41000060410000624100006441000066410000684100006A4100006C4100006E41000070410000724100007441000076410000784100007A4100007C4100007E410000804100008141000082410000834100008441000085410000864100008741000088410000894100008A4100008B4100008C4100008D4100008E4100008F410000904100009141000092410000934100009441000095410000964100009741000098410000994100009A4100009B4100009C4100009D4100009E4100009F410000A0410000A1410000A2410000A3410000A4410000A5410000A6410000A7410000A8410000A9410000AA410000AB410000AC410000AD410000AE410000AF410000B0410000B1410000B2410000B3410000B4410000B5410000B6410000B7410000B8410000B9410000BA410000BB410000BC410000BD410000BE410000BF410000C0410000C1410000C2410000C3410000C4410000C5410000C6410000C7410000C8410000C9410000CA410000CB410000CC410000CD410000CE410000CF410000D0410000D1410000D2410000D3410000D4410000D5410000D6410000D7410000D8410000D9410000DA410000DB410000DC410000DD410000DE410000DF410000E0410000E1410000E2410000E3410000E4410000E5410000E6410000E7410000E8410000E9410000EA410000EB410000EC410000ED410000EE410000EF410000F0410000F1410000F2410000F3410000F4410000F5410000F6410000F7410000F8410000F9410000FA410000FB410000FC410000FD410000FE410000FF41000000420080004200000142008001420000024200800242000003420080034200000442008004420000054200800542000006420080064200000742008007420000084200800842000009420080094200000A4200800A4200000B4200800B4200000C4200800C4200000D4200800D4200000E4200800E4200000F4200800F42000010420080104200001142008011420000124200801242000013420080134200001442008014420000154200801542000016420080164200001742008017420000184200801842000019420080194200001A4200801A4200001B4200801B4200001C4200801C4200001D4200801D4200001E4200801E4200001F4200801F42000020420080204200002142008021420000224200802242000023420080234200002442008024420000254200802542000026420080264200002742008027420000284200802842000029420080294200002A4200802A4200002B4200802B4200002C4200802C4200002D4200802D4200002E4200802E4200002F4200802F42000030420080304200003142008031420000324200803242000033420080334200003442008034420000354200803542000036420080364200003742008037420000384200803842000039420080394200003A4200803A4200003B4200803B4200003C4200803C4200003D4200803D4200003E4200803E4200003F4200803F42000040420080404200004142008041420000424200804242000043420080434200004442008044420000454200804542000046420080464200004742008047420000484200804842000049420080494200004A4200804A4200004B4200804B4200004C4200804C4200004D4200804D4200004E4200804E4200004F4200804F42000050420080504200005142008051420000524200805242000053420080534200005442008054420000554200805542000056420080564200005742008057420000584200805842000059420080594200005A4200805A4200005B4200805B4200005C4200805C4200005D4200805D4200005E4200805E4200005F4200805F42000060420080604200006142008061420000624200806242000063420080634200006442008064420000654200806542000066420080664200006742008067420000684200806842000069420080694200006A4200806A4200006B4200806B4200006C4200806C4200006D4200806D4200006E4200806E4200006F4200806F42000070420080704200007142008071420000724200807242000073420080734200007442008074420000754200807542000076420080764200007742008077420000784200807842000079420080794200007A4200807A4200007B4200807B4200007C4200807C4200007D4200807D4200007E4200807E4200007F4200807F4200008042004080420080804200C0804200008142004081420080814200C0814200008242004082420080824200C0824200008342004083420080834200C0834200008442004084420080844200C0844200008542004085420080854200C0854200008642004086420080864200C0864200008742004087420080874200C0874200008842004088420080884200C0884200008942004089420080894200C0894200008A4200408A4200808A4200C08A4200008B4200408B4200808B4200C08B4200008C4200408C4200808C4200C08C4200008D4200408D4200808D4200C08D4200008E4200408E4200808E4200C08E4200008F4200408F4200808F4200C08F42"> : tensor<32x2x3x3xf32>
  %w2 = msgraph.constant dense<"0x000000000000803E0000003F0000403F0000803F0000A03F0000C03F0000E03F0000004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C4100002041000024410000284100002C4100003041000034410000384100003C4100004041000044410000484100004C4100005041000054410000584100005C4100006041000064410000684100006C4100007041000074410000784100007C41000080410000824100008441000086410000884100008A4100008C4100008E41000090410000924100009441000096410000984100009A4100009C4100009E410000A0410000A2410000A4410000A6410000A8410000AA410000AC410000AE410000B0410000B2410000B4410000B6410000B8410000BA410000BC410000BE410000C0410000C2410000C4410000C6410000C8410000CA410000CC410000CE410000D0410000D2410000D4410000D6410000D8410000DA410000DC410000DE410000E0410000E2410000E4410000E6410000E8410000EA410000EC410000EE410000F0410000F2410000F4410000F6410000F8410000FA410000FC410000FE410000004200000142000002420000034200000442000005420000064200000742000008420000094200000A4200000B4200000C4200000D4200000E4200000F420000104200001142000012420000134200001442000015420000164200001742000018420000194200001A4200001B4200001C4200001D4200001E4200001F420000204200002142000022420000234200002442000025420000264200002742000028420000294200002A4200002B4200002C4200002D4200002E4200002F420000304200003142000032420000334200003442000035420000364200003742000038420000394200003A4200003B4200003C4200003D4200003E4200003F420000404200004142000042420000434200004442000045420000464200004742000048420000494200004A4200004B4200004C4200004D4200004E4200004F420000504200005142000052420000534200005442000055420000564200005742000058420000594200005A4200005B4200005C4200005D4200005E4200005F420000604200006142000062420000634200006442000065420000664200006742000068420000694200006A4200006B4200006C4200006D4200006E4200006F420000704200007142000072420000734200007442000075420000764200007742000078420000794200007A4200007B4200007C4200007D4200007E4200007F42000080420080804200008142008081420000824200808242000083420080834200008442008084420000854200808542000086420080864200008742008087420000884200808842000089420080894200008A4200808A4200008B4200808B4200008C4200808C4200008D4200808D4200008E4200808E4200008F4200808F42"> : tensor<16x2x3x3xf32>
  %w3 = msgraph.constant dense<1.0> : tensor<16x3x3x3xf32>
  %a = call @panels_kernel(%x, %w) : (tensor<1x2x4x4xf32>, tensor<32x2x3x3xf32>) -> tensor<1x32x2x2xf32>
  %b = call @rows_kernel(%y, %w2) : (tensor<1x2x10x6xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x8x4xf32>
  %c = call @odd_kernel(%z, %w3) : (tensor<1x3x10x6xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x4xf32>
  return %a, %b, %c : tensor<1x32x2x2xf32>, tensor<1x16x8x4xf32>, tensor<1x16x8x4xf32>
}
func.func @panels_kernel(%x: tensor<1x2x4x4xf32>, %w: tensor<32x2x3x3xf32>) -> tensor<1x32x2x2xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<32x2x3x3xf32>) -> tensor<1x32x2x2xf32>
  return %0 : tensor<1x32x2x2xf32>
}
func.func @rows_kernel(%x: tensor<1x2x10x6xf32>, %w: tensor<16x2x3x3xf32>) -> tensor<1x16x8x4xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x2x10x6xf32>, tensor<16x2x3x3xf32>) -> tensor<1x16x8x4xf32>
  return %0 : tensor<1x16x8x4xf32>
}
func.func @odd_kernel(%x: tensor<1x3x10x6xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x8x4xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x3x10x6xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x4xf32>
  return %0 : tensor<1x16x8x4xf32>
}

// -----

// precision=bf16, a 3x3 conv that runs as Winograd F(2x2, 3x3) (32 -> 32
// channels on 14x14): its transform [16, M, C] is stored in bf16 (each
// element G g G^T rounded once more) and extended to f32 before the
// unpacking (Gp U Gp^T).
// BF16-LABEL: func.func @winograd
// BF16: %[[U:.+]] = msgraph.constant dense<{{.+}}> : tensor<16x32x32xbf16>
// BF16: call @winograd_kernel(%{{.+}}, %[[U]])
// BF16-LABEL: func.func @winograd_kernel
// BF16-SAME: %[[ARG:[a-z0-9]+]]: tensor<16x32x32xbf16> {ms.winograd_filter}
// BF16: %[[F32:.+]] = msgraph.cast %[[ARG]] : (tensor<16x32x32xbf16>) -> tensor<16x32x32xf32>
// BF16: msgraph.reshape %[[F32]] : (tensor<16x32x32xf32>) -> tensor<4x4x32x32xf32>
func.func @winograd(%x: tensor<1x32x16x16xf32>) -> tensor<1x32x14x14xf32> {
  %w = msgraph.constant dense<0.5> : tensor<32x32x3x3xf32>
  %0 = call @winograd_kernel(%x, %w) : (tensor<1x32x16x16xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x14x14xf32>
  return %0 : tensor<1x32x14x14xf32>
}
func.func @winograd_kernel(%x: tensor<1x32x16x16xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<1x32x14x14xf32> attributes {ms.kernel} {
  %0 = msgraph.conv %x, %w : (tensor<1x32x16x16xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x14x14xf32>
  return %0 : tensor<1x32x14x14xf32>
}
