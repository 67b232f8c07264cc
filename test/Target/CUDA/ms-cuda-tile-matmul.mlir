// RUN: ms-opt %s --ms-cuda-tile-matmul --split-input-file --verify-diagnostics | FileCheck %s
// RUN: ms-opt %s --ms-cuda-tile-matmul=precision=bf16 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=BF16
// RUN: ms-opt %s --ms-cuda-tile-matmul=precision=f16 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=F16
// RUN: ms-opt %s --ms-cuda-tile-matmul=precision=tf32 --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=TF32
// RUN: ms-opt %s --ms-cuda-tile-matmul="arch=sm_90a tma=false" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=WGMMA
// RUN: ms-opt %s --ms-cuda-tile-matmul=arch=sm_90a --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=WS
// RUN: ms-opt %s --ms-cuda-tile-matmul="arch=sm_90a wide-tiles=true" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=WIDE
// RUN: ms-opt %s --ms-cuda-tile-matmul="arch=sm_90a wide-tiles=true persistent-blocks=132" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=PERSIST
// RUN: ms-opt %s --ms-cuda-tile-matmul="arch=sm_90a producer-warp=false persistent-blocks=132" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=TMA
// RUN: not ms-opt %s --ms-cuda-tile-matmul=precision=f64 --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: expected precision f32, tf32, bf16 or f16, found 'f64'

// A 256x256 by 256x128 product after a fill: one launch of 2 x 4 blocks of
// 64 x 64 (too few for 128 x 128 tiles) and 256 threads, two shared tiles
// of two stages of 16 steps of K by 64 (+4) rows, the fill folded into the
// final sums. No bounds checks: the tiles divide the matrix. The first
// step is staged before the loop; each step loads the next (the last
// reloads itself, at 240) before computing from its stage, then stores it
// in the other stage: one barrier a step.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.*]]: memref<256x256xf32>, %[[B:.*]]: memref<256x128xf32>, %[[C:.*]]: memref<256x128xf32>
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[INIT:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C8]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) threads(%[[TX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[ONE]], %{{.*}} = %[[ONE]]) workgroup(%[[AS:[^ ]*]] : memref<2x16x68xf32, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<2x16x68xf32, #gpu.address_space<workgroup>>)
// Block: column tile bx % 2, row tile bx / 2; thread (tx / 16, tx % 16),
// which owns rows 4 (tx / 16) + [0, 4) and columns 4 (tx % 16) + [0, 4).
// CHECK: %[[TN:.*]] = arith.remui %[[BX]], %{{.*}} : index
// CHECK: %[[R:.*]] = arith.divui %[[BX]], %{{.*}} : index
// CHECK: %[[TM:.*]] = arith.remui %[[R]], %{{.*}} : index
// CHECK: %[[M0:.*]] = arith.muli %[[TM]], %{{.*}} : index
// CHECK: %[[N0:.*]] = arith.muli %[[TN]], %{{.*}} : index
// CHECK: %[[TY:.*]] = arith.divui %[[TX]], %[[C16:.*]] : index
// CHECK: %[[TXX:.*]] = arith.remui %[[TX]], %{{.*}} : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[TY]], %[[C4S:.*]] : index
// CHECK: %[[COLS:.*]] = arith.muli %[[TXX]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.constant 240 : index
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// The first step into stage 0.
// CHECK: vector.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[AS]][%[[Z]], %{{.*}}, %{{.*}}]
// CHECK: vector.store %{{.*}}, %[[BS]][%[[Z]], %{{.*}}, %{{.*}}]
// CHECK: gpu.barrier
// CHECK: %[[SUMS:.*]]:16 = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: %[[STEP:.*]] = arith.divui %[[K0]], %{{.*}} : index
// CHECK: %[[CUR:.*]] = arith.remui %[[STEP]], %{{.*}} : index
// CHECK: %[[OTHER:.*]] = arith.subi %{{.*}}, %[[CUR]] : index
// CHECK: %[[AFTER:.*]] = arith.addi %[[K0]], %{{.*}} : index
// CHECK: %[[KN:.*]] = arith.minui %[[AFTER]], %[[LAST]] : index
// A's elements along K (its innermost dimension), 4 at a time (rows of
// 256 floats): row e / 4, step k = 4 (e % 4).
// CHECK: %[[RA:.*]] = arith.divui %[[TX]], %[[C4:.*]] : index
// CHECK: %[[GA:.*]] = arith.remui %[[TX]], %[[C4]] : index
// CHECK: %[[KA:.*]] = arith.muli %[[GA]], %{{.*}} : index
// CHECK: %[[GM:.*]] = arith.addi %[[M0]], %[[RA]] : index
// CHECK: %[[GK:.*]] = arith.addi %[[KN]], %[[KA]] : index
// CHECK: %[[VA:.*]] = vector.load %[[A]][%[[GM]], %[[GK]]] {alignment = 16 : i64} : memref<256x256xf32>, vector<4xf32>
// B's along N (its innermost dimension): columns 4 (e % 16), step e / 16.
// CHECK: %[[GB:.*]] = arith.remui %[[TX]], %{{.*}} : index
// CHECK: %[[CB:.*]] = arith.muli %[[GB]], %{{.*}} : index
// CHECK: %[[KB:.*]] = arith.divui %[[TX]], %{{.*}} : index
// CHECK: %[[GN:.*]] = arith.addi %[[N0]], %[[CB]] : index
// CHECK: %[[GKB:.*]] = arith.addi %[[KN]], %[[KB]] : index
// CHECK: %[[VB:.*]] = vector.load %[[B]][%[[GKB]], %[[GN]]] {alignment = 16 : i64} : memref<256x128xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// A step of K reads the thread's 4 rows and 4 columns as a vector each.
// CHECK: %[[VX:.*]] = vector.load %[[AS]][%[[CUR]], %{{.*}}, %[[ROWS]]] {alignment = 16 : i64} : memref<2x16x68xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: %[[X:.*]] = vector.extract %[[VX]][0]
// CHECK-COUNT-3: vector.extract %[[VX]]
// CHECK: %[[VY:.*]] = vector.load %[[BS]][%[[CUR]], %{{.*}}, %[[COLS]]] {alignment = 16 : i64}
// CHECK: %[[Y:.*]] = vector.extract %[[VY]][0]
// CHECK-COUNT-3: vector.extract %[[VY]]
// CHECK-NOT: memref.load
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %[[P]] fastmath<contract> : f32
// CHECK-NOT: gpu.barrier
// A's group goes down a column of its [k][row] tile element by element,
// B's along a row as one vector.
// CHECK: %[[A0:.*]] = vector.extract %[[VA]][0]
// CHECK: memref.store %[[A0]], %[[AS]][%[[OTHER]], %{{.*}}, %{{.*}}]
// CHECK-COUNT-3: memref.store %{{.*}}, %[[AS]][%[[OTHER]]
// CHECK: vector.store %[[VB]], %[[BS]][%[[OTHER]], %{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// Each group of 4 adjacent columns is finished and stored as one vector.
// CHECK: %[[GROUP:.*]] = vector.from_elements %[[SUMS]]#0, %[[SUMS]]#1, %[[SUMS]]#2, %[[SUMS]]#3 : vector<4xf32>
// CHECK: %[[ROW:.*]] = arith.addi %[[M0]], %[[ROWS]] : index
// CHECK: %[[COL:.*]] = arith.addi %[[N0]], %[[COLS]] : index
// CHECK: %[[INITS:.*]] = vector.broadcast %[[INIT]] : f32 to vector<4xf32>
// CHECK: %[[OUT:.*]] = arith.addf %[[INITS]], %[[GROUP]] : vector<4xf32>
// CHECK: vector.store %[[OUT]], %[[C]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<256x128xf32>, vector<4xf32>
// CHECK-NOT: memref.store %{{.*}}, %[[C]]
// CHECK-NOT: arith.cmpi
// CHECK: gpu.terminator
// Two blocks resident: at most 128 registers a thread.
// CHECK-NEXT: } {ms.min_blocks_per_sm = 2 : i32}
// CHECK-NOT: linalg.matmul
// On tensor cores (bf16): 64 x 64 tiles, A's [row][k] in bf16 (32 of K,
// +8), B's [k][column] (its rows are along N; 64 columns, +8). B, which 4
// tiles of rows read, is rounded into a bf16 buffer by a generic first and
// copied by cp.async; A, which 2 tiles of columns read, is rounded as
// staged, 4 at a time, stored as vectors of 4 halves;
// each warp's 32 x 16 piece is 2 x 2 fragments (16 sums a lane); each
// fragment of A read by one ldmatrix of four 8 x 8 matrices, both of B's
// by one ldmatrix.trans; 2 steps of 16 of K, 4 mma.sync each; the fill
// folded in.
// BF16-LABEL: func.func @matmul(
// BF16-SAME: %[[A:[^:]*]]: memref<256x256xf32>, %[[B:[^:]*]]: memref<256x128xf32>
// BF16-DAG: %[[INIT:.*]] = arith.constant 2.500000e+00 : f32
// BF16: %[[BH:.*]] = memref.alloc() : memref<256x128xbf16>
// BF16: linalg.generic {{.*}} ins(%[[B]] : memref<256x128xf32>) outs(%[[BH]] : memref<256x128xbf16>)
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: gpu.launch
// BF16-SAME: workgroup(%[[AS:[^ ]*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<2x32x72xbf16, #gpu.address_space<workgroup>>)
// BF16: nvgpu.device_async_copy %[[BH]][{{.*}}], %[[BS]][%[[Z:[^,]*]], {{.*}}], 8 {bypassL1}
// BF16: nvvm.cp.async.commit.group
// BF16: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// BF16-COUNT-3: arith.truncf %{{.*}} : f32 to bf16
// BF16: %[[V:.*]] = vector.from_elements %[[R]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xbf16>
// BF16: vector.store %[[V]], %[[AS]][%[[Z]], %{{.*}}, %{{.*}}] {alignment = 8 : i64}
// BF16: nvvm.cp.async.wait.group 0
// BF16-NEXT: gpu.barrier
// BF16: %[[SUMS:.*]]:16 = scf.for
// BF16: %[[CUR:.*]] = arith.remui
// BF16: %[[OTHER:.*]] = arith.subi %{{.*}}, %[[CUR]] : index
// BF16: nvgpu.device_async_copy %[[BH]][{{.*}}], %[[BS]][%[[OTHER]], {{.*}}]
// BF16-NOT: arith.truncf
// BF16: %[[A:.*]] = nvgpu.ldmatrix %[[AS]][%[[CUR]], {{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// BF16: %[[PAIR:.*]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// BF16: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// BF16: vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// BF16: nvgpu.ldmatrix %[[AS]]
// BF16: nvgpu.ldmatrix %[[BS]][%[[CUR]], {{.*}}] {numTiles = 4 : i32, transpose = true} : memref<2x32x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// BF16-NOT: nvgpu.ldmatrix
// BF16-COUNT-4: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// BF16-COUNT-4: nvvm.mma.sync
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: vector.store %{{.*}}, %[[AS]][%[[OTHER]], %{{.*}}, %{{.*}}]
// BF16: nvvm.cp.async.wait.group 0
// BF16-NEXT: gpu.barrier
// BF16-NEXT: scf.yield
// A lane's pairs of adjacent columns are finished as vectors.
// BF16: %[[PAIR:.*]] = vector.from_elements %[[SUMS]]#0, %[[SUMS]]#1 : vector<2xf32>
// BF16: %[[INITS:.*]] = vector.broadcast %[[INIT]] : f32 to vector<2xf32>
// BF16: arith.addf %[[INITS]], %[[PAIR]] : vector<2xf32>
// BF16: vector.store {{.*}} {alignment = 8 : i64} : memref<256x128xf32>, vector<2xf32>
// BF16-NOT: nvvm.mma.sync
// Tensor-core launches leave their registers to ptxas.
// BF16-NOT: ms.min_blocks_per_sm
// BF16: memref.dealloc %[[BH]]
// BF16-NEXT: return
// The same with f16 pairs, passed as vectors of two halves.
// F16-LABEL: func.func @matmul(
// F16: workgroup(%[[AS:[^ ]*]] : memref<2x64x40xf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x32x72xf16, #gpu.address_space<workgroup>>)
// F16: arith.truncf %{{.*}} : f32 to f16
// F16: nvgpu.ldmatrix %[[AS]]{{.*}} -> vector<4x2xf16>
// F16-COUNT-8: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// With tf32 the operands are staged as the bits of their TF32 rounding (to
// nearest, ties away: 2^12 added, 13 bits cleared; infinities and NaNs
// kept), 16 words of K a step (64 bytes, as halves), rows padded by 4
// words; the fragments read by ldmatrix too (an 8 x 8 matrix of halves is
// 8 x 4 words); m16n8k8, 2 steps of 8 of K a stage.
// TF32-LABEL: func.func @matmul(
// TF32: workgroup(%[[AS:[^ ]*]] : memref<2x64x20xi32, #gpu.address_space<workgroup>>, %{{.*}} : memref<2x64x20xi32, #gpu.address_space<workgroup>>)
// TF32: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// TF32: %[[UP:.*]] = arith.addi %[[BITS]], %c4096_i32{{.*}} : i32
// TF32: %[[CUT:.*]] = arith.andi %[[UP]], %c-8192_i32{{.*}} : i32
// TF32: %[[EXP:.*]] = arith.andi %[[BITS]], %c2139095040_i32{{.*}} : i32
// TF32: %[[SPECIAL:.*]] = arith.cmpi eq, %[[EXP]], %c2139095040_i32{{.*}} : i32
// TF32: %[[R:.*]] = arith.select %[[SPECIAL]], %[[BITS]], %[[CUT]] : i32
// TF32: %[[G:.*]] = vector.from_elements %[[R]], %{{.*}}, %{{.*}}, %{{.*}} : vector<4xi32>
// TF32: vector.store %[[G]], %[[AS]]{{.*}} {alignment = 16 : i64}
// TF32: gpu.barrier
// TF32: scf.for
// TF32: %[[M:.*]] = nvgpu.ldmatrix %[[AS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<2x64x20xi32, #gpu.address_space<workgroup>> -> vector<4x1xi32>
// TF32: %[[W:.*]] = vector.extract %[[M]][0] : vector<1xi32> from vector<4x1xi32>
// TF32: vector.extract %[[W]][0] : i32 from vector<1xi32>
// TF32-NOT: memref.load %[[AS]]
// TF32-COUNT-8: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// TF32-NOT: nvvm.mma.sync
// TF32: gpu.terminator
func.func @matmul(%a: memref<256x256xf32>, %b: memref<256x128xf32>, %c: memref<256x128xf32>) {
  %cst = arith.constant 2.5 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<256x128xf32>)
  linalg.matmul ins(%a, %b : memref<256x256xf32>, memref<256x128xf32>) outs(%c : memref<256x128xf32>)
  return
}

// -----

// One tile (64 x 64) and a long sum (K = 1000, 63 steps of 16): K is split
// into 3 parts of 21 steps (336 terms; the last part's last step has 8
// terms), a block each, which store their partial sums in a scratch
// buffer ([part][batch][row][column]); a part runs from 336 p to
// min(336 (p + 1), 1000), its last step at min(336 p + 320, 992). A
// second launch, a thread per 4 adjacent outputs, adds the parts up in
// order and then the fill's value.
// CHECK-LABEL: func.func @split_k(
// CHECK-SAME: %{{.*}}: memref<64x1000xf32>, %{{.*}}: memref<1000x64xf32>, %[[C:.*]]: memref<64x64xf32>
// CHECK: %[[P:.*]] = memref.alloc() : memref<3x1x64x64xf32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C3]],
// Block: column tile, row tile, batch index, then part.
// CHECK: arith.remui %[[BX]], %{{.*}} : index
// CHECK: %[[R:.*]] = arith.divui %[[BX]], %{{.*}} : index
// CHECK: arith.remui %[[R]], %{{.*}} : index
// CHECK: %[[G:.*]] = arith.divui %[[R]], %{{.*}} : index
// CHECK: %[[PART:.*]] = arith.divui %[[G]], %{{.*}} : index
// CHECK: %[[C336:.*]] = arith.constant 336 : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[PART]], %[[C336]] : index
// CHECK: %[[C336B:.*]] = arith.constant 336 : index
// CHECK: %[[UP:.*]] = arith.addi %[[FIRST]], %[[C336B]] : index
// CHECK: %[[K:.*]] = arith.constant 1000 : index
// CHECK: %[[END:.*]] = arith.minui %[[UP]], %[[K]] : index
// CHECK: %[[C320:.*]] = arith.constant 320 : index
// CHECK: %[[LASTUP:.*]] = arith.addi %[[FIRST]], %[[C320]] : index
// CHECK: %[[C992:.*]] = arith.constant 992 : index
// CHECK: %[[LAST:.*]] = arith.minui %[[LASTUP]], %[[C992]] : index
// CHECK: gpu.barrier
// CHECK: %[[SUMS:.*]]:16 = scf.for %[[K0:.*]] = %[[FIRST]] to %[[END]] step %{{.*}} iter_args(
// CHECK: %[[REL:.*]] = arith.subi %[[K0]], %[[FIRST]] : index
// CHECK: arith.divui %[[REL]], %{{.*}} : index
// CHECK: arith.minui %{{.*}}, %[[LAST]] : index
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: %[[GROUP:.*]] = vector.from_elements %[[SUMS]]#0, %[[SUMS]]#1, %[[SUMS]]#2, %[[SUMS]]#3 : vector<4xf32>
// CHECK: vector.store %[[GROUP]], %[[P]][%[[PART]], %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<3x1x64x64xf32>, vector<4xf32>
// CHECK-NOT: store %{{.*}}, %[[C]]
// CHECK: gpu.terminator
// The combining launch: a thread per 4 adjacent outputs (1,024: 4 blocks).
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: gpu.launch blocks(%[[CB:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C4]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%[[CT:[^,]*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[ID0:.*]] = arith.muli %[[CB]], %{{.*}} : index
// CHECK: %[[ID:.*]] = arith.addi %[[ID0]], %[[CT]] : index
// CHECK: %[[GCOL:.*]] = arith.remui %[[ID]], %c16{{.*}} : index
// CHECK: %[[COL:.*]] = arith.muli %[[GCOL]], %c4{{.*}} : index
// CHECK: %[[REST:.*]] = arith.divui %[[ID]], %c16{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.remui %[[REST]], %{{.*}} : index
// CHECK: %[[B:.*]] = arith.divui %[[REST]], %{{.*}} : index
// CHECK: %[[P0:.*]] = vector.load %[[P]][%{{.*}}, %[[B]], %[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK: %[[P1:.*]] = vector.load %[[P]][%{{.*}}, %[[B]], %[[ROW]], %[[COL]]]
// CHECK: %[[S1:.*]] = arith.addf %[[P0]], %[[P1]] : vector<4xf32>
// CHECK: %[[P2:.*]] = vector.load %[[P]][%{{.*}}, %[[B]], %[[ROW]], %[[COL]]]
// CHECK: %[[S2:.*]] = arith.addf %[[S1]], %[[P2]] : vector<4xf32>
// CHECK: %[[OUT:.*]] = arith.addf %{{.*}}, %[[S2]] : vector<4xf32>
// CHECK: vector.store %[[OUT]], %[[C]][%[[ROW]], %[[COL]]] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK: gpu.terminator
// CHECK-NOT: linalg.matmul
// On tensor cores too: 32 steps of 32 halves in parts of 11, 11 and 10.
// The product's threads store pairs of columns (an mma's fragment); the
// combining launch still takes 4 adjacent outputs a thread (4 blocks).
// BF16-LABEL: func.func @split_k(
// BF16: %[[P:.*]] = memref.alloc() : memref<3x1x64x64xf32>
// BF16: nvvm.mma.sync
// BF16: vector.store %{{.*}}, %[[P]]{{.*}} {alignment = 8 : i64} : memref<3x1x64x64xf32>, vector<2xf32>
// BF16: %[[C4:.*]] = arith.constant 4 : index
// BF16: gpu.launch blocks(%{{.*}}) in (%{{.*}} = %[[C4]],
// BF16-NOT: nvvm.mma.sync
// BF16: vector.load %[[P]]{{.*}} {alignment = 16 : i64} : memref<3x1x64x64xf32>, vector<4xf32>
// BF16: vector.store %{{.*}} {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// BF16: gpu.terminator
func.func @split_k(%a: memref<64x1000xf32>, %b: memref<1000x64xf32>, %c: memref<64x64xf32>) {
  %cst = arith.constant 2.5 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x1000xf32>, memref<1000x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// Enough 128 x 128 tiles (16 x 32 = 512 blocks): 8 steps of K by 128 (+4),
// 8 x 8 sums a thread: rows 4 (tx / 16) + [0, 4) and 64 more, columns the
// same from 4 (tx % 16), each group of 4 a vector load a step of K. Without
// a fill the sums are added to the output.
// CHECK-LABEL: func.func @large(
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<2x8x132xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<2x8x132xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK: %[[COLS:.*]] = arith.muli %{{.*}}, %c4{{.*}} : index
// CHECK: %[[SUMS:.*]]:64 = scf.for
// CHECK: vector.load %[[AS]][%{{.*}}, %{{.*}}, %[[ROWS]]] {alignment = 16 : i64}
// CHECK: %[[ROWS64:.*]] = arith.addi %[[ROWS]], %c64{{.*}} : index
// CHECK: vector.load %[[AS]][%{{.*}}, %{{.*}}, %[[ROWS64]]] {alignment = 16 : i64}
// CHECK: vector.load %[[BS]][%{{.*}}, %{{.*}}, %[[COLS]]] {alignment = 16 : i64}
// CHECK: %[[COLS64:.*]] = arith.addi %[[COLS]], %c64{{.*}} : index
// CHECK: vector.load %[[BS]][%{{.*}}, %{{.*}}, %[[COLS64]]] {alignment = 16 : i64}
// CHECK: %[[GROUP:.*]] = vector.from_elements %[[SUMS]]#0, %[[SUMS]]#1, %[[SUMS]]#2, %[[SUMS]]#3 : vector<4xf32>
// CHECK: %[[OLD:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<2048x4096xf32>, vector<4xf32>
// CHECK: arith.addf %[[OLD]], %[[GROUP]] : vector<4xf32>
// Tensor cores: 128 x 128 tiles, a warp's 64 x 32 piece as 4 x 4 fragments
// (64 sums a lane), 16 mma.sync per step of 16 of K. A and B, which 32 and
// 16 tiles read, are rounded into bf16 buffers first; both then go by
// cp.async, in four stages of 18,944 bytes: 75,776 bytes of dynamic shared
// memory, A's tile at its start and B's after it.
// BF16-LABEL: func.func @large(
// BF16: %[[AH:.*]] = memref.alloc() : memref<2048x64xbf16>
// BF16: linalg.generic
// BF16: %[[BH:.*]] = memref.alloc() : memref<64x4096xbf16>
// BF16: linalg.generic
// BF16: %[[BYTES:.*]] = arith.constant 75776 : i32
// BF16: gpu.launch {{.*}} dynamic_shared_memory_size %[[BYTES]]
// BF16-NOT: workgroup
// BF16: %[[MEM:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// BF16: %[[AS:.*]] = memref.view %[[MEM]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x40xbf16, #gpu.address_space<workgroup>>
// BF16: %[[BS:.*]] = memref.view %[[MEM]][%c40960{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x32x136xbf16, #gpu.address_space<workgroup>>
// BF16: nvgpu.device_async_copy %[[AH]][{{.*}}], %[[AS]]
// BF16: nvgpu.device_async_copy %[[BH]][{{.*}}], %[[BS]]
// BF16: %[[SUMS:.*]]:64 = scf.for
// BF16-COUNT-32: nvvm.mma.sync
// BF16-NOT: nvvm.mma.sync
// BF16: %[[PAIR:.*]] = vector.from_elements %[[SUMS]]#0, %[[SUMS]]#1 : vector<2xf32>
// BF16: %[[OLD:.*]] = vector.load %{{.*}} {alignment = 8 : i64} : memref<2048x4096xf32>, vector<2xf32>
// BF16: arith.addf %[[OLD]], %[[PAIR]] : vector<2xf32>
func.func @large(%a: memref<2048x64xf32>, %b: memref<64x4096xf32>, %c: memref<2048x4096xf32>) {
  linalg.matmul ins(%a, %b : memref<2048x64xf32>, memref<64x4096xf32>) outs(%c : memref<2048x4096xf32>)
  return
}

// -----

// Three 50x37 matrices times one 37x70 (a linear layer as a generic): the
// batch and row loops index A but not B, so they are the product's rows,
// linearized (150 rows: 3 x 2 = 6 blocks). Rows, columns and the last step
// of K overrun the tiles and are checked: outside elements read as zero,
// outside outputs are not written.
// CHECK-LABEL: func.func @broadcast_batch(
// CHECK-SAME: %[[A:.*]]: memref<3x50x37xf32>, %[[B:.*]]: memref<37x70xf32>, %[[C:.*]]: memref<3x50x70xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c6
// CHECK: scf.for %{{.*}} = %{{.*}} to %c37{{[_0-9]*}} step %c16
// The next step, from K at most 32 (the last step's start).
// CHECK: %[[NEXT:.*]] = arith.minui %{{.*}}, %c32
// CHECK: %[[ROW:.*]] = arith.addi
// CHECK: %[[R:.*]] = arith.remui %[[ROW]], %c50
// CHECK: %[[BATCH:.*]] = arith.divui %[[ROW]], %c50
// CHECK: %[[K:.*]] = arith.addi %[[NEXT]]
// CHECK: %[[IN_M:.*]] = arith.cmpi ult, %[[ROW]], %c150
// CHECK: %[[IN_K:.*]] = arith.cmpi ult, %[[K]], %c37
// CHECK: %[[IN:.*]] = arith.andi %[[IN_M]], %[[IN_K]]
// CHECK: scf.if %[[IN]] -> (f32) {
// CHECK: memref.load %[[A]][%[[BATCH]], %[[R]], %[[K]]] : memref<3x50x37xf32>
// CHECK: } else {
// CHECK: scf.yield %cst
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: scf.if %[[OK]] {
// 70 columns: a thread's groups of 4 are finished as pairs.
// CHECK: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<3x50x70xf32>, vector<2xf32>
func.func @broadcast_batch(%a: memref<3x50x37xf32>, %b: memref<37x70xf32>, %c: memref<3x50x70xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<3x50x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<3x50x37xf32>, memref<37x70xf32>) outs(%c : memref<3x50x70xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A batched product: the batch loop indexes both operands, so each batch
// index has its blocks (batch outermost: 5 x 2 x 1 = 10).
// CHECK-LABEL: func.func @batch(
// CHECK-SAME: %[[A:.*]]: memref<5x128x32xf32>, %[[B:.*]]: memref<5x32x64xf32>
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c10
// CHECK: %[[R:.*]] = arith.divui %[[BX]], %c1
// CHECK: %[[G:.*]] = arith.divui %[[R]], %c2
// CHECK: vector.load %[[A]][%[[G]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<5x128x32xf32>, vector<4xf32>
// CHECK: vector.load %[[B]][%[[G]], %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<5x32x64xf32>, vector<4xf32>
func.func @batch(%a: memref<5x128x32xf32>, %b: memref<5x32x64xf32>, %c: memref<5x128x64xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<5x128x32xf32>, memref<5x32x64xf32>) outs(%c : memref<5x128x64xf32>)
  return
}

// -----

// A product with B transposed (K innermost in both, as in attention's
// query times keys): B's elements are numbered along K too, 4 at a time
// (column e / 4, terms 4 (e % 4)), each group stored down a column of B's
// [k][column] tile.
// CHECK-LABEL: func.func @transposed_b(
// CHECK-SAME: %{{.*}}: memref<64x32xf32>, %[[B:.*]]: memref<64x32xf32>
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:[^ ]*]] : memref<2x16x68xf32, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<2x16x68xf32
// CHECK: scf.for
// CHECK: vector.load %{{.*}} : memref<64x32xf32>, vector<4xf32>
// CHECK: %[[COL:.*]] = arith.divui %[[E:[^,]*]], %[[FOUR:[^ ]*]] : index
// CHECK: %[[GROUP:.*]] = arith.remui %[[E]], %[[FOUR]]
// CHECK: %[[K:.*]] = arith.muli %[[GROUP]], %c4
// CHECK: %[[GN:.*]] = arith.addi %{{.*}}, %[[COL]]
// CHECK: %[[GK:.*]] = arith.addi %{{.*}}, %[[K]]
// CHECK: %[[VB:.*]] = vector.load %[[B]][%[[GN]], %[[GK]]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AS]]
// CHECK: %[[COL2:.*]] = arith.divui %[[E2:[^,]*]], %[[FOUR2:[^ ]*]] : index
// CHECK: %[[GROUP2:.*]] = arith.remui %[[E2]], %[[FOUR2]]
// CHECK: %[[K2:.*]] = arith.muli %[[GROUP2]], %c4
// CHECK: %[[B1:.*]] = vector.extract %[[VB]][1]
// CHECK: memref.store %{{.*}}, %[[BS]][%{{.*}}, %[[K2]], %[[COL2]]]
// CHECK: %[[K3:.*]] = arith.addi %[[K2]], %c1
// CHECK: memref.store %[[B1]], %[[BS]][%{{.*}}, %[[K3]], %[[COL2]]]
// On tensor cores both tiles are [row][k], B's groups stored along K as
// vectors, its fragments read by ldmatrix without transposing.
// BF16-LABEL: func.func @transposed_b(
// BF16: workgroup(%[[AS:[^ ]*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>)
// BF16: vector.store %{{.*}}, %[[BS]]{{.*}} {alignment = 8 : i64} : memref<2x64x40xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// BF16: scf.for
// BF16: nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// BF16-NOT: transpose = true
// BF16: gpu.terminator
func.func @transposed_b(%a: memref<64x32xf32>, %b: memref<64x32xf32>, %c: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf32>, memref<64x32xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Left alone: a matrix-vector product (M = 1), f64, a body that is not a
// multiply-add, too few terms (K = 4), the output also an operand; a fill of
// another buffer stays.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: gpu.launch
// CHECK: linalg.fill
// CHECK: linalg.matmul {{.*}} memref<1x64xf32>
// CHECK: linalg.matmul {{.*}} memref<64x64xf64>
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: linalg.matmul {{.*}} memref<64x4xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[SQ:.*]] : memref<64x64xf32>, memref<64x64xf32>) outs(%[[SQ]] : memref<64x64xf32>)
// CHECK-NOT: gpu.launch
// With bf16 the f32 products left alone multiply rounded operands (named
// ops generalized); f64 and the multiply-subtract stay as they are.
// TF32-LABEL: func.func @kept(
// TF32: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// TF32: %[[XB:.*]] = arith.bitcast %[[X]] : f32 to i32
// TF32: %[[XR:.*]] = arith.select %{{.*}}, %[[XB]], %{{.*}} : i32
// TF32: %[[XW:.*]] = arith.bitcast %[[XR]] : i32 to f32
// TF32: %[[YW:.*]] = arith.bitcast %{{.*}} : i32 to f32
// TF32: arith.mulf %[[XW]], %[[YW]] : f32
// BF16-LABEL: func.func @kept(
// BF16-NOT: gpu.launch
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<1x64xf32>, memref<64x64xf32>)
// BF16-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// BF16-NEXT: %[[XB:.*]] = arith.truncf %[[X]] : f32 to bf16
// BF16-NEXT: %[[XW:.*]] = arith.extf %[[XB]] : bf16 to f32
// BF16-NEXT: %[[YB:.*]] = arith.truncf %[[Y]] : f32 to bf16
// BF16-NEXT: %[[YW:.*]] = arith.extf %[[YB]] : bf16 to f32
// BF16-NEXT: %[[P:.*]] = arith.mulf %[[XW]], %[[YW]] : f32
// BF16-NEXT: arith.addf %[[ACC]], %[[P]] : f32
// BF16: linalg.matmul {{.*}} memref<64x64xf64>
// BF16: linalg.generic
// BF16-NOT: arith.truncf
// BF16: arith.subf
// BF16-COUNT-2: arith.truncf %{{.*}} : f32 to bf16
// BF16: arith.mulf
// BF16-COUNT-2: arith.truncf %{{.*}} : f32 to bf16
// BF16: arith.mulf
// BF16: return
func.func @kept(%v: memref<1x64xf32>, %w: memref<64x64xf32>, %o: memref<1x64xf32>,
                %d: memref<64x64xf64>, %e: memref<64x64xf64>,
                %a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>,
                %k: memref<64x4xf32>, %l: memref<4x64xf32>, %sq: memref<64x64xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%v, %w : memref<1x64xf32>, memref<64x64xf32>) outs(%o : memref<1x64xf32>)
  linalg.matmul ins(%d, %d : memref<64x64xf64>, memref<64x64xf64>) outs(%e : memref<64x64xf64>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.subf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%k, %l : memref<64x4xf32>, memref<4x64xf32>) outs(%sq : memref<64x64xf32>)
  linalg.matmul ins(%w, %sq : memref<64x64xf32>, memref<64x64xf32>) outs(%sq : memref<64x64xf32>)
  return
}

// -----

// With bf16, a sum of squares (a norm's) is not a product: its operands stay
// f32.
// BF16-LABEL: func.func @sum_of_squares(
// BF16-NOT: arith.truncf
// BF16: return
func.func @sum_of_squares(%x: memref<8x64xf32>, %s: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %x : memref<8x64xf32>, memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left alone: loops the launch would not set. A second reduction only A
// reads; a parallel loop only A reads; K in the output; an empty batch.
// CHECK-LABEL: func.func @other_loops(
// CHECK-NOT: gpu.launch
// CHECK-COUNT-3: linalg.generic
// CHECK: linalg.batch_matmul
// CHECK-NOT: gpu.launch
func.func @other_loops(%a3: memref<32x16x4xf32>, %b: memref<16x32xf32>, %c: memref<32x32xf32>,
                       %k3: memref<16x32x32xf32>, %ae: memref<0x32x16xf32>, %be: memref<0x16x32xf32>,
                       %ce: memref<0x32x32xf32>, %a: memref<32x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%a3, %b : memref<32x16x4xf32>, memref<16x32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%a3, %b : memref<32x16x4xf32>, memref<16x32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d2, d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<32x16xf32>, memref<16x32xf32>) outs(%k3 : memref<16x32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.batch_matmul ins(%ae, %be : memref<0x32x16xf32>, memref<0x16x32xf32>) outs(%ce : memref<0x32x32xf32>)
  return
}

// -----

// The elementwise ops after the product run in its launch on each output
// before it is stored: a bias added in place, then GELU into another
// buffer (constants from outside the body copied in). Each buffer is stored
// once, with its last value. The transposed read stops the epilogue: it
// stays a linalg op.
// CHECK-LABEL: func.func @epilogue(
// CHECK-SAME: %{{.*}}: memref<64x32xf32>, %{{.*}}: memref<32x64xf32>, %[[BIAS:.*]]: memref<64xf32>, %[[C:.*]]: memref<64x64xf32>, %[[D:.*]]: memref<64x64xf32>, %[[T:.*]]: memref<64x64xf32>)
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: scf.yield
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: %[[B:.*]] = vector.load %[[BIAS]][%{{.*}}] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
// CHECK: %[[BIASED:.*]] = arith.addf %[[SUM]], %[[B]] : vector<4xf32>
// CHECK: %[[K:.*]] = vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[BIASED]], %[[K]] : vector<4xf32>
// CHECK: math.erf %[[SCALED]] : vector<4xf32>
// CHECK: arith.mulf %[[BIASED]]
// CHECK: %[[G:.*]] = arith.mulf
// CHECK-NOT: memref.load %[[C]]
// CHECK: vector.store %[[BIASED]], %[[C]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK: vector.store %[[G]], %[[D]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xf32>, vector<4xf32>
// CHECK-NOT: memref.store
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[C]] : memref<64x64xf32>) outs(%[[T]] : memref<64x64xf32>)
// CHECK-NOT: linalg.generic
func.func @epilogue(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %bias: memref<64xf32>,
                    %c: memref<64x64xf32>, %d: memref<64x64xf32>, %t: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<64x64xf32>, memref<64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%d : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.mulf %x, %rsqrt2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %x, %half : f32
    %4 = arith.mulf %3, %2 : f32
    linalg.yield %4 : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%t : memref<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// -----

// A product into a buffer of the kernel's own that only its epilogue reads
// is never stored: the epilogue's result alone is. An op writing a buffer
// an earlier op of the epilogue read is not in the epilogue.
// CHECK-LABEL: func.func @local(
// CHECK-SAME: %[[A:.*]]: memref<64x32xf32>, %{{.*}}: memref<32x64xf32>, %[[R:.*]]: memref<64x64xf32>, %[[O:.*]]: memref<64x64xf32>
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<64x64xf32>
// CHECK: gpu.launch
// CHECK: %[[RES:.*]] = vector.load %[[R]]
// CHECK: %[[OUT:.*]] = arith.addf %{{.*}}, %[[RES]] : vector<4xf32>
// CHECK-NOT: store {{.*}}, %[[TMP]]
// CHECK: vector.store %[[OUT]], %[[O]]
// CHECK-NOT: store {{.*}}, %[[TMP]]
// CHECK: gpu.terminator
// CHECK: linalg.generic {{.*}} outs(%[[R]] : memref<64x64xf32>)
func.func @local(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %r: memref<64x64xf32>, %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %tmp = memref.alloc() : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%tmp : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%tmp : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%tmp, %r : memref<64x64xf32>, memref<64x64xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%o : memref<64x64xf32>) outs(%r : memref<64x64xf32>) {
  ^bb0(%x: f32, %out: f32):
    linalg.yield %x : f32
  }
  memref.dealloc %tmp : memref<64x64xf32>
  return
}

// -----

// An epilogue reading its loops' indices (a causal mask) reads the
// output's: the column's as the group's indices (first + [0, 4)), a vector.
// CHECK-LABEL: func.func @epilogue_indices(
// CHECK: gpu.launch
// CHECK-NOT: linalg.index
// CHECK: scf.yield
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: %[[STEPS:.*]] = arith.constant dense<[0, 1, 2, 3]> : vector<4xindex>
// CHECK: %[[FIRST:.*]] = vector.broadcast %[[COL]] : index to vector<4xindex>
// CHECK: %[[COLS:.*]] = arith.addi %[[FIRST]], %[[STEPS]] : vector<4xindex>
// CHECK: %[[ROWS:.*]] = vector.broadcast %[[ROW]] : index to vector<4xindex>
// CHECK: %[[KEEP:.*]] = arith.cmpi uge, %[[ROWS]], %[[COLS]] : vector<4xindex>
// CHECK: %[[MASKED:.*]] = arith.select %[[KEEP]], %[[SUM]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK: vector.store %[[MASKED]], %{{.*}}[%[[ROW]], %[[COL]]] {alignment = 16 : i64}
// CHECK: gpu.terminator
// On tensor cores, a fragment's pair of columns.
// BF16-LABEL: func.func @epilogue_indices(
// BF16: %[[STEPS:.*]] = arith.constant dense<[0, 1]> : vector<2xindex>
// BF16: %[[FIRST:.*]] = vector.broadcast %{{.*}} : index to vector<2xindex>
// BF16: %[[COLS:.*]] = arith.addi %[[FIRST]], %[[STEPS]] : vector<2xindex>
// BF16: %[[KEEP:.*]] = arith.cmpi uge, %{{.*}}, %[[COLS]] : vector<2xindex>
// BF16: %[[MASKED:.*]] = arith.select %[[KEEP]], %{{.*}}, %{{.*}} : vector<2xi1>, vector<2xf32>
// BF16: vector.store %[[MASKED]], %{{.*}} {alignment = 8 : i64} : memref<64x64xf32>, vector<2xf32>
// CHECK-NOT: linalg.generic
func.func @epilogue_indices(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%c : memref<64x64xf32>) {
  ^bb0(%x: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %keep = arith.cmpi uge, %i, %j : index
    %m = arith.select %keep, %x, %ninf : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// An epilogue rounding to bf16 stores 4 halves at once (8 bytes). One
// reading a buffer down its columns (transposed) finishes an output at a
// time.
// CHECK-LABEL: func.func @epilogue_vectors(
// CHECK-SAME: %[[H:[^:]*]]: memref<64x64xbf16>
// CHECK: gpu.launch
// CHECK: scf.yield
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : vector<4xf32> to vector<4xbf16>
// CHECK: vector.store %[[R]], %[[H]][%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<64x64xbf16>, vector<4xbf16>
// CHECK: gpu.terminator
// CHECK-LABEL: func.func @epilogue_transposed(
// CHECK-SAME: %[[T:[^:]*]]: memref<64x64xf32>, %[[O:[^:]*]]: memref<64x64xf32>)
// CHECK: gpu.launch
// CHECK: scf.yield
// CHECK-NOT: vector.from_elements
// CHECK: %[[X:.*]] = memref.load %[[T]]
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %[[X]] : f32
// CHECK: memref.store %[[S]], %[[O]]
// CHECK-NOT: vector.store
// CHECK: gpu.terminator
// So does one whose buffer has the column first and a broadcast 0 last.
// CHECK-LABEL: func.func @epilogue_column_first(
// CHECK-SAME: %[[U:[^:]*]]: memref<64x1xf32>
// CHECK: gpu.launch
// CHECK: scf.yield
// CHECK-NOT: vector.from_elements
// CHECK: memref.load %[[U]]
// CHECK-NOT: vector.store
// CHECK: gpu.terminator
func.func @epilogue_vectors(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>,
                            %h: memref<64x64xbf16>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<64x64xf32>) outs(%h : memref<64x64xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  }
  return
}
func.func @epilogue_transposed(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>,
                               %t: memref<64x64xf32>, %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %t : memref<64x64xf32>, memref<64x64xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
func.func @epilogue_column_first(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>,
                                 %u: memref<64x1xf32>, %o: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %u : memref<64x64xf32>, memref<64x1xf32>) outs(%o : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not in the epilogue: an op reading the buffer it writes through another
// view, or yielding a value from outside its body that is not a constant.
// CHECK-LABEL: func.func @epilogue_hazards(
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
func.func @epilogue_hazards(%a: memref<64x32xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>,
                            %d: memref<64x64xf32>, %s: memref<f32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  %dt = memref.transpose %d (i, j) -> (j, i) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%c, %dt : memref<64x64xf32>, memref<64x64xf32, strided<[1, 64]>>) outs(%d : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %r = arith.addf %x, %y : f32
    linalg.yield %r : f32
  }
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  %v = memref.load %s[] : memref<f32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%d : memref<64x64xf32>) {
  ^bb0(%o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// Not in the epilogue: an op writing what the product reads, which other
// blocks may not have read yet.
// CHECK-LABEL: func.func @writes_an_operand(
// CHECK-SAME: %[[A:[^:]*]]: memref<64x64xf32>
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic {{.*}} outs(%[[A]] : memref<64x64xf32>)
func.func @writes_an_operand(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      outs(%a : memref<64x64xf32>) {
  ^bb0(%out: f32):
    %z = arith.constant 0.0 : f32
    linalg.yield %z : f32
  }
  return
}

// -----

// An odd N: B is read and stored an element at a time (4 a thread a
// step), A 4 at a time, both before the loop and in it. With bf16, B's
// [k][column] tile takes its elements one by one too.
// CHECK-LABEL: func.func @odd_columns(
// CHECK-SAME: %[[A:.*]]: memref<64x32xf32>, %[[B:.*]]: memref<32x33xf32>
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:[^ ]*]] : memref<2x16x68xf32, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<2x16x68xf32
// CHECK: vector.load %[[A]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-4: memref.load %[[B]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: vector.load %[[A]]
// CHECK-COUNT-4: memref.load %[[B]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// BF16-LABEL: func.func @odd_columns(
// BF16: memref<2x32x72xbf16, #gpu.address_space<workgroup>>
// BF16-COUNT-8: memref.store %{{.*}} : memref<2x32x72xbf16, #gpu.address_space<workgroup>>
// BF16: gpu.barrier
func.func @odd_columns(%a: memref<64x32xf32>, %b: memref<32x33xf32>, %c: memref<64x33xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x33xf32>) outs(%c : memref<64x33xf32>)
  return
}

// -----

// Half-precision operands widened to f32 just before the product (as the
// msgraph lowering of a bf16 matmul does): the product reads the bf16
// buffers themselves and multiplies them on tensor cores without
// --precision; the widenings and their buffers go. A's elements (read
// through the widening's transpose, M innermost) go one by one through
// registers; B's rows are copied into the shared tile 8 halves (16 bytes)
// at a time by cp.async, one group a step: the first step's copies are
// waited for before the loop, and each step starts the next one's into
// the other stage before its products and waits for them at its end,
// before the barrier.
// CHECK-LABEL: func.func @widened(
// CHECK-SAME: %[[A:.*]]: memref<64x128xbf16>, %[[B:.*]]: memref<64x64xbf16>
// CHECK-NOT: memref.alloc
// CHECK-NOT: linalg.generic
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:[^ ]*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<2x32x72xbf16, #gpu.address_space<workgroup>>)
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%c0{{.*}}], 8 {bypassL1} : memref<64x64xbf16> to memref<2x32x72xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: memref.load %[[A]][{{.*}}] : memref<64x128xbf16>
// CHECK: memref.store %{{.*}}, %[[AS]]
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: scf.for
// CHECK: %[[OTHER:.*]] = arith.subi %c1{{.*}}, %{{.*}} : index
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%[[OTHER]], {{.*}}], 8 {bypassL1}
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: memref.load %[[A]]
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>
// CHECK: memref.store %{{.*}}, %[[AS]][%[[OTHER]],
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK-NOT: memref.dealloc
// CHECK: return
// With --precision f16 the bf16 operands stay widened (f32, rounded to f16
// as staged, as the precision asks): the tensor cores then multiply f16,
// not the operands' bf16.
// F16-LABEL: func.func @widened(
// F16: memref.alloc() : memref<128x64xf32>
// F16: linalg.generic
// F16: workgroup(%{{.*}} : memref<2x64x40xf16, #gpu.address_space<workgroup>>
// F16: arith.truncf %{{.*}} : f32 to f16
func.func @widened(%a: memref<64x128xbf16>, %b: memref<64x64xbf16>, %c: memref<128x64xf32>) {
  %wa = memref.alloc() : memref<128x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x128xbf16>) outs(%wa : memref<128x64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<64x64xbf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.matmul ins(%wa, %wb : memref<128x64xf32>, memref<64x64xf32>) outs(%c : memref<128x64xf32>)
  memref.dealloc %wa : memref<128x64xf32>
  memref.dealloc %wb : memref<64x64xf32>
  return
}

// -----

// Both operands copied by cp.async (f16, K innermost in A, N in B): a 64 x
// 64 tile's stage takes 9,728 bytes, so four stages fit (38,912 bytes).
// The copies of steps 0, 1 and 2 start before the loop, a group each (a
// step past the last, 96, copies no bytes: steps 1 and 2 test it); step s
// waits until at most 2 groups are in flight, waits for the block, starts
// step s + 3 into stage (s + 3) % 4 and computes on stage s % 4. The loop
// waits for every copy before it ends.
// On sm_90a the same product runs on wgmma: the tiles are [stage][w / 8]
// [k / 8] core matrices of 8 x 8 halves (A's rows of terms, B's rows of
// columns), unpadded; 8 neighbouring threads copy a core matrix's 8 rows.
// 5 stages of 8,192 bytes; the copies run 3 steps ahead (steps 0 to 2
// before the loop); each step waits until at most 2 groups are in flight,
// orders the landed copies before wgmma's reads (fence.proxy.async),
// waits for the block, starts step s + 3 into stage (s + 3) % 5 (read by
// step s - 2), and each warpgroup (64 x 32 of the
// tile) runs two m64n32k16 products (32 terms) from descriptors: the
// piece's address / 16, 8 (128 bytes between core matrices along K) at
// bit 16, 32 (512 bytes along the rows) at bit 32; B transposed (row).
// They run on until the end of the next step (wait_group 1); the last
// step's end after the loop.
// WGMMA-LABEL: func.func @pipelined(
// WGMMA: gpu.launch
// WGMMA-SAME: workgroup(%[[AS:[^ ]*]] : memref<5x8x4x8x8xf16, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<5x8x4x8x8xf16, #gpu.address_space<workgroup>>)
// WGMMA: %[[WG:.*]] = arith.divui %{{.*}}, %c128
// WGMMA: memref.extract_aligned_pointer_as_index %[[AS]]
// WGMMA: %[[ROW:.*]] = arith.remui %{{.*}}, %c8
// WGMMA: %[[REST:.*]] = arith.divui %{{.*}}, %c8
// WGMMA: %[[KC:.*]] = arith.remui %[[REST]], %c4
// WGMMA: nvgpu.device_async_copy %{{.*}}, %[[AS]][%c0{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c0{{.*}}], 8
// WGMMA: nvgpu.device_async_copy %{{.*}}, %[[BS]][%c0
// WGMMA-NEXT: nvvm.cp.async.commit.group
// WGMMA: nvgpu.device_async_copy %{{.*}}, %[[BS]][%c1
// WGMMA-NEXT: nvvm.cp.async.commit.group
// WGMMA: nvgpu.device_async_copy %{{.*}}, %[[BS]][%c2
// WGMMA-NEXT: nvvm.cp.async.commit.group
// WGMMA: scf.for
// WGMMA: nvvm.cp.async.wait.group 2
// WGMMA-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// WGMMA-NEXT: gpu.barrier
// WGMMA: %[[AHEAD:.*]] = arith.addi %{{.*}}, %c3
// WGMMA: %[[INTO:.*]] = arith.remui %[[AHEAD]], %c5
// WGMMA: nvgpu.device_async_copy %{{.*}}, %[[AS]][%[[INTO]],
// WGMMA: nvvm.wgmma.fence.aligned
// WGMMA: arith.constant 137439477760 : i64
// WGMMA: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// WGMMA: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>
// WGMMA-NEXT: nvvm.wgmma.commit.group.sync.aligned
// WGMMA-NEXT: nvvm.wgmma.wait.group.sync.aligned 1
// WGMMA-NOT: gpu.barrier
// WGMMA: scf.yield
// WGMMA: nvvm.cp.async.wait.group 0
// WGMMA-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// A lane's adjacent columns are added to the output as pairs.
// WGMMA: vector.from_elements %{{.*}}, %{{.*}} : vector<2xf32>
// WGMMA: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x64xf32>, vector<2xf32>
// WGMMA: vector.store %{{.*}} {alignment = 8 : i64} : memref<64x64xf32>, vector<2xf32>
// WGMMA-NOT: memref.store
// WGMMA-NOT: nvvm.mma.sync
// WGMMA-LABEL: func.func @kept_widened(
// With TMA (the default on wgmma), the host makes a tensor map of each
// operand, its rows swizzled in shared memory: a box of the step's 32
// terms of A's 64 rows (rows of 64 bytes), of 32 columns of B's 32 terms
// (the columns of a warpgroup's product: rows of 64 bytes), two boxes of
// B a step. The tiles are in dynamic shared memory of 1,008 bytes more
// than they take (40,960; the array is 16-byte aligned), from its first
// address that is a multiple of 1,024 (-address & 1023 on), A's [stage][1][row][32] (K-major, 64-byte swizzle: layout
// type 2 at bit 62, a stride offset of 512 bytes between groups of 8 rows,
// a leading offset of 16: -9223371899415756800), B's [stage][2][k][32]
// (MN-major, the same swizzle: the next box 2,048 bytes on (leading), 8
// terms 512 on (stride): -9223371899407433728).
// Thread 0 initializes two barriers per stage (loaded: one arrival;
// released: one per warp), then (with producer-warp=false) expects each
// step's 8,192 bytes and issues its loads once the warps released the
// stage; each step waits for its stage's loaded phase, no barrier of the
// block's, and each warp releases the stage of the step before after its
// wgmma.wait_group.
// TMA-LABEL: func.func @pipelined(
// TMA-SAME: %[[A:.*]]: memref<64x128xf16>, %[[B:.*]]: memref<128x64xf16>
// TMA: %[[ACAST:.*]] = memref.cast %[[A]] : memref<64x128xf16> to memref<*xf16>
// TMA: %[[AMAP:.*]] = nvgpu.tma.create.descriptor %[[ACAST]] box[%c64, %c32] : memref<*xf16> -> <tensor = memref<64x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b, l2promo = none, oob = zero, interleave = none>
// TMA: %[[BCAST:.*]] = memref.cast %[[B]] : memref<128x64xf16> to memref<*xf16>
// TMA: %[[BMAP:.*]] = nvgpu.tma.create.descriptor %[[BCAST]] box[%c32{{.*}}, %c32{{.*}}] : memref<*xf16> -> <tensor = memref<32x32xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b,
// TMA: gpu.launch
// TMA-SAME: dynamic_shared_memory_size %c41968_i32
// TMA: %[[SHARED:.*]] = gpu.dynamic_shared_memory
// TMA: %[[ADDRESS:.*]] = memref.extract_aligned_pointer_as_index %[[SHARED]]
// TMA: %[[NEGATED:.*]] = arith.subi %c0{{.*}}, %[[ADDRESS]]
// TMA: %[[START:.*]] = arith.andi %[[NEGATED]], %c1023
// TMA: %[[AS:.*]] = memref.view %[[SHARED]][%[[START]]][] : {{.*}} to memref<5x1x64x32xf16, #gpu.address_space<workgroup>>
// TMA: %[[BSTART:.*]] = arith.addi %[[START]], %c20480
// TMA: %[[BS:.*]] = memref.view %[[SHARED]][%[[BSTART]]][] : {{.*}} to memref<5x2x32x32xf16, #gpu.address_space<workgroup>>
// TMA: %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
// TMA: %[[FREE:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 5>
// TMA: scf.if
// TMA: nvgpu.mbarrier.init %[[BARS]][%[[S0:.*]]], %[[ONE:.*]] :
// TMA-NEXT: nvgpu.mbarrier.init %[[FREE]][%[[S0]]], %[[WARPS:.*]] :
// TMA: nvgpu.mbarrier.init %[[FREE]][%c4{{.*}}], %[[WARPS]]
// TMA-NEXT: nvvm.fence.mbarrier.init
// TMA: gpu.barrier
// TMA: scf.if
// TMA: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%[[S0:.*]]], %c8192
// TMA-NEXT: %[[BOX:.*]] = memref.subview %[[AS]][%[[S0]], 0, 0, 0] [1, 1, 64, 32] [1, 1, 1, 1]
// TMA-NEXT: nvgpu.tma.async.load %[[AMAP]][%c0{{.*}}, %{{.*}}], %[[BARS]][%[[S0]]] to %[[BOX]]
// TMA-NEXT: memref.subview %[[BS]][%[[S0]], 0, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1]
// TMA-NEXT: nvgpu.tma.async.load %[[BMAP]][%[[N0:.*]], %c0{{.*}}], %[[BARS]][%[[S0]]]
// TMA-NEXT: memref.subview %[[BS]][%[[S0]], 1, 0, 0] [1, 1, 32, 32] [1, 1, 1, 1]
// TMA: %[[N1:.*]] = arith.addi %[[N0]], %c32
// TMA-NEXT: nvgpu.tma.async.load %[[BMAP]][%[[N1]], %c0{{.*}}], %[[BARS]][%[[S0]]]
// TMA-NOT: nvgpu.tma.async.load
// TMA: scf.if
// TMA: scf.for
// TMA: %[[STEP:.*]] = arith.divui %{{.*}}, %c32
// TMA: %[[CURRENT:.*]] = arith.remui %[[STEP]], %c5
// TMA: %[[USE:.*]] = arith.divui %[[STEP]], %c5
// TMA: %[[ODD:.*]] = arith.remui %[[USE]], %c2
// TMA: %[[PARITY:.*]] = arith.cmpi ne, %[[ODD]], %c0
// TMA: nvgpu.mbarrier.try_wait.parity %[[BARS]][%[[CURRENT]]], %[[PARITY]], %c10000000
// TMA-NOT: gpu.barrier
// TMA: %[[AHEAD:.*]] = arith.addi %[[STEP]], %c3
// TMA: %[[INTO:.*]] = arith.remui %[[AHEAD]], %c5
// TMA: scf.if
// TMA: %[[AUSE:.*]] = arith.divui %[[AHEAD]], %c5
// TMA: %[[AODD:.*]] = arith.remui %[[AUSE]], %c2
// TMA: %[[PREVIOUS:.*]] = arith.cmpi eq, %[[AODD]], %c0
// TMA: nvgpu.mbarrier.try_wait.parity %[[FREE]][%[[INTO]]], %[[PREVIOUS]], %c10000000
// TMA: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%[[INTO]]], %c8192
// TMA: nvvm.wgmma.fence.aligned
// TMA: arith.constant -9223371899415756800 : i64
// TMA: arith.constant -9223371899407433728 : i64
// TMA: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// TMA: nvvm.wgmma.wait.group.sync.aligned 1
// TMA: %[[LANE:.*]] = arith.remui %{{.*}}, %c32
// TMA: %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// TMA: %[[LATER:.*]] = arith.cmpi ugt, %[[STEP]], %c0
// TMA: %[[RELEASES:.*]] = arith.andi %[[LANE0]], %[[LATER]]
// TMA: %[[DONE:.*]] = arith.subi %[[STEP]], %c1
// TMA: %[[DONESTAGE:.*]] = arith.remui %[[DONE]], %c5
// TMA: nvgpu.mbarrier.arrive.expect_tx %[[FREE]][%[[DONESTAGE]]], %c0{{.*}}, predicate = %[[RELEASES]]
// TMA-NEXT: scf.yield
// TMA-NEXT: }
// TMA-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// TMA-NOT: nvgpu.device_async_copy
// TMA-NOT: nvvm.fence.proxy
// TMA-LABEL: func.func @kept_widened(
// With a producer warp (the default), the block has a ninth warp: the
// products' 256 threads only wait for each step's loaded phase, multiply
// and release the stage; thread 256 runs every step's loads, each once
// its stage's previous use is released.
// WS-LABEL: func.func @pipelined(
// WS: gpu.launch
// WS-SAME: threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c288,
// WS-SAME: dynamic_shared_memory_size %c41968_i32
// WS: %[[BARS:.*]] = nvgpu.mbarrier.create
// WS: %[[FREE:.*]] = nvgpu.mbarrier.create
// WS: nvgpu.mbarrier.init %[[FREE]][%c4{{.*}}], %c8
// WS-NEXT: nvvm.fence.mbarrier.init
// WS-NEXT: }
// WS-NEXT: gpu.barrier
// WS: %[[COMPUTES:.*]] = arith.cmpi ult, %{{.*}}, %c256
// WS-NEXT: scf.if %[[COMPUTES]] {
// WS-NOT: nvgpu.tma.async.load
// WS: scf.for
// WS: nvgpu.mbarrier.try_wait.parity %[[BARS]]
// WS-NOT: nvgpu.mbarrier.arrive.expect_tx
// WS: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>
// WS: nvvm.wgmma.wait.group.sync.aligned 1
// WS: nvgpu.mbarrier.arrive.expect_tx %[[FREE]][%{{.*}}], %c0{{.*}}, predicate =
// WS: scf.yield
// WS-NEXT: }
// WS-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// WS: } else {
// WS: %[[PRODUCES:.*]] = arith.cmpi eq, %{{.*}}, %c256
// WS-NEXT: scf.if %[[PRODUCES]] {
// WS: scf.for %[[K:.*]] = %{{.*}} to %c128 step %c32
// WS: %[[STEP:.*]] = arith.divui %[[K]], %c32
// WS: %[[STAGE:.*]] = arith.remui %[[STEP]], %c5
// WS: %[[USE:.*]] = arith.divui %[[STEP]], %c5
// WS: %[[ODD:.*]] = arith.remui %[[USE]], %c2
// WS: %[[PREVIOUS:.*]] = arith.cmpi eq, %[[ODD]], %c0
// WS: nvgpu.mbarrier.try_wait.parity %[[FREE]][%[[STAGE]]], %[[PREVIOUS]], %c10000000
// WS: nvgpu.mbarrier.arrive.expect_tx %[[BARS]][%[[STAGE]]], %c8192
// WS: nvgpu.tma.async.load %{{.*}}[%[[K]], %{{.*}}], %[[BARS]][%[[STAGE]]]
// WS: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[K]]], %[[BARS]][%[[STAGE]]]
// WS: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[K]]], %[[BARS]][%[[STAGE]]]
// WS-NEXT: }
// WS-NEXT: }
// WS-NEXT: }
// WS-NEXT: gpu.terminator
// WS-LABEL: func.func @kept_widened(
// CHECK-LABEL: func.func @pipelined(
// CHECK-SAME: %[[A:.*]]: memref<64x128xf16>, %[[B:.*]]: memref<128x64xf16>
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[AS:[^ ]*]] : memref<4x64x40xf16, #gpu.address_space<workgroup>>, %[[BS:[^ ]*]] : memref<4x32x72xf16, #gpu.address_space<workgroup>>)
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][%c0
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%c0
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][%c1
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%c1
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: %[[LIVE2:.*]] = arith.cmpi ule, %{{.*}}, %c96
// CHECK: %[[BYTES2:.*]] = arith.select %[[LIVE2]], %c8{{.*}}, %c0
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][%c2, {{.*}}], 8, %[[BYTES2]]
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%c2
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[STEP:.*]] = arith.divui %[[K]], %c32
// CHECK: %[[CURRENT:.*]] = arith.remui %[[STEP]], %c4
// CHECK: nvvm.cp.async.wait.group 2
// CHECK-NEXT: gpu.barrier
// CHECK: %[[AHEAD:.*]] = arith.addi %[[STEP]], %c3
// CHECK: %[[INTO:.*]] = arith.remui %[[AHEAD]], %c4
// CHECK: %[[LIVE:.*]] = arith.cmpi ule, %{{.*}}, %c96
// CHECK: nvgpu.device_async_copy %[[A]][{{.*}}], %[[AS]][%[[INTO]],
// CHECK: nvgpu.device_async_copy %[[B]][{{.*}}], %[[BS]][%[[INTO]],
// CHECK-NEXT: nvvm.cp.async.commit.group
// CHECK: nvgpu.ldmatrix %[[AS]][%[[CURRENT]],
// CHECK: nvvm.mma.sync
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
func.func @pipelined(%a: memref<64x128xf16>, %b: memref<128x64xf16>, %c: memref<64x64xf32>) {
  %wa = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x128xf16>) outs(%wa : memref<64x128xf32>) {
  ^bb0(%x: f16, %o: f32):
    %e = arith.extf %x : f16 to f32
    linalg.yield %e : f32
  }
  %wb = memref.alloc() : memref<128x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<128x64xf16>) outs(%wb : memref<128x64xf32>) {
  ^bb0(%x: f16, %o: f32):
    %e = arith.extf %x : f16 to f32
    linalg.yield %e : f32
  }
  linalg.matmul ins(%wa, %wb : memref<64x128xf32>, memref<128x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// Left widened: operands of two half types (no one type to multiply in),
// and a widened buffer another op also reads.
// CHECK-LABEL: func.func @kept_widened(
// CHECK-COUNT-2: linalg.generic
// CHECK: gpu.launch
// CHECK-SAME: memref<2x16x68xf32, #gpu.address_space<workgroup>>
// CHECK: linalg.generic
// CHECK: gpu.launch
// CHECK-SAME: memref<2x16x68xf32, #gpu.address_space<workgroup>>
func.func @kept_widened(%a: memref<64x64xbf16>, %b: memref<64x64xf16>, %c: memref<64x64xf32>,
                        %d: memref<64x64xf32>, %e: memref<64x64xf32>) {
  %wa = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xbf16>) outs(%wa : memref<64x64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  %wb = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<64x64xf16>) outs(%wb : memref<64x64xf32>) {
  ^bb0(%x: f16, %o: f32):
    %w = arith.extf %x : f16 to f32
    linalg.yield %w : f32
  }
  linalg.matmul ins(%wa, %wb : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  %wc = memref.alloc() : memref<64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xbf16>) outs(%wc : memref<64x64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %w = arith.extf %x : bf16 to f32
    linalg.yield %w : f32
  }
  linalg.matmul ins(%wc, %d : memref<64x64xf32>, memref<64x64xf32>) outs(%e : memref<64x64xf32>)
  memref.copy %wc, %d : memref<64x64xf32> to memref<64x64xf32>
  return
}

// -----

// B's halves with K innermost ([n][k]): its core matrices are rows of
// terms, as A's (col: not transposed). 128 x 128 tiles (264 of them):
// each warpgroup a 64 x 128 piece, 5 stages of 16,384 bytes in dynamic
// shared memory.
// WGMMA-LABEL: func.func @wgmma_transposed_b(
// WGMMA: gpu.launch {{.*}} dynamic_shared_memory_size %c81920
// WGMMA: memref.view {{.*}} to memref<5x16x4x8x8xbf16, #gpu.address_space<workgroup>>
// WGMMA: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// By TMA, both are [stage][1][row][32], a box of the step's 32 terms of
// 128 rows each (K-major, rows of 64 bytes swizzled: 512 bytes between
// groups of 8 rows).
// TMA-LABEL: func.func @wgmma_transposed_b(
// TMA: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c32] : memref<*xbf16> -> <tensor = memref<128x32xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b
// TMA: nvgpu.tma.create.descriptor %{{.*}} box[%c128{{.*}}, %c32{{.*}}] : memref<*xbf16> -> <tensor = memref<128x32xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b
// TMA: gpu.launch {{.*}} dynamic_shared_memory_size %c82928
// TMA: memref.view {{.*}} to memref<5x1x128x32xbf16, #gpu.address_space<workgroup>>
// TMA: memref.view {{.*}} to memref<5x1x128x32xbf16, #gpu.address_space<workgroup>>
// TMA: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c16384
// TMA: arith.constant -9223371899415756800 : i64
// TMA: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
func.func @wgmma_transposed_b(%a: memref<2048x64xbf16>, %b: memref<2112x64xbf16>, %c: memref<2048x2112xf32>) {
  %wa = memref.alloc() : memref<2048x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2048x64xbf16>) outs(%wa : memref<2048x64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  %wb = memref.alloc() : memref<2112x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<2112x64xbf16>) outs(%wb : memref<2112x64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%wa, %wb : memref<2048x64xf32>, memref<2112x64xf32>) outs(%c : memref<2048x2112xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A's rows (a batch of 2 x 64, linearized) are a view that skips 16 rows
// of each batch: no one dimension of a tensor map holds them, so A and B
// go by cp.async, still on wgmma.
// TMA-LABEL: func.func @tma_rows_apart(
// TMA-NOT: nvgpu.tma.create.descriptor
// TMA: gpu.launch
// TMA: nvgpu.device_async_copy
// TMA: nvvm.wgmma.mma_async
// TMA-NOT: nvgpu.tma.async.load
func.func @tma_rows_apart(%x: memref<2x80x64xf16>, %b: memref<64x128xf16>, %c: memref<2x64x128xf32>) {
  %a = memref.subview %x[0, 0, 0] [2, 64, 64] [1, 1, 1] : memref<2x80x64xf16> to memref<2x64x64xf16, strided<[5120, 64, 1]>>
  %wa = memref.alloc() : memref<2x64x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : memref<2x64x64xf16, strided<[5120, 64, 1]>>) outs(%wa : memref<2x64x64xf32>) {
  ^bb0(%v: f16, %o: f32):
    %e = arith.extf %v : f16 to f32
    linalg.yield %e : f32
  }
  %wb = memref.alloc() : memref<64x128xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<64x128xf16>) outs(%wb : memref<64x128xf32>) {
  ^bb0(%v: f16, %o: f32):
    %e = arith.extf %v : f16 to f32
    linalg.yield %e : f32
  }
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%wa, %wb : memref<2x64x64xf32>, memref<64x128xf32>) outs(%c : memref<2x64x128xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Products of a tile inside a tiled loop (a block program's, as attention's)
// run on tensor cores where their factors are halves of one type: a step of
// 256 iterations (the block's threads) whose 8 warps take the 2 x 10 16 x 8
// fragments of the 32 x 80 scores three each (warp 7 none: it skips the step;
// slot 2 of warp 6 is past them: it starts from zeros and stores nothing).
// Where an operand's terms are its innermost dimension (Q's, K's and V^T's
// rows, as the attention lowering lays them out for tensor cores), a lane
// reads several adjacent ones at once: of 64 terms (Q K^T), lane t holds
// terms 8t to 8t + 7 of each 32, as 8 halves (the subviews' dynamic offsets
// are multiples of 2048 and 5120 elements), two mma.syncs a fragment; of 80
// (P V), terms 4t to 4t + 3 of each 16, as 4 f32 probabilities (rounded
// together) and 4 halves of V^T (whose key offset, j * 80, is a multiple
// of 16), one mma.sync. The f32 probabilities times
// f16 V take V's type where the attention lowering marked them
// (ms.probabilities); the same product unmarked stays f32, as do f32
// factors, unless --precision rounds them: then the f32 K^T (terms down its
// columns) is read term by term, in the same order of terms as its 4-wide
// rows of A.
// CHECK-LABEL: func.func @block_products(
// CHECK: scf.forall
// CHECK: scf.parallel (%[[T:.*]]) = (%c0) to (%c256) step (%c1)
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK: %[[FIRST:.*]] = arith.muli %[[WARP]], %c3
// CHECK: %[[BUSY:.*]] = arith.cmpi ult, %[[FIRST]], %c20
// CHECK: scf.if %[[BUSY]]
// CHECK: scf.if
// CHECK: memref.load %{{.*}} : memref<32x80xf32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64 step %c32{{.*}} iter_args
// CHECK: %[[QT:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<32x64xf16, strided<[64, 1], offset: ?>>, vector<8xf16>
// CHECK: vector.shuffle %[[QT]], %[[QT]] [0, 1] : vector<8xf16>, vector<8xf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<80x64xf16, strided<[64, 1], offset: ?>>, vector<8xf16>
// CHECK-COUNT-6: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-COUNT-3: scf.if
// CHECK: memref.store {{.*}} : memref<32x80xf32>
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c80{{.*}} step %c16{{.*}} iter_args
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<32x80xf32>, vector<4xf32>
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<64x80xf16, strided<[160, 1], offset: ?>>, vector<4xf16>
// CHECK-COUNT-2: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<32x80xf32>, memref<80x64xf16,
// CHECK-NOT: nvvm.mma.sync
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<32x64xf32, {{.*}}>, memref<64x80xf32,
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
// BF16-LABEL: func.func @block_products(
// BF16-COUNT-8: nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32)
// BF16: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<32x80xf32>, memref<80x64xf16,
// BF16: scf.for %{{.*}} = %c0{{.*}} to %c64 step %c32{{.*}} iter_args
// BF16: vector.load %{{.*}} : memref<32x64xf32, strided<[64, 1], offset: ?>>, vector<4xf32>
// BF16: memref.load %{{.*}} : memref<64x80xf32, strided<[80, 1], offset: ?>>
// BF16-COUNT-6: nvvm.mma.sync {{.*}} : (i32, i32, f32)
// BF16-NOT: nvvm.mma.sync
// BF16: return
func.func @block_products(%q: memref<4x32x64xf16>, %k: memref<4x80x64xf16>, %vt: memref<4x64x160xf16>, %v: memref<4x80x64xf16>, %f: memref<4x32x64xf32>, %g: memref<4x64x80xf32>) {
  %zero = arith.constant 0.0 : f32
  %c80 = arith.constant 80 : index
  scf.forall (%h, %j) in (4, 2) {
    %qh = memref.subview %q[%h, 0, 0] [1, 32, 64] [1, 1, 1] : memref<4x32x64xf16> to memref<32x64xf16, strided<[64, 1], offset: ?>>
    %kh = memref.subview %k[%h, 0, 0] [1, 80, 64] [1, 1, 1] : memref<4x80x64xf16> to memref<80x64xf16, strided<[64, 1], offset: ?>>
    %j0 = arith.muli %j, %c80 : index
    %vth = memref.subview %vt[%h, 0, %j0] [1, 64, 80] [1, 1, 1] : memref<4x64x160xf16> to memref<64x80xf16, strided<[160, 1], offset: ?>>
    %vh = memref.subview %v[%h, 0, 0] [1, 80, 64] [1, 1, 1] : memref<4x80x64xf16> to memref<80x64xf16, strided<[64, 1], offset: ?>>
    %fh = memref.subview %f[%h, 0, 0] [1, 32, 64] [1, 1, 1] : memref<4x32x64xf32> to memref<32x64xf32, strided<[64, 1], offset: ?>>
    %gh = memref.subview %g[%h, 0, 0] [1, 64, 80] [1, 1, 1] : memref<4x64x80xf32> to memref<64x80xf32, strided<[80, 1], offset: ?>>
    %s = memref.alloc() : memref<32x80xf32>
    %o = memref.alloc() : memref<32x64xf32>
    linalg.fill ins(%zero : f32) outs(%s : memref<32x80xf32>)
    linalg.fill ins(%zero : f32) outs(%o : memref<32x64xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%qh, %kh : memref<32x64xf16, strided<[64, 1], offset: ?>>, memref<80x64xf16, strided<[64, 1], offset: ?>>) outs(%s : memref<32x80xf32>) {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xe = arith.extf %x : f16 to f32
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %xe, %ye : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s, %vth : memref<32x80xf32>, memref<64x80xf16, strided<[160, 1], offset: ?>>) outs(%o : memref<32x64xf32>) attrs = {ms.probabilities} {
    ^bb0(%x: f32, %y: f16, %acc: f32):
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %x, %ye : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%s, %vh : memref<32x80xf32>, memref<80x64xf16, strided<[64, 1], offset: ?>>) outs(%o : memref<32x64xf32>) {
    ^bb0(%x: f32, %y: f16, %acc: f32):
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %x, %ye : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%fh, %gh : memref<32x64xf32, strided<[64, 1], offset: ?>>, memref<64x80xf32, strided<[80, 1], offset: ?>>) outs(%s : memref<32x80xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
    memref.dealloc %s : memref<32x80xf32>
    memref.dealloc %o : memref<32x64xf32>
  }
  return
}

// -----

// Tails: a 20 x 12 tile of 24 terms takes 2 x 2 fragments (one a warp,
// warps 4 to 7 skip the step) and two steps of 16 terms. A's rows past 20
// read row 19 and B's columns past 12 column 11 (their sums are neither
// read nor stored: a condition per element); terms past 24 read as zeros.
// CHECK-LABEL: func.func @block_product_tails(
// CHECK: scf.parallel
// CHECK: arith.cmpi ult, %{{.*}}, %c4
// CHECK-COUNT-4: scf.if %{{.*}} -> (f32)
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c32{{.*}} step %c16{{.*}} iter_args
// CHECK: arith.minui %{{.*}}, %c19
// CHECK: arith.minui %{{.*}}, %c23
// CHECK: memref.load
// CHECK: arith.select
// CHECK: arith.minui %{{.*}}, %c11
// CHECK: nvvm.mma.sync
// CHECK: scf.yield
// CHECK-COUNT-4: memref.store
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
func.func @block_product_tails(%a: memref<2x20x24xf16>, %b: memref<2x24x12xf16>) {
  %zero = arith.constant 0.0 : f32
  scf.forall (%h) in (2) {
    %ah = memref.subview %a[%h, 0, 0] [1, 20, 24] [1, 1, 1] : memref<2x20x24xf16> to memref<20x24xf16, strided<[24, 1], offset: ?>>
    %bh = memref.subview %b[%h, 0, 0] [1, 24, 12] [1, 1, 1] : memref<2x24x12xf16> to memref<24x12xf16, strided<[12, 1], offset: ?>>
    %s = memref.alloc() : memref<20x12xf32>
    linalg.fill ins(%zero : f32) outs(%s : memref<20x12xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%ah, %bh : memref<20x24xf16, strided<[24, 1], offset: ?>>, memref<24x12xf16, strided<[12, 1], offset: ?>>) outs(%s : memref<20x12xf32>) {
    ^bb0(%x: f16, %y: f16, %acc: f32):
      %xe = arith.extf %x : f16 to f32
      %ye = arith.extf %y : f16 to f32
      %p = arith.mulf %xe, %ye : f32
      %r = arith.addf %acc, %p : f32
      linalg.yield %r : f32
    }
    memref.dealloc %s : memref<20x12xf32>
  }
  return
}

// -----

// A product under a branch of the tile (which thread 0 alone would run)
// is not a step of its block program: it stays on the CUDA cores.
// CHECK-LABEL: func.func @block_product_under_a_branch(
// CHECK: scf.if
// CHECK-NEXT: linalg.generic
// CHECK-NOT: nvvm.mma.sync
// CHECK: return
func.func @block_product_under_a_branch(%a: memref<2x16x16xf16>, %b: memref<2x16x8xf16>, %c: i1) {
  scf.forall (%h) in (2) {
    %ah = memref.subview %a[%h, 0, 0] [1, 16, 16] [1, 1, 1] : memref<2x16x16xf16> to memref<16x16xf16, strided<[16, 1], offset: ?>>
    %bh = memref.subview %b[%h, 0, 0] [1, 16, 8] [1, 1, 1] : memref<2x16x8xf16> to memref<16x8xf16, strided<[8, 1], offset: ?>>
    %s = memref.alloc() : memref<16x8xf32>
    scf.if %c {
      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                      iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%ah, %bh : memref<16x16xf16, strided<[16, 1], offset: ?>>, memref<16x8xf16, strided<[8, 1], offset: ?>>) outs(%s : memref<16x8xf32>) {
      ^bb0(%x: f16, %y: f16, %acc: f32):
        %xe = arith.extf %x : f16 to f32
        %ye = arith.extf %y : f16 to f32
        %p = arith.mulf %xe, %ye : f32
        %r = arith.addf %acc, %p : f32
        linalg.yield %r : f32
      }
    }
    memref.dealloc %s : memref<16x8xf32>
  }
  return
}

// -----

// A 2048 x 256 by 256 x 4096 bf16 product, 512 large tiles: with
// wide-tiles, 256 blocks of 128 x 256 (at least 132), each warpgroup's
// piece 64 x 256 (wgmma n = 256), 8 stages of 24,576 bytes (A's box of
// 128 rows, four boxes of 64 columns of B a step) and the 1,008 bytes of
// alignment; by default, 512 blocks of 128 x 128 in 5 stages.
// WIDE-LABEL: func.func @wide_tiles(
// WIDE: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c32] : memref<*xbf16> -> <tensor = memref<128x32xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_64b,
// WIDE: nvgpu.tma.create.descriptor %{{.*}} box[%c32{{.*}}, %c64] : memref<*xbf16> -> <tensor = memref<32x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b,
// WIDE: gpu.launch
// WIDE-SAME: in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c288,
// WIDE-SAME: dynamic_shared_memory_size %c197616_i32
// WIDE: memref.view {{.*}} to memref<8x1x128x32xbf16, #gpu.address_space<workgroup>>
// WIDE: memref.view {{.*}} to memref<8x4x32x64xbf16, #gpu.address_space<workgroup>>
// WIDE: nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// WIDE: scf.for {{.*}} -> (f32,
// WIDE-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// WIDE-NOT: nvvm.wgmma.mma_async
// WIDE: nvgpu.mbarrier.arrive.expect_tx %{{.*}}, %c24576
// WIDE-COUNT-5: nvgpu.tma.async.load
// WIDE-NOT: nvgpu.tma.async.load
// WIDE: gpu.terminator
// WS-LABEL: func.func @wide_tiles(
// WS: gpu.launch
// WS-SAME: in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c288,
// WS-SAME: dynamic_shared_memory_size %c82928_i32
// WS: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
// With persistent-blocks=132 the 256 wide tiles take 132 blocks, whose
// producer and products each walk tiles b and b + 132 (below 256), the
// steps of K (8 a tile) numbered on from the tile's first, 8 times the
// tiles the block has done, which the barriers' stages and parities
// follow (a tile's last stage is released by the next tile's first step);
// without a producer warp (TMA, which runs with persistent-blocks=132 too)
// each tile is a block.
// PERSIST-LABEL: func.func @wide_tiles(
// PERSIST: gpu.launch blocks(%[[BLOCK:[^,]*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c132, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c288,
// PERSIST-SAME: dynamic_shared_memory_size %c197616_i32
// PERSIST: %[[LOADED:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 8>
// PERSIST: %[[RELEASED:.*]] = nvgpu.mbarrier.create
// PERSIST: scf.if %{{.*}} {
// PERSIST: nvgpu.mbarrier.init
// PERSIST: gpu.barrier
// PERSIST: scf.if %{{.*}} {
// PERSIST: scf.for %[[TILE:.*]] = %[[BLOCK]] to %c256{{.*}} step %c132
// PERSIST: %[[WALKED:.*]] = arith.subi %[[TILE]], %[[BLOCK]]
// PERSIST: %[[DONE:.*]] = arith.divui %[[WALKED]], %c132
// PERSIST: %[[BASE:.*]] = arith.muli %[[DONE]], %c8
// PERSIST: scf.for %[[K:.*]] = %c0{{.*}} to %c256{{.*}} step %c32{{.*}} -> (f32,
// PERSIST: %[[LOCAL:.*]] = arith.divui %[[K]], %c32
// PERSIST: %[[STEP:.*]] = arith.addi %[[BASE]], %[[LOCAL]]
// PERSIST: %[[STAGE:.*]] = arith.remui %[[STEP]], %c8
// PERSIST: %[[USE:.*]] = arith.divui %[[STEP]], %c8
// PERSIST: %[[ODD:.*]] = arith.remui %[[USE]], %c2
// PERSIST: %[[PARITY:.*]] = arith.cmpi ne, %[[ODD]]
// PERSIST: nvgpu.mbarrier.try_wait.parity %[[LOADED]][%[[STAGE]]], %[[PARITY]]
// PERSIST-COUNT-2: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 256, k = 16>
// PERSIST: arith.cmpi ugt, %[[STEP]], %c0
// PERSIST: %[[PREVIOUS:.*]] = arith.subi %[[STEP]], %c1
// PERSIST: %[[PREVIOUS_STAGE:.*]] = arith.remui %[[PREVIOUS]], %c8
// PERSIST: nvgpu.mbarrier.arrive.expect_tx %[[RELEASED]][%[[PREVIOUS_STAGE]]], %c0{{.*}}, predicate =
// PERSIST: nvvm.wgmma.wait.group.sync.aligned 0
// PERSIST: } else {
// PERSIST: scf.for %[[PTILE:.*]] = %[[BLOCK]] to %c256{{.*}} step %c132
// PERSIST: %[[PWALKED:.*]] = arith.subi %[[PTILE]], %[[BLOCK]]
// PERSIST: %[[PDONE:.*]] = arith.divui %[[PWALKED]], %c132
// PERSIST: %[[PBASE:.*]] = arith.muli %[[PDONE]], %c8
// PERSIST: scf.for %[[PK:.*]] = %c0{{.*}} to %c256{{.*}} step %c32
// PERSIST: %[[PLOCAL:.*]] = arith.divui %[[PK]], %c32
// PERSIST: %[[PSTEP:.*]] = arith.addi %[[PBASE]], %[[PLOCAL]]
// PERSIST: %[[INTO:.*]] = arith.remui %[[PSTEP]], %c8
// PERSIST: %[[PUSE:.*]] = arith.divui %[[PSTEP]], %c8
// PERSIST: %[[PODD:.*]] = arith.remui %[[PUSE]], %c2
// PERSIST: %[[PPARITY:.*]] = arith.cmpi eq, %[[PODD]]
// PERSIST: nvgpu.mbarrier.try_wait.parity %[[RELEASED]][%[[INTO]]], %[[PPARITY]]
// PERSIST: nvgpu.mbarrier.arrive.expect_tx %[[LOADED]][%[[INTO]]], %c24576
// PERSIST: gpu.terminator
// TMA-LABEL: func.func @wide_tiles(
// TMA: gpu.launch
// TMA-SAME: in (%{{.*}} = %c512, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
func.func @wide_tiles(%a: memref<2048x256xbf16>, %b: memref<256x4096xbf16>, %c: memref<2048x4096xf32>) {
  %wa = memref.alloc() : memref<2048x256xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2048x256xbf16>) outs(%wa : memref<2048x256xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  %wb = memref.alloc() : memref<256x4096xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<256x4096xbf16>) outs(%wb : memref<256x4096xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.matmul ins(%wa, %wb : memref<2048x256xf32>, memref<256x4096xf32>) outs(%c : memref<2048x4096xf32>)
  return
}

// -----

// With 4,160 columns (4,096 and 64), 128 x 256 tiles would pad 192
// columns where 128 x 128 ones pad 64: wide-tiles keeps 528 blocks of
// 128 x 128.
// WIDE-LABEL: func.func @wide_tiles_padded(
// WIDE: gpu.launch
// WIDE-SAME: in (%{{.*}} = %c528, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c288,
// WIDE-SAME: dynamic_shared_memory_size %c82928_i32
// WIDE: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>
// PERSIST-LABEL: func.func @wide_tiles_padded(
// PERSIST: gpu.launch
// PERSIST-SAME: in (%{{.*}} = %c132, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c288,
// PERSIST-SAME: dynamic_shared_memory_size %c82928_i32
// PERSIST: scf.for %{{.*}} = %{{.*}} to %c528{{.*}} step %c132
// TMA-LABEL: func.func @wide_tiles_padded(
func.func @wide_tiles_padded(%a: memref<2048x256xbf16>, %b: memref<256x4160xbf16>, %c: memref<2048x4160xf32>) {
  %wa = memref.alloc() : memref<2048x256xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<2048x256xbf16>) outs(%wa : memref<2048x256xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  %wb = memref.alloc() : memref<256x4160xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<256x4160xbf16>) outs(%wb : memref<256x4160xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %e = arith.extf %x : bf16 to f32
    linalg.yield %e : f32
  }
  linalg.matmul ins(%wa, %wb : memref<2048x256xf32>, memref<256x4160xf32>) outs(%c : memref<2048x4160xf32>)
  return
}

// -----

func.func @too_many_tiles(%a: memref<2147483648x16x8xf32>, %b: memref<2147483648x8x16xf32>, %c: memref<2147483648x16x16xf32>) {
  // expected-error @+1 {{expected at most 2^31 - 1 tiles of the matrix product, but found 2147483648}}
  linalg.batch_matmul ins(%a, %b : memref<2147483648x16x8xf32>, memref<2147483648x8x16xf32>) outs(%c : memref<2147483648x16x16xf32>)
  return
}
