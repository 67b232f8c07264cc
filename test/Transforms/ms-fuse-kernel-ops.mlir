// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-fuse-kernel-ops))' | FileCheck %s

// An elementwise chain in a fused kernel becomes one generic with the
// scalar ops in their original order.
// CHECK-LABEL: func @fused_chain
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<64x128xf32>, tensor<128xf32>)
// CHECK: arith.addf
// CHECK-NEXT: math.tanh
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @fused_chain(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.add", "msgraph.tanh", "msgraph.mul"]} {
  %e = tensor.empty() : tensor<64x128xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %in0: f32, %out: f32):
    %s = arith.addf %in, %in0 : f32
    linalg.yield %s : f32
  } -> tensor<64x128xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<64x128xf32>
  %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%1, %x : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) {
  ^bb0(%in: f32, %in0: f32, %out: f32):
    %m = arith.mulf %in, %in0 : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %2 : tensor<64x128xf32>
}

// -----

// A reduction absorbs its elementwise producer; a transpose folds into the
// producer's indexing.
// CHECK: #[[$T:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func @fused_reduce
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[$T]], #{{.*}}], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : tensor<16x4xf32>)
// CHECK: math.exp
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.transpose
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @fused_reduce(%x: tensor<16x4xf32>) -> tensor<4xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.transpose", "msgraph.exp", "msgraph.reduce_sum"]} {
  %et = tensor.empty() : tensor<4x16xf32>
  %t = linalg.transpose ins(%x : tensor<16x4xf32>) outs(%et : tensor<4x16xf32>) permutation = [1, 0]
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<4x16xf32>) outs(%et : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<4x16xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A producer with another user stays (the fused op would recompute it), and
// a kernel without msfusion.ops is left alone.
// CHECK-LABEL: func @shared
// CHECK-COUNT-2: linalg.generic
// CHECK-LABEL: func @kernel_0
// CHECK-COUNT-2: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @shared(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) attributes {ms.kernel, msfusion.ops = ["msgraph.exp", "msgraph.neg"]} {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
func.func @kernel_0(%x: tensor<8xf32>) -> tensor<8xf32> attributes {ms.kernel} {
  %e = tensor.empty() : tensor<8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.negf %in : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// A row statistic read by every element of its row is not fused into the
// reader (it would be recomputed per element): the square root keeps its
// own loop over the rows. The reshape that kept the reduced axis is read
// through (the unit dim dropped from the reader's map), and so is the
// reader's collapse of that axis (read as index 0): no reshape is left
// between the ops, so the kernel can be tiled by rows.
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ZERO:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @row_statistic
// CHECK-NOT: tensor.expand_shape
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: %[[ROOT:.+]] = linalg.generic {indexing_maps = [#[[$ROW]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[SUM]] : tensor<16xf32>) outs(%{{.*}} : tensor<16x1xf32>)
// CHECK: math.sqrt
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$ZERO]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[ROOT]] : tensor<16x32xf32>, tensor<16x1xf32>)
// CHECK: arith.divf
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @row_statistic(%x: tensor<16x32xf32>) -> tensor<16x32xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.reduce_sum", "msgraph.sqrt", "msgraph.div"]} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x32xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<16xf32>
  %kept = tensor.expand_shape %sum [[0, 1]] output_shape [16, 1] : tensor<16xf32> into tensor<16x1xf32>
  %e1 = tensor.empty() : tensor<16x1xf32>
  %root = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%kept : tensor<16x1xf32>) outs(%e1 : tensor<16x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = math.sqrt %in : f32
    linalg.yield %s : f32
  } -> tensor<16x1xf32>
  %flat = tensor.collapse_shape %root [[0, 1]] : tensor<16x1xf32> into tensor<16xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %div = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %flat : tensor<16x32xf32>, tensor<16xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in0: f32, %out: f32):
    %d = arith.divf %in, %in0 : f32
    linalg.yield %d : f32
  } -> tensor<16x32xf32>
  return %div : tensor<16x32xf32>
}

// -----

// A transpose of a kernel argument (a weight stored [C, KH, KW, M]) fuses
// into the convolution that reads each of its elements many times, in a
// fused kernel and in a kernel of one op: the conv reads the argument.
// CHECK: #[[$PACKED:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
// CHECK-LABEL: func @packed_weight
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$PACKED]], #{{.+}}], {{.*}} ins(%{{.+}}, %arg1 : tensor<1x4x6x6xf32>, tensor<4x3x3x16xf32>)
// CHECK-LABEL: func @kernel_1
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$PACKED]], #{{.+}}], {{.*}} ins(%{{.+}}, %arg1 : tensor<1x4x6x6xf32>, tensor<4x3x3x16xf32>)
#in = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#out = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @packed_weight(%x: tensor<1x4x6x6xf32>, %wp: tensor<4x3x3x16xf32>, %init: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> attributes {ms.kernel, msfusion.ops = ["msgraph.conv", "msgraph.relu"]} {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x4x3x3xf32>
  %w = linalg.transpose ins(%wp : tensor<4x3x3x16xf32>) outs(%e : tensor<16x4x3x3xf32>) permutation = [3, 0, 1, 2]
  %conv = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<16x4x3x3xf32>) outs(%init : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x4xf32>
  %e2 = tensor.empty() : tensor<1x16x4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv : tensor<1x16x4x4xf32>) outs(%e2 : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}
func.func @kernel_1(%x: tensor<1x4x6x6xf32>, %wp: tensor<4x3x3x16xf32>, %init: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> attributes {ms.kernel} {
  %e = tensor.empty() : tensor<16x4x3x3xf32>
  %w = linalg.transpose ins(%wp : tensor<4x3x3x16xf32>) outs(%e : tensor<16x4x3x3xf32>) permutation = [3, 0, 1, 2]
  %conv = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<16x4x3x3xf32>) outs(%init : tensor<1x16x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x16x4x4xf32>
  return %conv : tensor<1x16x4x4xf32>
}

// -----

// A weight stored in panels of 32 channels ([M / 32, C * KH * KW, 32]) is
// turned back by a transpose, a reshape and the conv's transpose: that
// last transpose, of a reshape of a transpose of an argument, fuses into
// the convolution too, which then reads the reshape as [C, KH, KW, M].
// CHECK: #[[$INNERMOST:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d1)>
// CHECK-LABEL: func @panel_weight
// CHECK: %[[SPLIT:.+]] = linalg.generic {{.*}} ins(%arg1 : tensor<2x36x32xf32>)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %[[SPLIT]]
// CHECK: %[[W:.+]] = tensor.expand_shape %[[FLAT]] {{.*}} into tensor<4x3x3x64xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$INNERMOST]], #{{.+}}], {{.*}} ins(%{{.+}}, %[[W]] : tensor<1x4x6x6xf32>, tensor<4x3x3x64xf32>)
// CHECK-NOT: linalg.generic
#pin = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#pw = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#pout = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @panel_weight(%x: tensor<1x4x6x6xf32>, %wp: tensor<2x36x32xf32>, %init: tensor<1x64x4x4xf32>) -> tensor<1x64x4x4xf32> attributes {ms.kernel} {
  %e0 = tensor.empty() : tensor<36x2x32xf32>
  %split = linalg.transpose ins(%wp : tensor<2x36x32xf32>) outs(%e0 : tensor<36x2x32xf32>) permutation = [1, 0, 2]
  %flat = tensor.collapse_shape %split [[0, 1, 2]] : tensor<36x2x32xf32> into tensor<2304xf32>
  %inner = tensor.expand_shape %flat [[0, 1, 2, 3]] output_shape [4, 3, 3, 64] : tensor<2304xf32> into tensor<4x3x3x64xf32>
  %e = tensor.empty() : tensor<64x4x3x3xf32>
  %w = linalg.transpose ins(%inner : tensor<4x3x3x64xf32>) outs(%e : tensor<64x4x3x3xf32>) permutation = [3, 0, 1, 2]
  %conv = linalg.generic {indexing_maps = [#pin, #pw, #pout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<64x4x3x3xf32>) outs(%init : tensor<1x64x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x64x4x4xf32>
  return %conv : tensor<1x64x4x4xf32>
}
