// RUN: ms-opt %s -split-input-file -verify-diagnostics
// Each msnpu verifier diagnostic (docs/spec/msnpu.md).

func.func @buffer_in_gm() {
  // expected-error @+1 {{expects an on-chip memory space (#msnpu.space<l1>, l0a, l0b, l0c or ub) (buffer_c1), found none}}
  %b = msnpu.buffer [0] : memref<16xf32>
  return
}

// -----

func.func @buffer_layout() {
  // expected-error @+1 {{expects an identity layout (buffer_c1)}}
  %b = msnpu.buffer [0] : memref<16xf32, strided<[2]>, #msnpu.space<ub>>
  return
}

// -----

func.func @buffer_alignment() {
  // expected-error @+1 {{expects an offset aligned to 32 bytes (buffer_c2), found 4}}
  %b = msnpu.buffer [4] : memref<16xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @buffer_capacity() {
  // expected-error @+1 {{needs bytes [0, 73728) of l0a, which holds 65536 (buffer_c2)}}
  %b = msnpu.buffer [0] : memref<9x16x16x16xf16, #msnpu.space<l0a>>
  return
}

// -----

// A smaller configuration is checked against its own capacities.
module attributes {msnpu.config = {ubBytes = 1024 : i64}} {
  func.func @buffer_configured() {
    // expected-error @+1 {{needs bytes [512, 1536) of ub, which holds 1024 (buffer_c2)}}
    %b = msnpu.buffer [512] : memref<256xf32, #msnpu.space<ub>>
    return
  }
}

// -----

func.func @dma_path(%a: memref<16xf32>) {
  %l0a = msnpu.buffer [0] : memref<16xf32, #msnpu.space<l0a>>
  // expected-error @+1 {{has no data mover from gm to l0a (expected gm to l1 or ub, l1 to l0a or l0b, or ub to gm) (dma_c1)}}
  msnpu.dma %a, %l0a : memref<16xf32> to memref<16xf32, #msnpu.space<l0a>>
  return
}

// -----

func.func @dma_shape(%a: memref<16xf32>) {
  %ub = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects source and target of one static shape (dma_c2), found [16] and [8]}}
  msnpu.dma %a, %ub : memref<16xf32> to memref<8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @dma_rank(%a: memref<2x2x2x2x2xf32>) {
  %ub = msnpu.buffer [0] : memref<2x2x2x2x2xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects rank 1 to 4 (dma_c2), found 5}}
  msnpu.dma %a, %ub : memref<2x2x2x2x2xf32> to memref<2x2x2x2x2xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @dma_convert(%a: memref<16xf16>) {
  %ub = msnpu.buffer [0] : memref<16xf32, #msnpu.space<ub>>
  // expected-error @+1 {{converts 'f32' to 'f16'; only gm to l1 or ub converts, and only between f32, f16 and bf16 (dma_c3)}}
  msnpu.dma %ub, %a : memref<16xf32, #msnpu.space<ub>> to memref<16xf16>
  return
}

// -----

func.func @fill_space() {
  %b = msnpu.buffer [0] : memref<16xf16, #msnpu.space<l0a>>
  // expected-error @+1 {{expects a target in l1 or ub (fill_c1), found l0a}}
  msnpu.fill 0.0, %b : memref<16xf16, #msnpu.space<l0a>>
  return
}

// -----

func.func @fill_rank() {
  %b = msnpu.buffer [0] : memref<2x2x2x2x2xf16, #msnpu.space<l1>>
  // expected-error @+1 {{expects a static target of rank 1 to 4 (fill_c1)}}
  msnpu.fill 0.0, %b : memref<2x2x2x2x2xf16, #msnpu.space<l1>>
  return
}

// -----

func.func @mmad_space() {
  %a = msnpu.buffer [0] : memref<1x1x16x16xf16, #msnpu.space<l0b>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xf16, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects lhs in l0a (mmad_c1), found l0b}}
  msnpu.mmad %a, %b, %c : memref<1x1x16x16xf16, #msnpu.space<l0b>>, memref<1x1x16x16xf16, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
  return
}

// -----

func.func @mmad_rank() {
  %a = msnpu.buffer [0] : memref<16x16xf16, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xf16, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects lhs as a static 4-d fractal matrix (mmad_c2)}}
  msnpu.mmad %a, %b, %c : memref<16x16xf16, #msnpu.space<l0a>>, memref<1x1x16x16xf16, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
  return
}

// -----

func.func @mmad_contiguous() {
  %all = msnpu.buffer [0] : memref<2x2x16x16xf16, #msnpu.space<l0a>>
  %a = memref.subview %all[0, 0, 0, 0] [2, 1, 16, 16] [1, 1, 1, 1] : memref<2x2x16x16xf16, #msnpu.space<l0a>> to memref<2x1x16x16xf16, strided<[512, 256, 16, 1]>, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xf16, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<2x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects lhs contiguous (mmad_c2)}}
  msnpu.mmad %a, %b, %c : memref<2x1x16x16xf16, strided<[512, 256, 16, 1]>, #msnpu.space<l0a>>, memref<1x1x16x16xf16, #msnpu.space<l0b>>, memref<2x1x16x16xf32, #msnpu.space<l0c>>
  return
}

// -----

func.func @mmad_types() {
  %a = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<1x1x16x16xi32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects f16, bf16 or f32 x the same -> f32, or i8 x i8 -> i32 (mmad_c3), found 'f32' x 'f32' -> 'i32'}}
  msnpu.mmad %a, %b, %c : memref<1x1x16x16xf32, #msnpu.space<l0a>>, memref<1x1x16x16xf32, #msnpu.space<l0b>>, memref<1x1x16x16xi32, #msnpu.space<l0c>>
  return
}

// -----

func.func @mmad_f32_fractal() {
  %a = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects fractals of 16x8, 8x16 and 16x16 (mmad_c2), found 16x16, 16x16 and 16x16}}
  msnpu.mmad %a, %b, %c : memref<1x1x16x16xf32, #msnpu.space<l0a>>, memref<1x1x16x16xf32, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
  return
}

// -----

func.func @mmad_fractal() {
  %a = msnpu.buffer [0] : memref<1x1x16x16xi8, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xi8, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<1x1x16x16xi32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects fractals of 16x32, 32x16 and 16x16 (mmad_c2), found 16x16, 16x16 and 16x16}}
  msnpu.mmad %a, %b, %c : memref<1x1x16x16xi8, #msnpu.space<l0a>>, memref<1x1x16x16xi8, #msnpu.space<l0b>>, memref<1x1x16x16xi32, #msnpu.space<l0c>>
  return
}

// -----

func.func @mmad_counts() {
  %a = msnpu.buffer [0] : memref<2x1x16x16xf16, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<2x1x16x16xf16, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<2x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects fractal counts MxK, KxN, MxN (mmad_c2), found 2x1, 2x1, 2x1}}
  msnpu.mmad %a, %b, %c : memref<2x1x16x16xf16, #msnpu.space<l0a>>, memref<2x1x16x16xf16, #msnpu.space<l0b>>, memref<2x1x16x16xf32, #msnpu.space<l0c>>
  return
}

// -----

func.func @fixpipe_source(%d: memref<16x16xf32>) {
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects a contiguous l0c fractal matrix (MxNx16x16) as source (fixpipe_c1)}}
  msnpu.fixpipe %c, %d : memref<1x1x16x16xf32, #msnpu.space<ub>> to memref<16x16xf32>
  return
}

// -----

func.func @fixpipe_target() {
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  %d = msnpu.buffer [0] : memref<16x16xf32, #msnpu.space<l1>>
  // expected-error @+1 {{expects a target in ub or gm (fixpipe_c2), found l1}}
  msnpu.fixpipe %c, %d : memref<1x1x16x16xf32, #msnpu.space<l0c>> to memref<16x16xf32, #msnpu.space<l1>>
  return
}

// -----

func.func @fixpipe_rank(%d: memref<256xf32>) {
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{expects a static 2-d target (fixpipe_c2)}}
  msnpu.fixpipe %c, %d : memref<1x1x16x16xf32, #msnpu.space<l0c>> to memref<256xf32>
  return
}

// -----

func.func @fixpipe_size(%d: memref<32x16xf32>) {
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{stores 32x16 elements of a 16x16 matrix (fixpipe_c2)}}
  msnpu.fixpipe %c, %d : memref<1x1x16x16xf32, #msnpu.space<l0c>> to memref<32x16xf32>
  return
}

// -----

func.func @fixpipe_cast(%d: memref<16x16xi32>) {
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  // expected-error @+1 {{cannot store 'f32' as 'i32' (fixpipe_c3)}}
  msnpu.fixpipe %c, %d : memref<1x1x16x16xf32, #msnpu.space<l0c>> to memref<16x16xi32>
  return
}

// -----

func.func @vector_target_space(%x: memref<8xf32>) {
  %a = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects its target in ub (vector_c1), found gm}}
  msnpu.vunary <exp> %a, %x : memref<8xf32, #msnpu.space<ub>> to memref<8xf32>
  return
}

// -----

func.func @vector_target_rank() {
  %a = msnpu.buffer [0] : memref<2x2x2xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects a static target of rank 1 or 2 (vector_c2)}}
  msnpu.vdup 0.0, %a : memref<2x2x2xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vector_operand_space(%x: memref<8xf32>) {
  %a = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects source in ub (vector_c1), found gm}}
  msnpu.vunary <exp> %x, %a : memref<8xf32> to memref<8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vector_operand_rank() {
  %a = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [64] : memref<2x8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects lhs of rank 2 (vector_c2), found rank 1}}
  msnpu.vbinary <add> %a, %b, %b : memref<8xf32, #msnpu.space<ub>>, memref<2x8xf32, #msnpu.space<ub>> to memref<2x8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vector_broadcast() {
  %a = msnpu.buffer [0] : memref<2x4xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [64] : memref<2x8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects rhs of shape [2, 8] or broadcast to it (vector_c2), found [2, 4]}}
  msnpu.vbinary <add> %b, %a, %b : memref<2x8xf32, #msnpu.space<ub>>, memref<2x4xf32, #msnpu.space<ub>> to memref<2x8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vector_types() {
  %a = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [64] : memref<8xf16, #msnpu.space<ub>>
  // expected-error @+1 {{expects one element type (vector_c3), found 'f32' and 'f16'}}
  msnpu.vunary <exp> %a, %b : memref<8xf32, #msnpu.space<ub>> to memref<8xf16, #msnpu.space<ub>>
  return
}

// -----

func.func @vector_binary_types() {
  %a = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [64] : memref<8xf16, #msnpu.space<ub>>
  // expected-error @+1 {{expects one element type for all operands (vector_c3)}}
  msnpu.vbinary <add> %a, %b, %a : memref<8xf32, #msnpu.space<ub>>, memref<8xf16, #msnpu.space<ub>> to memref<8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vreduce_space(%x: memref<8xf32>) {
  %a = msnpu.buffer [0] : memref<8x8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects source and target in ub (vreduce_c1)}}
  msnpu.vreduce <sum> %a, %x : memref<8x8xf32, #msnpu.space<ub>> to memref<8xf32>
  return
}

// -----

func.func @vreduce_rank() {
  %a = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [64] : memref<8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects a static 2-d source (vreduce_c1)}}
  msnpu.vreduce <sum> %a, %b : memref<8xf32, #msnpu.space<ub>> to memref<8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vreduce_rows() {
  %a = msnpu.buffer [0] : memref<8x8xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [512] : memref<4xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects a target of 8 rows (shape [8] or [8, 1]) (vreduce_c1)}}
  msnpu.vreduce <max> %a, %b : memref<8x8xf32, #msnpu.space<ub>> to memref<4xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @vreduce_types() {
  %a = msnpu.buffer [0] : memref<8x8xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [512] : memref<8xf16, #msnpu.space<ub>>
  // expected-error @+1 {{expects one element type for source and target (vreduce_c1)}}
  msnpu.vreduce <max> %a, %b : memref<8x8xf32, #msnpu.space<ub>> to memref<8xf16, #msnpu.space<ub>>
  return
}

// -----

func.func @flag_self() {
  // expected-error @+1 {{connects pipe v to itself (flag_c1); a pipe is ordered already}}
  msnpu.set_flag <v> to <v>, 0
  return
}

// -----

func.func @flag_id() {
  // expected-error @+1 {{attribute 'id' failed to satisfy constraint}}
  msnpu.wait_flag <v> to <mte3>, 16
  return
}

// -----

func.func @per_core_count() -> index {
  // expected-error @+1 {{expects one value per core (2) (per_core_c1), found 3}}
  %n = msnpu.per_core [1, 2, 3]
  return %n : index
}

// -----

func.func @select_without_rhs() {
  %m = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  %a = msnpu.buffer [64] : memref<8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects an rhs view or a scalar (vector_c4), found neither}}
  msnpu.vselect %m, %a, %a : memref<8xf32, #msnpu.space<ub>>, memref<8xf32, #msnpu.space<ub>> to memref<8xf32, #msnpu.space<ub>>
  return
}

// -----

func.func @select_types() {
  %m = msnpu.buffer [0] : memref<8xf32, #msnpu.space<ub>>
  %a = msnpu.buffer [64] : memref<8xf16, #msnpu.space<ub>>
  %b = msnpu.buffer [128] : memref<8xf32, #msnpu.space<ub>>
  // expected-error @+1 {{expects one element type for lhs, rhs and the target (vector_c3)}}
  msnpu.vselect %m, %a, %b {scalar = 1.0} : memref<8xf32, #msnpu.space<ub>>, memref<8xf16, #msnpu.space<ub>> to memref<8xf32, #msnpu.space<ub>>
  return
}
