// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-contraction-kernels))' | FileCheck %s
// RUN: ms-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(msexec.executable(builtin.module(func.func(ms-cpu-contraction-kernels))))' | FileCheck %s --check-prefix=VARIANT
// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-contraction-kernels{bf16-dot=true}))' | FileCheck %s --check-prefix=DOT
// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-contraction-kernels{bf16=true bf16-dot=true}))' | FileCheck %s --check-prefix=BF16

// A matmul from a zero fill: blocks of 32 columns (outer) and 8 rows
// (inner) in a forall, the 8 rows of the block in registers across k (one
// row of B loaded and one element of A broadcast per row, fused
// multiply-adds), the registers starting from the fill's value and written
// once into the fill's destination (the fill itself is gone).
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<64x256xf32>, %[[B:.+]]: tensor<256x256xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<64x256xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%[[N:.+]], %[[M:.+]]) = (0, 0) to (256, 64) step (32, 8) shared_outs(%[[OUT:.+]] = %[[E]])
// CHECK: %[[TILE:.+]] = tensor.extract_slice %[[OUT]][%[[M]], %[[N]]] [8, 32] [1, 1]
// CHECK: %[[ZERO:.+]] = vector.broadcast %{{.+}} : f32 to vector<32xf32>
// CHECK: %[[ACC:.+]]:8 = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[R0:[a-z0-9_]+]] = %[[ZERO]], {{.*}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK: %[[ROW:.+]] = vector.transfer_read %[[B]][%[[K]], %[[N]]]
// CHECK: %[[X:.+]] = tensor.extract %[[A]][%[[M]], %[[K]]]
// CHECK: %[[XV:.+]] = vector.broadcast %[[X]] : f32 to vector<32xf32>
// CHECK: vector.fma %[[XV]], %[[ROW]], %[[R0]] : vector<32xf32>
// CHECK-COUNT-7: vector.fma
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[ACC]]#0, %[[TILE]]
// CHECK-COUNT-7: vector.transfer_write
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[M]], %[[N]]] [8, 32] [1, 1]
func.func @matmul(%a: tensor<64x256xf32>, %b: tensor<256x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x256xf32>) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A batch matmul whose B is shared by the batch (a linear layer on 3-D
// input), accumulating into a given C: the batch is an outer forall loop,
// the registers start from C, and 12 rows take blocks of 6 (the largest
// count up to 8 that divides 12); 16 columns take one vector. With at most
// four blocks of columns the row blocks are the outer forall dim. The
// registers start from C's block (the tile).
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[A:.+]]: tensor<2x12x64xf32>, %[[B:.+]]: tensor<64x16xf32>, %[[C:.+]]: tensor<2x12x16xf32>)
// CHECK: scf.forall (%[[I:.+]], %[[M:.+]], %[[N:.+]]) = (0, 0, 0) to (2, 12, 16) step (1, 6, 16) shared_outs(%[[OUT:.+]] = %[[C]])
// CHECK: %[[TILE:.+]] = tensor.extract_slice %[[OUT]][%[[I]], %[[M]], %[[N]]] [1, 6, 16]
// CHECK: vector.transfer_read %[[TILE]][%{{.+}}, %{{.+}}]
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: tensor.extract %[[A]][%[[I]], %[[M]], %{{.+}}]
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[I]], %[[M]], %[[N]]] [1, 6, 16] [1, 1, 1] : tensor<6x16xf32> into tensor<2x12x16xf32>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @batched(%a: tensor<2x12x64xf32>, %b: tensor<64x16xf32>, %c: tensor<2x12x16xf32>) -> tensor<2x12x16xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<2x12x64xf32>, tensor<64x16xf32>) outs(%c : tensor<2x12x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x12x16xf32>
  return %r : tensor<2x12x16xf32>
}

// -----

// The elementwise op that alone uses the product (bias and GELU) runs on
// the registers before they are written: its body on vectors, the bias
// read along the columns, a captured constant broadcast.
// CHECK-LABEL: func @epilogue
// CHECK-SAME: (%[[A:.+]]: tensor<8x32xf32>, %[[B:.+]]: tensor<32x32xf32>, %[[BIAS:.+]]: tensor<32xf32>)
// CHECK: scf.forall
// CHECK: %[[ACC:.+]]:8 = scf.for
// CHECK: %[[BV:.+]] = vector.transfer_read %[[BIAS]][%{{.+}}]
// CHECK: %[[S:.+]] = arith.addf %[[ACC]]#0, %[[BV]] : vector<32xf32>
// CHECK: %[[T:.+]] = math.tanh %[[S]] : vector<32xf32>
// CHECK: %[[HALF:.+]] = vector.broadcast %{{.+}} : f32 to vector<32xf32>
// CHECK: arith.mulf %[[T]], %[[HALF]] : vector<32xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%a: tensor<8x32xf32>, %b: tensor<32x32xf32>, %bias: tensor<32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<8x32xf32>, tensor<32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    %t = math.tanh %s : f32
    %h = arith.mulf %t, %half : f32
    linalg.yield %h : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}

// -----

// Not covered, left as they are: B's columns not contiguous (a transposed
// weight), f16.
// CHECK-LABEL: func @not_covered
// CHECK-NOT: scf.forall
// CHECK-COUNT-2: linalg.generic
#at = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#ct = affine_map<(m, n, k) -> (m, n)>
func.func @not_covered(%a: tensor<8x32xf32>, %bt: tensor<32x32xf32>, %c: tensor<8x32xf32>, %ah: tensor<8x32xf16>, %bh: tensor<32x32xf16>, %ch: tensor<8x32xf16>) -> (tensor<8x32xf32>, tensor<8x32xf16>) {
  %0 = linalg.generic {indexing_maps = [#at, #bt, #ct], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bt : tensor<8x32xf32>, tensor<32x32xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%ah, %bh : tensor<8x32xf16>, tensor<32x32xf16>) outs(%ch : tensor<8x32xf16>) -> tensor<8x32xf16>
  return %0, %2 : tensor<8x32xf32>, tensor<8x32xf16>
}

// -----

// A reduction of 4096 runs in blocks of 512, all of them in one forall
// over the five panels of 32 columns (no thread waits for the others
// between blocks): each iteration's slab of C (its 32 columns, all 8 rows)
// gets the first block of k from the fill's value, then the middle blocks
// (an scf.for) and the last from its partial sums, and only the last
// applies the epilogue.
// CHECK-LABEL: func @blocked
// CHECK: scf.forall (%[[N:.+]], %[[M:.+]]) = (0, 0) to (160, 8) step (32, 8) shared_outs(%[[D:.+]] = %{{.+}})
// CHECK: %[[SLAB:.+]] = tensor.extract_slice %[[D]][%[[M]], %[[N]]] [8, 32] [1, 1]
// CHECK: %[[FIRST:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[SLAB]])
// CHECK: vector.broadcast %{{.+}} : f32 to vector<32xf32>
// CHECK-NOT: math.exp
// CHECK: %[[MIDDLE:.+]] = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[S1:.+]] = %[[FIRST]])
// CHECK: scf.for {{.*}} iter_args(%[[S2:.+]] = %[[S1]])
// CHECK: %[[T:.+]] = tensor.extract_slice %[[S2]]
// CHECK: vector.transfer_read %[[T]]
// CHECK-NOT: math.exp
// CHECK: scf.for {{.*}} iter_args(%{{.+}} = %[[MIDDLE]])
// CHECK: math.exp %{{.+}} : vector<32xf32>
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[D]][%[[M]], %[[N]]] [8, 32]
// CHECK-NOT: scf.forall
func.func @blocked(%a: tensor<8x4096xf32>, %b: tensor<4096x160xf32>) -> tensor<8x160xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x160xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x160xf32>) -> tensor<8x160xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x4096xf32>, tensor<4096x160xf32>) outs(%c : tensor<8x160xf32>) -> tensor<8x160xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x160xf32>) outs(%e : tensor<8x160xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<8x160xf32>
  return %r : tensor<8x160xf32>
}

// -----

// 1024 columns: B's rows lie 4 KiB apart, so that a panel's rows would
// share a few cache sets; each block of k of the panel (the first and the
// last of two) is first copied to a contiguous 512x32 tensor, which the
// two blocks of 8 rows read at k - kStart. (With one block of rows per
// slab the copy would be read once: not copied.)
// CHECK-LABEL: func @packed_panel
// CHECK-SAME: %[[B:[^:]+]]: tensor<1024x1024xf32>
// CHECK: scf.forall (%[[N:.+]], %{{.+}}) = (0, 0) to (1024, 16) step (32, 16)
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<512x32xf32>
// CHECK: %[[PACKED:.+]] = scf.for %[[I:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[P:.+]] = %[[EMPTY]])
// CHECK: %[[ROW:.+]] = vector.transfer_read %[[B]][%{{.+}}, %[[N]]]
// CHECK: vector.transfer_write %[[ROW]], %[[P]][%[[I]], %{{.+}}] {{.*}} : vector<32xf32>, tensor<512x32xf32>
// CHECK: vector.transfer_read %[[PACKED]][%{{.+}}, %{{.+}}]
// CHECK: %[[EMPTY2:.+]] = tensor.empty() : tensor<512x32xf32>
// CHECK: %[[PACKED2:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[EMPTY2]])
// CHECK: %[[KP:.+]] = arith.subi %{{.+}}, %c512{{.*}} : index
// CHECK-NEXT: vector.transfer_read %[[PACKED2]][%[[KP]], %{{.+}}]
func.func @packed_panel(%a: tensor<16x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<16x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<16x1024xf32>) -> tensor<16x1024xf32>
  return %m : tensor<16x1024xf32>
}

// -----

// 40 columns, no multiple of 16: blocks of 32, the last one 8 wide (the
// slice's width the smaller of 32 and the columns left, reads and writes
// masked at the end).
// CHECK-LABEL: func @column_tail
// CHECK: scf.forall (%[[M:.+]], %[[N:.+]]) = (0, 0) to (8, 40) step (8, 32)
// CHECK: %[[LEFT:.+]] = arith.subi %{{.+}}, %[[N]] : index
// CHECK: %[[W:.+]] = arith.minsi %{{.+}}, %[[LEFT]] : index
// CHECK: tensor.extract_slice %{{.+}}[%[[M]], %[[N]]] [8, %[[W]]] [1, 1] : tensor<8x40xf32> to tensor<8x?xf32>
// CHECK: vector.transfer_read %{{.+}}[%{{.+}}, %[[N]]], %{{.+}} : tensor<64x40xf32>, vector<32xf32>
// CHECK: vector.transfer_write %{{.+}}, %{{.+}}[%{{.+}}, %{{.+}}] : vector<32xf32>, tensor<8x?xf32>
func.func @column_tail(%a: tensor<8x64xf32>, %b: tensor<64x40xf32>, %c: tensor<8x40xf32>) -> tensor<8x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x40xf32>) outs(%c : tensor<8x40xf32>) -> tensor<8x40xf32>
  return %r : tensor<8x40xf32>
}

// -----

// A 3x3 convolution (group of one, as msgraph.conv lowers it) with bias,
// residual and ReLU: an im2col copy (one row of 6 output positions per
// forall iteration, read whole from the input), the weight and the copy
// with their reductions merged (K = 4 * 3 * 3), the unit group dim
// dropped from C, the 6x6 output positions merged into 36 columns (a
// partial block of 32), and the epilogue reading C directly, applied in
// registers.
// CHECK-LABEL: func @conv
// CHECK-SAME: (%[[X:.+]]: tensor<1x4x8x8xf32>, %[[W:.+]]: tensor<8x4x3x3xf32>, %[[BIAS:.+]]: tensor<8xf32>, %[[RES:.+]]: tensor<1x8x6x6xf32>)
// CHECK: %[[COL:.+]] = scf.forall (%{{.+}}, %[[C:.+]], %[[KH:.+]], %[[KW:.+]], %[[OH:.+]]) in (1, 4, 3, 3, 6)
// CHECK: %[[IH:.+]] = arith.addi %[[OH]], %[[KH]] : index
// CHECK: vector.transfer_read %[[X]][%{{.+}}, %[[C]], %[[IH]], %[[KW]]], %{{.+}} {in_bounds = [true]} : tensor<1x4x8x8xf32>, vector<6xf32>
// CHECK: %[[B:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2, 3], [4], [5]] : tensor<1x4x3x3x6x6xf32> into tensor<1x36x6x6xf32>
// CHECK: %[[A:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
// CHECK: %[[BM:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0], [1], [2, 3]] : tensor<1x36x6x6xf32> into tensor<1x36x36xf32>
// CHECK: %[[RM:.+]] = tensor.collapse_shape %[[RES]] {{\[}}[0], [1], [2, 3]] : tensor<1x8x6x6xf32> into tensor<1x8x36xf32>
// CHECK: %[[K:.+]] = scf.forall (%[[I:.+]], %[[M:.+]], %[[N:.+]]) = (0, 0, 0) to (1, 8, 36) step (1, 8, 32)
// CHECK: vector.transfer_read %[[BM]][%[[I]], %{{.+}}, %[[N]]]
// CHECK: tensor.extract %[[A]][%[[M]], %{{.+}}]
// CHECK: vector.fma
// CHECK: tensor.extract %[[BIAS]][%[[M]]]
// CHECK: vector.transfer_read %[[RM]][%[[I]], %[[M]], %[[N]]]
// CHECK: arith.maximumf {{.*}} : vector<32xf32>
// CHECK: tensor.expand_shape %[[K]] {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 6, 6] : tensor<1x8x36xf32> into tensor<1x8x6x6xf32>
// CHECK-NOT: linalg.generic
#in = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#w = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#out = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#c5 = affine_map<(n, m, oh, ow) -> (n, 0, m, oh, ow)>
#ch = affine_map<(n, m, oh, ow) -> (m)>
#id = affine_map<(n, m, oh, ow) -> (n, m, oh, ow)>
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %bias: tensor<8xf32>, %res: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<1x1x8x6x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x1x8x6x6xf32>) -> tensor<1x1x8x6x6xf32>
  %conv = linalg.generic {indexing_maps = [#in, #w, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) outs(%f : tensor<1x1x8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x1x8x6x6xf32>
  %e = tensor.empty() : tensor<1x8x6x6xf32>
  %r = linalg.generic {indexing_maps = [#c5, #ch, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %bias, %res : tensor<1x1x8x6x6xf32>, tensor<8xf32>, tensor<1x8x6x6xf32>) outs(%e : tensor<1x8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    %1 = arith.addf %0, %c : f32
    %2 = arith.maximumf %1, %zero : f32
    linalg.yield %2 : f32
  } -> tensor<1x8x6x6xf32>
  return %r : tensor<1x8x6x6xf32>
}

// -----

// A 2x2 stride-2 convolution: each im2col row is read 11 wide (from the
// first to the last element its 6 positions read) and every second
// element kept.
// CHECK-LABEL: func @strided_conv
// CHECK: vector.transfer_read {{.*}} : tensor<1x4x12x12xf32>, vector<11xf32>
// CHECK: vector.shuffle %{{.+}}, %{{.+}} [0, 2, 4, 6, 8, 10] : vector<11xf32>, vector<11xf32>
// CHECK: vector.fma
#sin = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, c, oh * 2 + kh, ow * 2 + kw)>
#sw = affine_map<(n, m, oh, ow, c, kh, kw) -> (m, c, kh, kw)>
#sout = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @strided_conv(%x: tensor<1x4x12x12xf32>, %w: tensor<8x4x2x2xf32>, %init: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %conv = linalg.generic {indexing_maps = [#sin, #sw, #sout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x12x12xf32>, tensor<8x4x2x2xf32>) outs(%init : tensor<1x8x6x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x8x6x6xf32>
  return %conv : tensor<1x8x6x6xf32>
}

// -----

// Kernels in an executable compiled for one CPU of several take that CPU's
// register blocks, whatever the options: x86-64-v3 (AVX2) 6 rows by two
// 8-lane vectors.
// VARIANT-LABEL: msexec.executable @cpu_1 target("cpu") variant("x86-64-v3")
// VARIANT: scf.forall ({{.+}}) = (0, 0) to (48, 64) step (6, 16)
// VARIANT-COUNT-6: vector.fma {{.+}} : vector<16xf32>
// VARIANT-NOT: vector.fma
msexec.executable @cpu_1 target("cpu") variant("x86-64-v3") {
  builtin.module {
    func.func @matmul(%a: tensor<48x64xf32>, %b: tensor<64x64xf32>) -> tensor<48x64xf32> {
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<48x64xf32>
      %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
      %r = linalg.matmul ins(%a, %b : tensor<48x64xf32>, tensor<64x64xf32>) outs(%c : tensor<48x64xf32>) -> tensor<48x64xf32>
      return %r : tensor<48x64xf32>
    }
  }
}

// -----

// expected-error @+1 {{unknown --target-cpu 'pentium9': expected native or an LLVM CPU name}}
msexec.executable @cpu_1 target("cpu") variant("pentium9") {
  builtin.module {
    func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
      %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
      return %r : tensor<8x16xf32>
    }
  }
}

// -----

// A conv whose im2col copy would take 2.4 MB (K = 144, 64x64 positions)
// runs in 8 tiles of 8 output rows (a 295 KB copy each, 512 positions: 16
// column blocks), its elementwise user and the fill of its output tiled
// with it, the padded input read whole: per tile the im2col copy, then the
// kernel with the residual add in registers.
// CHECK-LABEL: func @large_conv
// CHECK: %[[PADDED:.+]] = tensor.pad
// CHECK: scf.forall (%[[H:.+]]) = (0) to (64) step (8) shared_outs
// CHECK: tensor.extract_slice %[[PADDED]][0, 0, %[[H]], 0] [1, 16, 10, 66]
// CHECK: scf.forall ({{.+}}) in (1, 16, 3, 3, 8)
// CHECK: scf.forall ({{.+}}) = (0, 0, 0) to (1, 512, 8) step (1, 32, 8)
// CHECK-COUNT-8: vector.fma
// CHECK: arith.addf {{.*}} : vector<32xf32>
// CHECK-NOT: linalg.generic
func.func @large_conv(%arg0: tensor<1x16x64x64xf32>, %arg1: tensor<8x16x3x3xf32>, %arg2: tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%arg3: index, %arg4: index, %arg5: index, %arg6: index):
    tensor.yield %cst : f32
  } : tensor<1x16x64x64xf32> to tensor<1x16x66x66xf32>
  %0 = tensor.empty() : tensor<1x8x64x64xf32>
  %1 = tensor.empty() : tensor<1x1x8x64x64xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x1x8x64x64xf32>) -> tensor<1x1x8x64x64xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %arg1 : tensor<1x16x66x66xf32>, tensor<8x16x3x3xf32>) outs(%2 : tensor<1x1x8x64x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<1x1x8x64x64xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3, %arg2 : tensor<1x1x8x64x64xf32>, tensor<1x8x64x64xf32>) outs(%0 : tensor<1x8x64x64xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.addf %in, %in_0 : f32
    linalg.yield %5 : f32
  } -> tensor<1x8x64x64xf32>
  return %4 : tensor<1x8x64x64xf32>
}

// -----

// Tiled from a 1 MiB copy on: a conv whose im2col copy takes 1.3 MB (K =
// 144, 48x48 positions) runs in 8 tiles of 6 output rows (288 positions,
// whole column blocks) with its ReLU. With its weight's output channels
// innermost (64 channels stored [C, KH, KW, M]) the kernel reads the input
// in place, one element per row (output position) and k, whose digits are
// the input channel, kh and kw: no copy, untiled. The 46x46 positions are
// one row loop (2116: 264 blocks of 8 rows and one of 4, not a tail of 6
// per row of positions), each row's position digits taken once per block;
// the k loop runs over the input channels, its 9 window steps unrolled
// (each reads the input at a constant offset: no quotient of k).
// CHECK-LABEL: func @mid_conv
// CHECK: scf.forall (%{{.+}}) = (0) to (48) step (6) shared_outs
// CHECK-LABEL: func @mid_conv_channels_innermost
// CHECK-SAME: (%[[IN:.+]]: tensor<1x16x48x48xf32>,
// CHECK-NOT: step (6)
// CHECK-NOT: in (1, 16, 3, 3, 46)
// CHECK: %[[FLAT:.+]] = tensor.collapse_shape %{{.+}} {{\[}}[0], [1, 2], [3]] : tensor<1x46x46x64xf32> into tensor<1x2116x64xf32>
// CHECK: scf.forall (%[[N:.+]], %[[P:.+]], %{{.+}}) = (0, 0, 0) to (1, 2116, 64) step (1, 8, 32) shared_outs(%{{.+}} = %[[FLAT]])
// CHECK: scf.for %[[C:.+]] = %{{.+}} to %{{.+}} step
// CHECK: %[[OH:.+]] = arith.divui %[[P]], %c46
// CHECK: %[[OW:.+]] = arith.remui %[[P]], %{{.+}}
// CHECK: tensor.extract %[[IN]][%[[N]], %[[C]], %[[OH]], %[[OW]]] : tensor<1x16x48x48xf32>
// CHECK: vector.fma
// CHECK: %[[OW1:.+]] = arith.remui %[[P]], %{{.+}}
// CHECK: %[[W1:.+]] = arith.addi %[[OW1]], %{{.+}}
// CHECK: tensor.extract %[[IN]][%[[N]], %[[C]], %{{.+}}, %[[W1]]] : tensor<1x16x48x48xf32>
// CHECK-NOT: arith.divui %[[C]]
// CHECK: scf.yield
func.func @mid_conv(%arg0: tensor<1x16x50x50xf32>, %arg1: tensor<8x16x3x3xf32>) -> tensor<1x8x48x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x8x48x48xf32>
  %1 = tensor.empty() : tensor<1x1x8x48x48xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x1x8x48x48xf32>) -> tensor<1x1x8x48x48xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x16x50x50xf32>, tensor<8x16x3x3xf32>) outs(%2 : tensor<1x1x8x48x48xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<1x1x8x48x48xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, 0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<1x1x8x48x48xf32>) outs(%0 : tensor<1x8x48x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.maximumf %in, %cst : f32
    linalg.yield %5 : f32
  } -> tensor<1x8x48x48xf32>
  return %4 : tensor<1x8x48x48xf32>
}
func.func @mid_conv_channels_innermost(%arg0: tensor<1x16x48x48xf32>, %arg1: tensor<16x3x3x64xf32>) -> tensor<1x1x64x46x46xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %1 = tensor.empty() : tensor<1x1x64x46x46xf32>
  %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<1x1x64x46x46xf32>) -> tensor<1x1x64x46x46xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg0, %arg1 : tensor<1x16x48x48xf32>, tensor<16x3x3x64xf32>) outs(%2 : tensor<1x1x64x46x46xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %5 = arith.mulf %in, %in_0 : f32
    %6 = arith.addf %out, %5 : f32
    linalg.yield %6 : f32
  } -> tensor<1x1x64x46x46xf32>
  return %3 : tensor<1x1x64x46x46xf32>
}

// -----

// 13 rows (prime: the tallest dividing block would be one row, two
// accumulators) run in blocks of 8, the block at row 8 holding the 5 rows
// left: its iteration runs the kernel on 5 rows instead (scf.if on the
// block's height), on the same column block.
// CHECK-LABEL: func @row_tail
// CHECK: scf.forall (%[[M:.+]], %[[N:.+]]) = (0, 0) to (13, 32) step (8, 32)
// CHECK: %[[H:.+]] = arith.minsi %{{.+}}, %{{.+}} : index
// CHECK: tensor.extract_slice %{{.+}}[%[[M]], %[[N]]] [%[[H]], 32] [1, 1] : tensor<13x32xf32> to tensor<?x32xf32>
// CHECK: scf.if %{{.+}} -> (tensor<?x32xf32>)
// CHECK-COUNT-8: vector.fma
// CHECK: } else {
// CHECK-COUNT-5: vector.fma
// CHECK-NOT: vector.fma
// CHECK: tensor.parallel_insert_slice %{{.+}}[%[[M]], %[[N]]] [%[[H]], 32] [1, 1]
func.func @row_tail(%a: tensor<13x16xf32>, %b: tensor<16x32xf32>, %c: tensor<13x32xf32>) -> tensor<13x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x16xf32>, tensor<16x32xf32>) outs(%c : tensor<13x32xf32>) -> tensor<13x32xf32>
  return %r : tensor<13x32xf32>
}

// -----

// A conv whose weight is stored [C, KH, KW, M] (ms-cpu-pack-weights):
// the contraction vectorizes along the 32 output channels (C is [n, oh *
// ow, M], B the weight, A the input read in place, a position per row),
// and the epilogue reads C expanded to [n, oh, ow, M] and transposed. A
// conv accumulating into a tensor reads it transposed and collapsed, and
// its result is expanded and transposed back.
// CHECK-LABEL: func @packed_conv
// CHECK-SAME: (%[[IN:.+]]: tensor<1x4x6x6xf32>, %[[W:.+]]: tensor<4x3x3x32xf32>, %{{.+}}: tensor<32xf32>)
// CHECK: %[[B:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0, 1, 2], [3]] : tensor<4x3x3x32xf32> into tensor<36x32xf32>
// CHECK: %[[C:.+]] = scf.forall (%[[I:.+]], %[[P:.+]], %[[M:.+]]) = (0, 0, 0) to (1, 16, 32) step (1, 8, 32) shared_outs(%{{.+}} = %{{.+}}) -> (tensor<1x16x32xf32>)
// CHECK: vector.transfer_read %[[B]][%{{.+}}, %[[M]]]
// CHECK: tensor.extract %[[IN]][%[[I]], %{{.+}}, %{{.+}}, %{{.+}}] : tensor<1x4x6x6xf32>
// CHECK: vector.fma
// CHECK: %[[CE:.+]] = tensor.expand_shape %[[C]] {{\[}}[0], [1, 2], [3]] output_shape [1, 4, 4, 32] : tensor<1x16x32xf32> into tensor<1x4x4x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[T:.+]], #{{.+}}, #{{.+}}], {{.*}} ins(%[[CE]], %{{.+}} : tensor<1x4x4x32xf32>, tensor<32xf32>) outs(%{{.+}} : tensor<1x32x4x4xf32>)
// CHECK-LABEL: func @packed_conv_init
// CHECK: %[[T0:.+]] = linalg.transpose ins(%{{.+}} : tensor<1x32x4x4xf32>) outs(%{{.+}} : tensor<1x4x4x32xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[T0F:.+]] = tensor.collapse_shape %[[T0]] {{\[}}[0], [1, 2], [3]] : tensor<1x4x4x32xf32> into tensor<1x16x32xf32>
// CHECK: %[[R:.+]] = scf.forall {{.*}} shared_outs(%{{.+}} = %[[T0F]]) -> (tensor<1x16x32xf32>)
// CHECK: vector.fma
// CHECK: %[[RE:.+]] = tensor.expand_shape %[[R]]
// CHECK: %[[BACK:.+]] = linalg.transpose ins(%[[RE]] : tensor<1x4x4x32xf32>) outs(%{{.+}} : tensor<1x32x4x4xf32>) permutation = [0, 3, 1, 2]
// CHECK: return %[[BACK]]
#pin = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#pw = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (c, kh, kw, m)>
#pout = affine_map<(n, g, m, oh, ow, c, kh, kw) -> (n, g, m, oh, ow)>
#pc5 = affine_map<(n, m, oh, ow) -> (n, 0, m, oh, ow)>
#pch = affine_map<(n, m, oh, ow) -> (m)>
#pid = affine_map<(n, m, oh, ow) -> (n, m, oh, ow)>
func.func @packed_conv(%x: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x32xf32>, %bias: tensor<32xf32>) -> tensor<1x32x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e5 = tensor.empty() : tensor<1x1x32x4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e5 : tensor<1x1x32x4x4xf32>) -> tensor<1x1x32x4x4xf32>
  %conv = linalg.generic {indexing_maps = [#pin, #pw, #pout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<4x3x3x32xf32>) outs(%f : tensor<1x1x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x1x32x4x4xf32>
  %e = tensor.empty() : tensor<1x32x4x4xf32>
  %r = linalg.generic {indexing_maps = [#pc5, #pch, #pid], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %bias : tensor<1x1x32x4x4xf32>, tensor<32xf32>) outs(%e : tensor<1x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.addf %a, %b : f32
    %2 = arith.maximumf %0, %zero : f32
    linalg.yield %2 : f32
  } -> tensor<1x32x4x4xf32>
  return %r : tensor<1x32x4x4xf32>
}


// -----


#qin = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, c, oh + kh, ow + kw)>
#qw = affine_map<(n, m, oh, ow, c, kh, kw) -> (c, kh, kw, m)>
#qout = affine_map<(n, m, oh, ow, c, kh, kw) -> (n, m, oh, ow)>
func.func @packed_conv_init(%x: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x32xf32>, %init: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %conv = linalg.generic {indexing_maps = [#qin, #qw, #qout], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x4x6x6xf32>, tensor<4x3x3x32xf32>) outs(%init : tensor<1x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x32x4x4xf32>
  return %conv : tensor<1x32x4x4xf32>
}

// -----

// A convolution as a contraction (C[h][w][n] += A[k][h][w] * B[k][n], as
// after im2col with the weight's channels innermost) with a reduction in
// two blocks: B's six panels of 32 columns are too few for the threads,
// so the first loop inside with more than one iteration, h (which B does
// not read: its panel stays in cache across it), is split into chunks of
// 2 for 12 iterations; each runs both blocks of k over its slab (two h,
// 7 rows, 32 columns).
// CHECK-LABEL: func @conv_rows
// CHECK: scf.forall (%[[N:.+]], %[[H:.+]]) = (0, 0) to (192, 4) step (32, 2) shared_outs(%[[D:.+]] = %{{.+}})
// CHECK: %[[SLAB:.+]] = tensor.extract_slice %[[D]][%[[H]], 0, %[[N]]] [2, 7, 32] [1, 1, 1] : tensor<4x7x192xf32> to tensor<2x7x32xf32>
// CHECK: scf.for %[[HI:.+]] = %[[H]] to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[SLAB]])
// CHECK: scf.for %[[W:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: tensor.extract %{{.+}}[%{{.+}}, %[[HI]], %[[W]]] : tensor<1024x4x7xf32>
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[D]][%[[H]], 0, %[[N]]] [2, 7, 32] [1, 1, 1]
#ca = affine_map<(h, w, n, k) -> (k, h, w)>
#cb = affine_map<(h, w, n, k) -> (k, n)>
#cc = affine_map<(h, w, n, k) -> (h, w, n)>
func.func @conv_rows(%a: tensor<1024x4x7xf32>, %b: tensor<1024x192xf32>, %c: tensor<4x7x192xf32>) -> tensor<4x7x192xf32> {
  %r = linalg.generic {indexing_maps = [#ca, #cb, #cc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1024x4x7xf32>, tensor<1024x192xf32>) outs(%c : tensor<4x7x192xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x7x192xf32>
  return %r : tensor<4x7x192xf32>
}

// -----

// B stored in panels of 32 columns (ms-cpu-pack-weights: [2, 64, 32],
// transposed and reshaped back to [64, 64], here as a generic copy and as
// linalg.transpose): the kernel reads the panels, column n at panel
// n / 32, column n % 32, and the transposes are left unused.
// CHECK-LABEL: func @panels
// CHECK-SAME: (%{{.+}}: tensor<16x64xf32>, %[[P:.+]]: tensor<2x64x32xf32>)
// CHECK: scf.forall (%{{.+}}, %[[N:.+]]) = (0, 0) to (16, 64) step (8, 32)
// CHECK-DAG: %[[PANEL:.+]] = arith.divui %[[N]], %[[C32:.+]] : index
// CHECK-DAG: %[[COLUMN:.+]] = arith.remui %[[N]], %[[C32]] : index
// CHECK: scf.for %[[K:[a-z0-9]+]] =
// CHECK: vector.transfer_read %[[P]][%[[PANEL]], %[[K]], %[[COLUMN]]]
// CHECK-LABEL: func @panels_transpose
// CHECK-SAME: (%{{.+}}: tensor<16x64xf32>, %[[P:.+]]: tensor<2x64x32xf32>)
// CHECK: vector.transfer_read %[[P]][%{{.+}}, %{{.+}}, %{{.+}}]
#swap = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @panels(%a: tensor<16x64xf32>, %p: tensor<2x64x32xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x2x32xf32>
  %t = linalg.generic {indexing_maps = [#swap, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%p : tensor<2x64x32xf32>) outs(%e : tensor<64x2x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<64x2x32xf32>
  %flat = tensor.collapse_shape %t [[0, 1, 2]] : tensor<64x2x32xf32> into tensor<4096xf32>
  %b = tensor.expand_shape %flat [[0, 1]] output_shape [64, 64] : tensor<4096xf32> into tensor<64x64xf32>
  %ce = tensor.empty() : tensor<16x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}
func.func @panels_transpose(%a: tensor<16x64xf32>, %p: tensor<2x64x32xf32>) -> tensor<16x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x2x32xf32>
  %t = linalg.transpose ins(%p : tensor<2x64x32xf32>) outs(%e : tensor<64x2x32xf32>) permutation = [1, 0, 2]
  %b = tensor.collapse_shape %t [[0], [1, 2]] : tensor<64x2x32xf32> into tensor<64x64xf32>
  %ce = tensor.empty() : tensor<16x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%ce : tensor<16x64xf32>) -> tensor<16x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// -----

// B unpacked from bf16 pairs of panel rows [N / 32, K / 2, 64]
// (ms-cpu-pack-weights precision=bf16, fused: split, transposed and
// extended in one generic): the matmul runs in pair form (A rounded to
// bf16 once, both read by pairs of k), its k loop by pairs, reading 64
// bf16 of the pairs per block of 32 columns and per row one pair of A as
// an i32 word; without bf16-dot two fused multiply-adds of the pairs'
// halves (the words shifted and masked), with it one x86vector.avx512.dot
// per 16 columns.
// CHECK-LABEL: func.func @bf16_pairs
// CHECK-SAME: %[[A:[a-z0-9]+]]: tensor<8x4xf32>, %[[P:[a-z0-9]+]]: tensor<2x2x64xbf16>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8x4xf32>) outs(%{{.+}} : tensor<8x4xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[SPLIT:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [8, 2, 2]
// CHECK: %[[PP:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3]] output_shape [2, 2, 32, 2]
// CHECK: %[[PB:.+]] = tensor.collapse_shape %[[PP]] {{\[}}[0], [1], [2, 3]]
// CHECK: scf.forall
// CHECK: scf.for %[[C:[a-z0-9]+]] = 
// CHECK: vector.transfer_read %[[PB]][%{{.+}}, %[[C]], %{{.+}}], {{.*}} : tensor<2x2x64xbf16>, vector<64xbf16>
// CHECK: vector.transfer_read %[[SPLIT]][%{{.+}}, %[[C]], %{{.+}}], {{.*}} : tensor<8x2x2xbf16>, vector<2xbf16>
// CHECK: vector.bitcast %{{.+}} : vector<2xbf16> to vector<1xi32>
// CHECK: vector.bitcast %{{.+}} : vector<64xbf16> to vector<32xi32>
// CHECK-COUNT-2: vector.fma
// CHECK-NOT: x86vector
// DOT-LABEL: func.func @bf16_pairs
// DOT: scf.for
// DOT: vector.broadcast %{{.+}} : i32 to vector<16xi32>
// DOT: vector.bitcast %{{.+}} : vector<16xi32> to vector<32xbf16>
// DOT-COUNT-2: x86vector.avx512.dot %{{.+}} : vector<32xbf16> -> vector<16xf32>
// DOT-NOT: vector.fma
func.func @bf16_pairs(%a: tensor<8x4xf32>, %pairs: tensor<2x2x64xbf16>) -> tensor<8x64xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %split = tensor.expand_shape %pairs [[0], [1], [2, 3]] output_shape [2, 2, 32, 2] : tensor<2x2x64xbf16> into tensor<2x2x32x2xbf16>
  %0 = tensor.empty() : tensor<2x2x2x32xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<2x2x32x2xbf16>) outs(%0 : tensor<2x2x2x32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  } -> tensor<2x2x2x32xf32>
  %b = tensor.collapse_shape %1 [[0, 1], [2, 3]] : tensor<2x2x2x32xf32> into tensor<4x64xf32>
  %2 = tensor.empty() : tensor<8x64xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %4 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x64xf32>) outs(%3 : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %4 : tensor<8x64xf32>
}

// -----

// A conv whose weight comes from bf16 pair panels of input channels (the
// argument marked ms.conv_pairs, [M / 32, C / 2 * 9, 64]: ms-cpu-pack-weights
// precision=bf16), 4 -> 32 channels on 4x4 positions: the input is rounded
// to bf16 in pairs of channels ([1, 2, 6, 6, 2]: per row of the pairs, the
// two channels' rows interleaved), the contraction runs in pair form on
// the argument itself, reading the input in place (the pair loop unrolled
// by the 9 window positions): per step one pair of the input as a word per
// row, 64 bf16 of the panels per block of 32 channels.
// DOT-LABEL: func.func @conv_pair_panels
// DOT-SAME: %[[IN:[a-z0-9]+]]: tensor<1x4x6x6xf32>, %[[P:[a-z0-9]+]]: tensor<1x18x64xbf16> {ms.conv_pairs}
// DOT: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 2, 6)
// DOT: vector.transfer_read %[[IN]]{{.+}} : tensor<1x4x6x6xf32>, vector<6xf32>
// DOT: vector.transfer_read %[[IN]]{{.+}} : tensor<1x4x6x6xf32>, vector<6xf32>
// DOT: vector.interleave %{{.+}}, %{{.+}} : vector<6xf32> -> vector<12xf32>
// DOT: arith.truncf %{{.+}} : vector<12xf32> to vector<12xbf16>
// DOT: %[[PAIRS:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 2, 6, 6, 2]
// DOT: %[[SPLIT:.+]] = tensor.expand_shape %[[P]] {{\[}}[0], [1], [2, 3]] output_shape [1, 18, 32, 2]
// DOT: %[[PANELS:.+]] = tensor.collapse_shape %[[SPLIT]] {{\[}}[0], [1], [2, 3]] : tensor<1x18x32x2xbf16> into tensor<1x18x64xbf16>
// DOT: scf.forall
// DOT: scf.for
// DOT: vector.transfer_read %[[PANELS]]{{.+}} : tensor<1x18x64xbf16>, vector<64xbf16>
// DOT: vector.transfer_read %[[PAIRS]]{{.+}} : tensor<1x2x6x6x2xbf16>, vector<2xbf16>
// (9 window positions x 8 rows x 2 halves of the block per step.)
// DOT-COUNT-144: x86vector.avx512.dot
// DOT-NOT: x86vector.avx512.dot
// DOT: scf.yield
func.func @conv_pair_panels(%in: tensor<1x4x6x6xf32>, %p: tensor<1x18x64xbf16> {ms.conv_pairs}) -> tensor<1x1x32x4x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %split = tensor.expand_shape %p [[0], [1, 2, 3], [4, 5]] output_shape [1, 2, 3, 3, 32, 2] : tensor<1x18x64xbf16> into tensor<1x2x3x3x32x2xbf16>
  %e = tensor.empty() : tensor<1x32x2x2x3x3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d4, d5, d1, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%split : tensor<1x2x3x3x32x2xbf16>) outs(%e : tensor<1x32x2x2x3x3xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<1x32x2x2x3x3xf32>
  %w = tensor.collapse_shape %t [[0, 1], [2, 3], [4], [5]] : tensor<1x32x2x2x3x3xf32> into tensor<32x4x3x3xf32>
  %0 = tensor.empty() : tensor<1x1x32x4x4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x32x4x4xf32>) -> tensor<1x1x32x4x4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x4x6x6xf32>, tensor<32x4x3x3xf32>) outs(%1 : tensor<1x1x32x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x1x32x4x4xf32>
  return %2 : tensor<1x1x32x4x4xf32>
}

// -----

// A conv whose weight comes from bf16 rows [M, C * 9] (marked
// ms.conv_pairs; more positions than channels): an im2col copy in pairs of
// the merged reduction ([1, 9, 8, 16, 2]: per pair, the two rows of output
// positions interleaved and rounded), the contraction in pair form with
// the positions as its columns (64 bf16 per block of 32 of them) and per
// row (output channel) one pair of the weight as a word.
// DOT-LABEL: func.func @conv_pair_rows
// DOT-SAME: %[[IN:[a-z0-9]+]]: tensor<1x2x10x18xf32>, %[[R:[a-z0-9]+]]: tensor<16x18xbf16> {ms.conv_pairs}
// DOT: scf.forall (%{{.+}}, %{{.+}}, %{{.+}}) in (1, 9, 8)
// DOT: vector.transfer_read %[[IN]]{{.+}} : tensor<1x2x10x18xf32>, vector<16xf32>
// DOT: vector.transfer_read %[[IN]]{{.+}} : tensor<1x2x10x18xf32>, vector<16xf32>
// DOT: vector.interleave %{{.+}}, %{{.+}} : vector<16xf32> -> vector<32xf32>
// DOT: %[[COL:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 9, 8, 16, 2]
// DOT: %[[ROWS:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [16, 9, 2]
// DOT: %[[B:.+]] = tensor.collapse_shape %[[COL]] {{\[}}[0], [1], [2, 3, 4]] : tensor<1x9x8x16x2xbf16> into tensor<1x9x256xbf16>
// DOT: scf.forall {{.+}} to (1, 16, 128) step (1, 8, 32)
// DOT: scf.for
// DOT: vector.transfer_read %[[B]]{{.+}} : tensor<1x9x256xbf16>, vector<64xbf16>
// DOT: vector.transfer_read %[[ROWS]]{{.+}} : tensor<16x9x2xbf16>, vector<2xbf16>
// DOT: x86vector.avx512.dot
func.func @conv_pair_rows(%in: tensor<1x2x10x18xf32>, %r: tensor<16x18xbf16> {ms.conv_pairs}) -> tensor<1x1x16x8x16xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16x18xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<16x18xbf16>) outs(%e : tensor<16x18xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %y = arith.extf %x : bf16 to f32
    linalg.yield %y : f32
  } -> tensor<16x18xf32>
  %w = tensor.expand_shape %t [[0], [1, 2, 3]] output_shape [16, 2, 3, 3] : tensor<16x18xf32> into tensor<16x2x3x3xf32>
  %0 = tensor.empty() : tensor<1x1x16x8x16xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x16x8x16xf32>) -> tensor<1x1x16x8x16xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %w : tensor<1x2x10x18xf32>, tensor<16x2x3x3xf32>) outs(%1 : tensor<1x1x16x8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %3 = arith.mulf %a, %b : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<1x1x16x8x16xf32>
  return %2 : tensor<1x1x16x8x16xf32>
}

// -----

// With bf16 (--precision bf16) a matmul of two activations runs in pair
// form: A rounded to bf16 and split into pairs along k in place, B laid
// out in pairs of its k rows (each row of pairs two rows of B interleaved
// and rounded). One whose B has k innermost (no kernel takes it: its
// columns are not contiguous) is left as it is, f32; every contraction
// without bf16 stays f32.
// BF16-LABEL: func.func @activations
// BF16-SAME: %[[A:[a-z0-9]+]]: tensor<16x64xf32>, %[[B:[a-z0-9]+]]: tensor<64x32xf32>
// BF16: %[[R:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<16x64xf32>) outs(%{{.+}} : tensor<16x64xbf16>)
// BF16: arith.truncf %{{.+}} : f32 to bf16
// BF16: %[[AP:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [16, 32, 2]
// BF16: scf.forall (%{{.+}}) in (32)
// BF16: vector.transfer_read %[[B]]{{.+}} : tensor<64x32xf32>, vector<32xf32>
// BF16: vector.transfer_read %[[B]]{{.+}} : tensor<64x32xf32>, vector<32xf32>
// BF16: vector.interleave %{{.+}}, %{{.+}} : vector<32xf32> -> vector<64xf32>
// BF16: %[[BP:.+]] = tensor.expand_shape %{{.+}} {{\[}}[0], [1, 2]] output_shape [32, 32, 2]
// BF16: scf.forall
// BF16: vector.transfer_read %[[AP]]{{.+}} : tensor<16x32x2xbf16>, vector<2xbf16>
// BF16: x86vector.avx512.dot
// BF16-LABEL: func.func @transposed_b
// BF16-NOT: bf16
// BF16: linalg.generic {{.*}} ins(%{{.+}}, %{{.+}} : tensor<16x64xf32>, tensor<32x64xf32>)
// BF16-NOT: bf16
// BF16: return
// A B wider than 256 columns is laid out 256 columns at a time (an scf.for
// over the full chunks, then the rest), so no vector grows with N.
// BF16-LABEL: func.func @wide_b
// BF16: scf.forall (%{{.+}}) in (32)
// BF16: scf.for %[[COL:.+]] = %c0 to %c512 step %c256
// BF16: vector.transfer_read %{{.+}}[%{{.+}}, %[[COL]]]{{.+}} : tensor<64x600xf32>, vector<256xf32>
// BF16: vector.interleave %{{.+}}, %{{.+}} : vector<256xf32> -> vector<512xf32>
// BF16: vector.transfer_read %{{.+}}[%{{.+}}, %c512{{[_0-9]*}}]{{.+}} : tensor<64x600xf32>, vector<88xf32>
// BF16: vector.interleave %{{.+}}, %{{.+}} : vector<88xf32> -> vector<176xf32>
// BF16: x86vector.avx512.dot
// An f16 matmul (its operands f16 extended to f32) keeps f32: bf16 would
// drop 3 of f16's mantissa bits.
// BF16-LABEL: func.func @f16_operands
// BF16-NOT: bf16
// BF16: return
// CHECK-LABEL: func.func @activations
// CHECK-NOT: bf16
// CHECK: vector.fma
func.func @activations(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
func.func @transposed_b(%a: tensor<16x64xf32>, %b: tensor<32x64xf32>) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x64xf32>, tensor<32x64xf32>) outs(%c : tensor<16x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
func.func @wide_b(%a: tensor<16x64xf32>, %b: tensor<64x600xf32>) -> tensor<16x600xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<16x600xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<16x600xf32>) -> tensor<16x600xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x600xf32>) outs(%c : tensor<16x600xf32>) -> tensor<16x600xf32>
  return %r : tensor<16x600xf32>
}
func.func @f16_operands(%a: tensor<16x64xf16>, %b: tensor<64x32xf16>) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %ea = tensor.empty() : tensor<16x64xf32>
  %a32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x64xf16>) outs(%ea : tensor<16x64xf32>) {
  ^bb0(%x: f16, %o: f32):
    %y = arith.extf %x : f16 to f32
    linalg.yield %y : f32
  } -> tensor<16x64xf32>
  %eb = tensor.empty() : tensor<64x32xf32>
  %b32 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<64x32xf16>) outs(%eb : tensor<64x32xf32>) {
  ^bb0(%x: f16, %o: f32):
    %y = arith.extf %x : f16 to f32
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%cst : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.matmul ins(%a32, %b32 : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}
