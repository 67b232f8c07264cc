// RUN: ms-opt %s -split-input-file -ms-npu-pack-weights | FileCheck %s
// RUN: ms-opt %s -split-input-file -ms-npu-pack-weights=precision=bf16 | FileCheck %s --check-prefix=BF16
// RUN: ms-opt %s -split-input-file -ms-npu-pack-weights=precision=f32 | FileCheck %s --check-prefix=F32
// RUN: not ms-opt %s -split-input-file -ms-npu-pack-weights=precision=f64 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: expected precision f16, bf16 or f32, found 'f64'

// A matmul's constant f32 weight, passed by both calls, is stored once in
// the type the cube multiplies (a relayout the module writer rounds; its
// bytes are checked in test/Unit) and the kernel widens its argument back;
// with precision=f32 nothing changes.
// CHECK-LABEL: func.func @main
// CHECK: %[[W:.+]] = msgraph.constant #msgraph.relayout<dense<{{.*}}> : tensor<4x32xf32>, shape = [4, 32], permutation = [0, 1]> : tensor<4x32xf16>
// CHECK-NOT: tensor<4x32xf32>
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK: call @kernel_0(%{{.+}}, %[[W]])
// CHECK-LABEL: func.func @kernel_0
// CHECK-SAME: (%{{.+}}: tensor<2x4xf32>, %[[ARG:.+]]: tensor<4x32xf16>)
// CHECK: %[[WIDE:.+]] = msgraph.cast %[[ARG]] : (tensor<4x32xf16>) -> tensor<4x32xf32>
// CHECK: msgraph.matmul %{{.+}}, %[[WIDE]]
// BF16: msgraph.constant #msgraph.relayout<{{.*}}> : tensor<4x32xbf16>
// BF16: msgraph.cast %{{.+}} : (tensor<4x32xbf16>) -> tensor<4x32xf32>
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

// A splat weight is stored as a splat of the narrow type; a constant left
// operand is narrowed too.
// CHECK-LABEL: func.func @main
// CHECK-DAG: msgraph.constant dense<1.000000e+00> : tensor<8x4xf16>
// CHECK-DAG: msgraph.constant dense<5.000000e-01> : tensor<4x16xf16>
// CHECK-LABEL: func.func @kernel_0
// CHECK-DAG: msgraph.cast %{{.+}} : (tensor<8x4xf16>) -> tensor<8x4xf32>
// CHECK-DAG: msgraph.cast %{{.+}} : (tensor<4x16xf16>) -> tensor<4x16xf32>
func.func @main() -> tensor<8x16xf32> {
  %a = msgraph.constant dense<1.0> : tensor<8x4xf32>
  %w = msgraph.constant dense<0.5> : tensor<4x16xf32>
  %0 = call @kernel_0(%a, %w) : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
func.func @kernel_0(%a: tensor<8x4xf32>, %w: tensor<4x16xf32>) -> tensor<8x16xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %a, %w : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Left as they are: a weight that is not a constant in one of the calls,
// one the kernel reads twice, and one of another element type.
// CHECK-LABEL: func.func @main
// CHECK-NOT: msgraph.cast
// CHECK-NOT: relayout
func.func @main(%x: tensor<2x4xf32>, %v: tensor<4x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<4x16xf32>, tensor<2x16xf16>) {
  %w = msgraph.constant dense<0.5> : tensor<4x16xf32>
  %h = msgraph.constant dense<0.5> : tensor<4x16xf16>
  %xh = msgraph.constant dense<0.5> : tensor<2x4xf16>
  %a = call @kernel_0(%x, %w) : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
  %b = call @kernel_0(%x, %v) : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
  %c = call @kernel_1(%w) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %d = call @kernel_2(%xh, %h) : (tensor<2x4xf16>, tensor<4x16xf16>) -> tensor<2x16xf16>
  return %a, %b, %c, %d : tensor<2x16xf32>, tensor<2x16xf32>, tensor<4x16xf32>, tensor<2x16xf16>
}
func.func @kernel_0(%x: tensor<2x4xf32>, %w: tensor<4x16xf32>) -> tensor<2x16xf32> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}
func.func @kernel_1(%w: tensor<4x16xf32>) -> tensor<4x16xf32> attributes {ms.kernel} {
  %0 = msgraph.add %w, %w : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
func.func @kernel_2(%x: tensor<2x4xf16>, %w: tensor<4x16xf16>) -> tensor<2x16xf16> attributes {ms.kernel} {
  %0 = msgraph.matmul %x, %w : (tensor<2x4xf16>, tensor<4x16xf16>) -> tensor<2x16xf16>
  return %0 : tensor<2x16xf16>
}
