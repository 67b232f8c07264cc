// RUN: ms-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(ms-cpu-contraction-kernels))' | FileCheck %s

// A matmul from a zero fill: blocks of 32 columns (outer) and 8 rows
// (inner) in a forall, the 8 rows of the block in registers across k (one
// row of B loaded and one element of A broadcast per row, fused
// multiply-adds), the registers starting from the fill's value and written
// once into the fill's destination (the fill itself is gone).
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<64x256xf32>, %[[B:.+]]: tensor<256x128xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<64x128xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.forall (%[[N:.+]], %[[M:.+]]) = (0, 0) to (128, 64) step (32, 8) shared_outs(%[[OUT:.+]] = %[[E]])
// CHECK: %[[ZERO:.+]] = vector.broadcast %{{.+}} : f32 to vector<32xf32>
// CHECK: %[[ACC:.+]]:8 = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[R0:[a-z0-9_]+]] = %[[ZERO]], {{.*}}) -> (vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>, vector<32xf32>)
// CHECK: %[[ROW:.+]] = vector.transfer_read %[[B]][%[[K]], %[[N]]]
// CHECK: %[[X:.+]] = tensor.extract %[[A]][%[[M]], %[[K]]]
// CHECK: %[[XV:.+]] = vector.broadcast %[[X]] : f32 to vector<32xf32>
// CHECK: vector.fma %[[XV]], %[[ROW]], %[[R0]] : vector<32xf32>
// CHECK-COUNT-7: vector.fma
// CHECK: scf.yield
// CHECK: %[[TILE:.+]] = tensor.extract_slice %[[OUT]][%[[M]], %[[N]]] [8, 32] [1, 1]
// CHECK: vector.transfer_write %[[ACC]]#0, %[[TILE]]
// CHECK-COUNT-7: vector.transfer_write
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[M]], %[[N]]] [8, 32] [1, 1]
func.func @matmul(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// A batch matmul whose B is shared by the batch (a linear layer on 3-D
// input), accumulating into a given C: the batch is an outer forall loop,
// the registers start from C, and 12 rows take blocks of 6 (the largest
// count up to 8 that divides 12); 16 columns take one vector.
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[A:.+]]: tensor<2x12x64xf32>, %[[B:.+]]: tensor<64x16xf32>, %[[C:.+]]: tensor<2x12x16xf32>)
// CHECK: scf.forall (%[[I:.+]], %[[N:.+]], %[[M:.+]]) = (0, 0, 0) to (2, 16, 12) step (1, 16, 6) shared_outs(%[[OUT:.+]] = %[[C]])
// CHECK: vector.transfer_read %[[OUT]][%[[I]], %[[M]], %[[N]]]
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
// weight), a column count that is no multiple of 16, f16.
// CHECK-LABEL: func @not_covered
// CHECK-NOT: scf.forall
// CHECK-COUNT-3: linalg.generic
#at = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#ct = affine_map<(m, n, k) -> (m, n)>
func.func @not_covered(%a: tensor<8x32xf32>, %bt: tensor<32x32xf32>, %b: tensor<32x24xf32>, %c: tensor<8x32xf32>, %c24: tensor<8x24xf32>, %ah: tensor<8x32xf16>, %bh: tensor<32x32xf16>, %ch: tensor<8x32xf16>) -> (tensor<8x32xf32>, tensor<8x24xf32>, tensor<8x32xf16>) {
  %0 = linalg.generic {indexing_maps = [#at, #bt, #ct], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bt : tensor<8x32xf32>, tensor<32x32xf32>) outs(%c : tensor<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x32xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x32xf32>, tensor<32x24xf32>) outs(%c24 : tensor<8x24xf32>) -> tensor<8x24xf32>
  %2 = linalg.matmul ins(%ah, %bh : tensor<8x32xf16>, tensor<32x32xf16>) outs(%ch : tensor<8x32xf16>) -> tensor<8x32xf16>
  return %0, %1, %2 : tensor<8x32xf32>, tensor<8x24xf32>, tensor<8x32xf16>
}

// -----

// A reduction of 2048 runs in blocks of 512: the first forall starts from
// the fill's value, the middle blocks (an scf.for around the forall) and
// the last start from the partial sums in the destination, and only the
// last applies the epilogue.
// CHECK-LABEL: func @blocked
// CHECK: %[[FIRST:.+]] = scf.forall {{.*}} shared_outs(%[[D0:.+]] = %{{.+}})
// CHECK: vector.broadcast %{{.+}} : f32 to vector<32xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK-NOT: math.exp
// CHECK: %[[MIDDLE:.+]] = scf.for %[[KB:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[D1:.+]] = %[[FIRST]])
// CHECK: scf.forall {{.*}} shared_outs(%[[D2:.+]] = %[[D1]])
// CHECK: vector.transfer_read %[[D2]]
// CHECK-NOT: math.exp
// CHECK: scf.yield
// CHECK: scf.forall {{.*}} shared_outs(%[[D3:.+]] = %[[MIDDLE]])
// CHECK: vector.transfer_read %[[D3]]
// CHECK: math.exp %{{.+}} : vector<32xf32>
func.func @blocked(%a: tensor<8x2048xf32>, %b: tensor<2048x32xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x2048xf32>, tensor<2048x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
