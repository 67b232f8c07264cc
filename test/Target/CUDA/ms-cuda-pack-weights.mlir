// RUN: ms-opt %s -split-input-file -ms-cuda-pack-weights=precision=bf16 | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-cuda-pack-weights=precision=f16 | FileCheck %s --check-prefix=F16
// RUN: ms-opt %s -split-input-file -ms-cuda-pack-weights | FileCheck %s --check-prefix=F32
// RUN: ms-opt %s -split-input-file -ms-cuda-pack-weights=precision=tf32 | FileCheck %s --check-prefix=F32
// RUN: not ms-opt %s -split-input-file -ms-cuda-pack-weights=precision=f64 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: expected precision f32, tf32, bf16 or f16, found 'f64'

// A matmul's constant f32 weight, passed by both calls, is stored once in
// the halves the tensor cores multiply (a relayout the module writer
// rounds to nearest even, as ms-cuda-tile-matmul rounds what it stages) and
// the kernel widens its argument back, which ms-cuda-tile-matmul then reads
// as the halves; with precision f32 or tf32 nothing changes.
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<{{.*}}> : tensor<4x32xf32>, shape = [4, 32], permutation = [0, 1]> : tensor<4x32xbf16>
// CHECK-NOT: tensor<4x32xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: (%{{.+}}: tensor<2x4xf32>, %[[ARG:.+]]: tensor<4x32xbf16>)
// CHECK: %[[WIDE:.+]] = msgraph.cast %[[ARG]] : (tensor<4x32xbf16>) -> tensor<4x32xf32>
// CHECK: msgraph.matmul %{{.+}}, %[[WIDE]]
// F16: msgraph.constant #msgraph.relayout<{{.*}}> : tensor<4x32xf16>
// F16: msgraph.cast %{{.+}} : (tensor<4x32xf16>) -> tensor<4x32xf32>
// F32-NOT: relayout
// F32-NOT: msgraph.cast
func.func @main(%x: tensor<2x4xf32>) -> (tensor<2x32xf32>, tensor<2x32xf32>) {
  %w = msgraph.constant dense<[[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3.0, 3.1, 3.2], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3.0, 3.1, 3.2], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3.0, 3.1, 3.2], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7, 2.8, 2.9, 3.0, 3.1, 3.25]]> : tensor<4x32xf32>
  %a = call @kernel_0(%x, %w) : (tensor<2x4xf32>, tensor<4x32xf32>) -> tensor<2x32xf32>
  %b = call @kernel_0(%x, %w) : (tensor<2x4xf32>, tensor<4x32xf32>) -> tensor<2x32xf32>
  return %a, %b : tensor<2x32xf32>, tensor<2x32xf32>
}
func.func @kernel_0(%x: tensor<2x4xf32>, %w: tensor<4x32xf32>) -> tensor<2x32xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<2x4xf32>, tensor<4x32xf32>) -> tensor<2x32xf32>
  return %0 : tensor<2x32xf32>
}

// -----

// Left as they are: a weight the kernel also adds (its only use must be the
// product's), and a weight one call passes as a computed value.
// CHECK-LABEL: func.func @main
// CHECK-NOT: relayout
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: tensor<4x4xf32>
// CHECK-NOT: msgraph.cast
// CHECK-LABEL: func.func @kernel_1
// CHECK-SAME: tensor<4x4xf32>
// CHECK-NOT: msgraph.cast
func.func @main(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %w = msgraph.constant dense<0.5> : tensor<4x4xf32>
  %a = call @kernel_0(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = call @kernel_1(%x, %w) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = call @kernel_1(%x, %x) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
func.func @kernel_0(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = msgraph.add %0, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %1 : tensor<4x4xf32>
}
func.func @kernel_1(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
