// RUN: ms-opt %s -split-input-file -convert-msgraph-to-linalg | FileCheck %s
// RUN: ms-opt %s -split-input-file -convert-msgraph-to-linalg=tensor-core-attention | FileCheck %s --check-prefix=TC

// CHECK-LABEL: func @matmul_2d
// CHECK: linalg.matmul
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = msgraph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func @matmul_batched
// CHECK: linalg.batch_matmul
func.func @matmul_batched(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  %0 = msgraph.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// Broadcast batch dimensions use a contraction generic.
// CHECK-LABEL: func @matmul_broadcast
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]
func.func @matmul_broadcast(%a: tensor<3x1x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<3x2x4x16xf32> {
  %0 = msgraph.matmul %a, %b : (tensor<3x1x4x8xf32>, tensor<2x8x16xf32>) -> tensor<3x2x4x16xf32>
  return %0 : tensor<3x2x4x16xf32>
}

// -----

// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
// CHECK-LABEL: func @conv_strided_padded
// CHECK: tensor.pad
// CHECK: linalg.generic {indexing_maps = [#[[IN]],
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
func.func @conv_strided_padded(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %0 = msgraph.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// conv_transpose scatters the input into zeros and reads the kernel flipped.
// CHECK-DAG: #[[W:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, -d6 + 2, -d7 + 2)>
// CHECK-LABEL: func @conv_transpose
// CHECK: tensor.insert_slice {{.*}} [1, 1, 2, 2]
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[W]],
// CHECK: tensor.extract_slice
func.func @conv_transpose(%x: tensor<1x8x4x4xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32> {
  %0 = msgraph.conv_transpose %x, %w {strides = array<i64: 2, 2>} : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32>
  return %0 : tensor<1x4x9x9xf32>
}

// -----

// CHECK-LABEL: func @max_pool
// CHECK-DAG: arith.constant 0xFF800000 : f32
// CHECK-DAG: tensor.pad
// CHECK: arith.maximumf
func.func @max_pool(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = msgraph.max_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// One generic carries the running maximum and its position; the position is
// taken when the element is inside the input and nothing was taken yet or it
// is strictly greater.
// CHECK-LABEL: func @max_pool_indices
// CHECK: %[[G:.+]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %{{.*}} : tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
// CHECK: linalg.index 4
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpi slt
// CHECK: linalg.yield
// CHECK: return %[[G]]#1
func.func @max_pool_indices(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xi64> {
  %0 = msgraph.max_pool_indices %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xi64>
  return %0 : tensor<1x2x3x3xi64>
}

// -----

// The average divides by a per-position count that excludes padding.
// CHECK-LABEL: func @avg_pool
// CHECK-DAG: arith.constant dense<4.000000e+00> : tensor<2x2xf32>
// CHECK-DAG: linalg.generic
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %0 = msgraph.avg_pool %x {kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// CHECK-LABEL: func @norms
// CHECK: math.sqrt
// CHECK: math.sqrt
// CHECK: math.powf
func.func @norms(%x: tensor<2x4x3xf32>, %c: tensor<4xf32>, %g: tensor<3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>) {
  %0 = msgraph.batch_norm %x, %c, %c, %c, %c : (tensor<2x4x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x3xf32>
  %1 = msgraph.layer_norm %x, %g : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
  %2 = msgraph.lrn %x {size = 3 : i64} : tensor<2x4x3xf32>
  return %0, %1, %2 : tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<2x4x3xf32>
}

// -----

// Half-precision matmul accumulates in f32: operands widened, one rounding
// of each sum back to f16.
// CHECK-LABEL: func @matmul_f16_accumulates_in_f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @matmul_f16_accumulates_in_f32(%a: tensor<4x8xf16>, %b: tensor<8x16xf16>) -> tensor<4x16xf16> {
  %0 = msgraph.matmul %a, %b : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

// CHECK-LABEL: func @conv_bf16_accumulates_in_f32
// CHECK-COUNT-3: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @conv_bf16_accumulates_in_f32(%x: tensor<1x2x5x5xbf16>, %w: tensor<3x2x3x3xbf16>, %b: tensor<3xbf16>) -> tensor<1x3x3x3xbf16> {
  %0 = msgraph.conv %x, %w, %b : (tensor<1x2x5x5xbf16>, tensor<3x2x3x3xbf16>, tensor<3xbf16>) -> tensor<1x3x3x3xbf16>
  return %0 : tensor<1x3x3x3xbf16>
}

// -----

// Attention is one loop nest: a forall over (batch, head, query tile of 32),
// a loop over key tiles of 128 carrying the row maximum, normalizer and
// output; the 2 query heads per key/value head read head h / 2; no 256x256
// score tensor exists, only 32x128 tiles; causal, a query tile walks the key
// tiles up to the one of its last row's last key: min((q0 + 159) / 128, 2).
// CHECK-LABEL: func @attention_tiles
// CHECK-NOT: tensor<{{.*}}256x256
// CHECK: scf.forall (%[[B:.+]], %[[H:.+]], %[[QI:.+]]) in (1, 4, 8)
// CHECK: %[[Q0:.+]] = arith.muli %[[QI]], %{{.+}} : index
// CHECK: arith.divui %[[H]], %{{.+}}
// CHECK: tensor.extract_slice %{{.+}} [1, 1, 32, 64] [1, 1, 1, 1] : tensor<1x4x256x64xf32> to tensor<32x64xf32>
// CHECK: %[[LAST:.+]] = arith.addi %[[Q0]], %{{.+}} : index
// CHECK: %[[TILES:.+]] = arith.divui %[[LAST]], %{{.+}} : index
// CHECK: %[[END:.+]] = arith.minui %[[TILES]], %{{.+}} : index
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[END]] step %{{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>)
// CHECK: tensor.extract_slice %{{.+}} [1, 1, 128, 64] [1, 1, 1, 1] : tensor<1x2x256x64xf32> to tensor<128x64xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.cmpi ugt
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: scf.yield
// CHECK: arith.divf
// CHECK: tensor.parallel_insert_slice %{{.+}} into %{{.+}}[%[[B]], %[[H]], %{{.+}}, 0] [1, 1, 32, 64]
// CHECK-NOT: tensor<{{.*}}256x256
// TC-LABEL: func @attention_tiles
// TC: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x256x64xf32>) outs(%{{.*}} : tensor<1x2x64x256xf32>)
func.func @attention_tiles(%q: tensor<1x4x256x64xf32>, %k: tensor<1x2x256x64xf32>, %v: tensor<1x2x256x64xf32>) -> tensor<1x4x256x64xf32> {
  %y = msgraph.attention %q, %k, %v {is_causal = true} : (tensor<1x4x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>) -> tensor<1x4x256x64xf32>
  return %y : tensor<1x4x256x64xf32>
}

// -----

// For tensor cores, half attention keeps K as given and transposes V once:
// each product sums over its operands' innermost dimension (Q's and K's
// head dimension, the probabilities' and V^T's keys). f32 attention keeps
// the K^T layout (@attention_tiles); the default lowering transposes K.
// CHECK-LABEL: func @attention_tensor_cores
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x256x64xf16>) outs(%{{.*}} : tensor<1x2x64x256xf16>)
// TC-LABEL: func @attention_tensor_cores
// TC: %[[VT:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], {{.*}} ins(%arg2 : tensor<1x2x256x32xf16>) outs(%{{.*}} : tensor<1x2x32x256xf16>)
// TC: scf.forall
// TC: scf.for
// TC: %[[K:.+]] = tensor.extract_slice %arg1[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] [1, 1, 128, 64] [1, 1, 1, 1] : tensor<1x2x256x64xf16> to tensor<128x64xf16>
// TC: %[[V:.+]] = tensor.extract_slice %[[VT]][%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] [1, 1, 32, 128] [1, 1, 1, 1] : tensor<1x2x32x256xf16> to tensor<32x128xf16>
// TC: linalg.generic {indexing_maps = [#{{.+}}, #[[TERMS:.+]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %[[K]] : tensor<32x64xf16>, tensor<128x64xf16>)
// TC: linalg.generic {indexing_maps = [#{{.+}}, #[[TERMS]], #{{.+}}], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}}, %[[V]] : tensor<32x128xf32>, tensor<32x128xf16>) {{.*}} attrs = {ms.probabilities}
func.func @attention_tensor_cores(%q: tensor<1x4x64x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x32xf16>) -> tensor<1x4x64x32xf16> {
  %y = msgraph.attention %q, %k, %v : (tensor<1x4x64x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x32xf16>) -> tensor<1x4x64x32xf16>
  return %y : tensor<1x4x64x32xf16>
}
