// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-winograd-convs))' | FileCheck %s

// A 3x3 conv from 4 to 8 channels on 8x8 outputs whose weight is computed
// from a kernel argument marked ms.winograd_filter ([16, 8, 4]): 4x4 tiles,
// all 4 tile rows in one block (32 matmul columns); per block the input
// transform (two reads of 32 input columns per patch row, deinterleaved),
// the 16 matmuls on the filter argument itself, and the output transform
// (the tile's output columns interleaved back) from the fill's value.
// CHECK-LABEL: func @marked
// CHECK-SAME: (%[[IN:[^:]+]]: tensor<1x4x10x10xf32>, %[[U:[^:]+]]: tensor<16x8x4xf32> {ms.winograd_filter})
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<1x1x8x8x8xf32>
// CHECK: scf.forall (%[[N:.+]], %[[B:.+]]) in (1, 1) shared_outs(%{{.+}} = %[[EMPTY]])
// CHECK: tensor.empty() : tensor<16x4x32xf32>
// CHECK: vector.transfer_read %[[IN]][%[[N]], %{{.+}}, %{{.+}}, %{{.+}}], %{{.+}} : tensor<1x4x10x10xf32>, vector<32xf32>
// CHECK: vector.deinterleave %{{.+}} : vector<32xf32> -> vector<16xf32>
// CHECK-COUNT-16: vector.transfer_write %{{.+}} : vector<16xf32>, tensor<16x4x32xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[U]], %{{.+}} : tensor<16x8x4xf32>, tensor<16x4x32xf32>)
// CHECK: tensor.extract_slice %{{.+}}[%[[N]], 0, 0, %{{.+}}, 0] [1, 1, 8, 8, 8]
// CHECK: vector.interleave %{{.+}}, %{{.+}} : vector<16xf32> -> vector<32xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.generic
func.func @marked(%in: tensor<1x4x10x10xf32>, %u: tensor<16x8x4xf32> {ms.winograd_filter}) -> tensor<1x1x8x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %slice = tensor.extract_slice %u[0, 0, 0] [9, 8, 4] [1, 1, 1] : tensor<16x8x4xf32> to tensor<9x8x4xf32>
  %e = tensor.empty() : tensor<8x4x9xf32>
  %t = linalg.transpose ins(%slice : tensor<9x8x4xf32>) outs(%e : tensor<8x4x9xf32>) permutation = [1, 2, 0]
  %w = tensor.expand_shape %t [[0], [1], [2, 3]] output_shape [8, 4, 3, 3] : tensor<8x4x9xf32> into tensor<8x4x3x3xf32>
  %0 = tensor.empty() : tensor<1x1x8x8x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x8x8x8xf32>) -> tensor<1x1x8x8x8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%1 : tensor<1x1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x1x8x8x8xf32>
  return %2 : tensor<1x1x8x8x8xf32>
}

// -----

// The same conv with a plain weight argument (not transformed) and one on
// 7x8 outputs (odd rows) stay as they are.
// CHECK-LABEL: func @unmarked
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
// CHECK-LABEL: func @odd_rows
// CHECK-NOT: scf.forall
// CHECK: linalg.generic
func.func @unmarked(%in: tensor<1x4x10x10xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<1x1x8x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x1x8x8x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x8x8x8xf32>) -> tensor<1x1x8x8x8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%1 : tensor<1x1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x1x8x8x8xf32>
  return %2 : tensor<1x1x8x8x8xf32>
}
func.func @odd_rows(%in: tensor<1x4x9x10xf32>, %u: tensor<16x8x4xf32> {ms.winograd_filter}) -> tensor<1x1x8x7x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %slice = tensor.extract_slice %u[0, 0, 0] [9, 8, 4] [1, 1, 1] : tensor<16x8x4xf32> to tensor<9x8x4xf32>
  %e = tensor.empty() : tensor<8x4x9xf32>
  %t = linalg.transpose ins(%slice : tensor<9x8x4xf32>) outs(%e : tensor<8x4x9xf32>) permutation = [1, 2, 0]
  %w = tensor.expand_shape %t [[0], [1], [2, 3]] output_shape [8, 4, 3, 3] : tensor<8x4x9xf32> into tensor<8x4x3x3xf32>
  %0 = tensor.empty() : tensor<1x1x8x7x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x8x7x8xf32>) -> tensor<1x1x8x7x8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x4x9x10xf32>, tensor<8x4x3x3xf32>) outs(%1 : tensor<1x1x8x7x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x1x8x7x8xf32>
  return %2 : tensor<1x1x8x7x8xf32>
}

// -----

// A filter transform over 1 MiB ([16, 128, 144]: 1.2 MB) is not read per
// block of tiles: the input transform runs as a forall over the input
// channels (tiles of both images in 8 of 32 columns of V), the 16 matmuls
// on all tiles outside any forall, the output transform as a forall over
// the output channels, each writing its channel of both images.
// CHECK-LABEL: func @whole
// CHECK-SAME: (%[[IN:[^:]+]]: tensor<2x144x6x6xf32>, %[[U:[^:]+]]: tensor<16x128x144xf32> {ms.winograd_filter})
// CHECK: %[[V:.+]] = tensor.empty() : tensor<16x144x32xf32>
// CHECK: %[[VT:.+]] = scf.forall (%[[C:.+]]) in (144) shared_outs(%[[VS:.+]] = %[[V]])
// CHECK: tensor.extract_slice %[[VS]][0, %[[C]], 0] [16, 1, 32]
// CHECK: vector.transfer_read %[[IN]][%{{.+}}, %[[C]], %{{.+}}, %{{.+}}], %{{.+}} : tensor<2x144x6x6xf32>, vector<32xf32>
// CHECK-COUNT-16: vector.transfer_write %{{.+}} : vector<16xf32>, tensor<16x1x32xf32>
// CHECK: tensor.parallel_insert_slice
// CHECK: %[[M:.+]] = linalg.generic
// CHECK-SAME: ins(%[[U]], %[[VT]] : tensor<16x128x144xf32>, tensor<16x144x32xf32>)
// CHECK: scf.forall (%[[O:.+]]) in (128)
// CHECK: tensor.extract_slice %{{.+}}[0, 0, %[[O]], 0, 0] [2, 1, 1, 4, 4]
// CHECK: vector.transfer_read %[[M]][%{{.+}}, %[[O]], %{{.+}}], %{{.+}} : tensor<16x128x32xf32>, vector<16xf32>
// CHECK: vector.interleave %{{.+}}, %{{.+}} : vector<16xf32> -> vector<32xf32>
// CHECK: vector.transfer_write %{{.+}} : vector<32xf32>, tensor<2x4x4xf32>
// CHECK: tensor.parallel_insert_slice
func.func @whole(%in: tensor<2x144x6x6xf32>, %u: tensor<16x128x144xf32> {ms.winograd_filter}) -> tensor<2x1x128x4x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %slice = tensor.extract_slice %u[0, 0, 0] [9, 128, 144] [1, 1, 1] : tensor<16x128x144xf32> to tensor<9x128x144xf32>
  %e = tensor.empty() : tensor<128x144x9xf32>
  %t = linalg.transpose ins(%slice : tensor<9x128x144xf32>) outs(%e : tensor<128x144x9xf32>) permutation = [1, 2, 0]
  %w = tensor.expand_shape %t [[0], [1], [2, 3]] output_shape [128, 144, 3, 3] : tensor<128x144x9xf32> into tensor<128x144x3x3xf32>
  %0 = tensor.empty() : tensor<2x1x128x4x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x1x128x4x4xf32>) -> tensor<2x1x128x4x4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<2x144x6x6xf32>, tensor<128x144x3x3xf32>) outs(%1 : tensor<2x1x128x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<2x1x128x4x4xf32>
  return %2 : tensor<2x1x128x4x4xf32>
}

// -----

// The marked filter in bf16 ([16, 8, 4], ms-cpu-pack-weights precision=bf16):
// the input transform runs on pairs of input channels (2 pairs), the two
// channels' transforms interleaved and rounded to bf16 into V [16, 2, 64]
// (a pair of tiles' values per column), and the 16 matmuls are one
// contraction in pair form (the filter and V split into pairs, the pair's
// element the last reduction).
// CHECK-LABEL: func @marked_bf16
// CHECK-SAME: (%[[IN:[^:]+]]: tensor<1x4x10x10xf32>, %[[U:[^:]+]]: tensor<16x8x4xbf16> {ms.winograd_filter})
// CHECK: tensor.empty() : tensor<16x2x64xbf16>
// CHECK: vector.interleave %{{.+}}, %{{.+}} : vector<16xf32> -> vector<32xf32>
// CHECK: arith.truncf %{{.+}} : vector<32xf32> to vector<32xbf16>
// CHECK: vector.transfer_write %{{.+}} : vector<32xbf16>, tensor<16x2x64xbf16>
// CHECK: %[[UP:.+]] = tensor.expand_shape %[[U]] {{\[}}[0], [1], [2, 3]] output_shape [16, 8, 2, 2]
// CHECK: %[[VP:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2, 3]] output_shape [16, 2, 32, 2]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[UP]], %[[VP]] : tensor<16x8x2x2xbf16>, tensor<16x2x32x2xbf16>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: vector.interleave %{{.+}}, %{{.+}} : vector<16xf32> -> vector<32xf32>
func.func @marked_bf16(%in: tensor<1x4x10x10xf32>, %u: tensor<16x8x4xbf16> {ms.winograd_filter}) -> tensor<1x1x8x8x8xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %slice = tensor.extract_slice %u[0, 0, 0] [9, 8, 4] [1, 1, 1] : tensor<16x8x4xbf16> to tensor<9x8x4xbf16>
  %e = tensor.empty() : tensor<8x4x9xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%slice : tensor<9x8x4xbf16>) outs(%e : tensor<8x4x9xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<8x4x9xf32>
  %w = tensor.expand_shape %t [[0], [1], [2, 3]] output_shape [8, 4, 3, 3] : tensor<8x4x9xf32> into tensor<8x4x3x3xf32>
  %0 = tensor.empty() : tensor<1x1x8x8x8xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x8x8x8xf32>) -> tensor<1x1x8x8x8xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%1 : tensor<1x1x8x8x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x1x8x8x8xf32>
  return %2 : tensor<1x1x8x8x8xf32>
}
