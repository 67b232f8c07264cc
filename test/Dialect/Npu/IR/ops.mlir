// RUN: ms-opt %s | ms-opt | FileCheck %s
// Every msnpu op prints and parses back.

// CHECK-LABEL: func.func @gemm_step
// CHECK: msnpu.buffer[0] : memref<2x2x16x16xf16, #msnpu.space<l1>>
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<2x2x16x16xf32, strided<[512, 16, 32, 1]>> to memref<2x2x16x16xf16, #msnpu.space<l1>>
// CHECK: msnpu.set_flag <mte2> to <mte1>, 0
// CHECK: msnpu.wait_flag <mte2> to <mte1>, 0
// CHECK: msnpu.mmad %{{.*}}, %{{.*}}, %{{.*}} init :
// CHECK: msnpu.fixpipe %{{.*}}, %{{.*}} relu acc :
// CHECK: msnpu.fill 0.000000e+00, %{{.*}} : memref<2x2x16x16xf16, #msnpu.space<l1>>
// CHECK: msnpu.barrier
// CHECK: msnpu.core_barrier
func.func @gemm_step(%a: memref<32x32xf32>, %c: memref<32x32xf32>) {
  %l1 = msnpu.buffer [0] : memref<2x2x16x16xf16, #msnpu.space<l1>>
  %l0a = msnpu.buffer [0] : memref<2x2x16x16xf16, #msnpu.space<l0a>>
  %l0b = msnpu.buffer [0] : memref<2x2x16x16xf16, #msnpu.space<l0b>>
  %l0c = msnpu.buffer [0] : memref<2x2x16x16xf32, #msnpu.space<l0c>>
  %e = memref.expand_shape %a [[0, 1], [2, 3]] output_shape [2, 16, 2, 16] : memref<32x32xf32> into memref<2x16x2x16xf32>
  %t = memref.transpose %e (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<2x16x2x16xf32> to memref<2x2x16x16xf32, strided<[512, 16, 32, 1]>>
  msnpu.dma %t, %l1 : memref<2x2x16x16xf32, strided<[512, 16, 32, 1]>> to memref<2x2x16x16xf16, #msnpu.space<l1>>
  msnpu.set_flag <mte2> to <mte1>, 0
  msnpu.wait_flag <mte2> to <mte1>, 0
  msnpu.dma %l1, %l0a : memref<2x2x16x16xf16, #msnpu.space<l1>> to memref<2x2x16x16xf16, #msnpu.space<l0a>>
  msnpu.dma %l1, %l0b : memref<2x2x16x16xf16, #msnpu.space<l1>> to memref<2x2x16x16xf16, #msnpu.space<l0b>>
  msnpu.mmad %l0a, %l0b, %l0c init : memref<2x2x16x16xf16, #msnpu.space<l0a>>, memref<2x2x16x16xf16, #msnpu.space<l0b>>, memref<2x2x16x16xf32, #msnpu.space<l0c>>
  msnpu.fixpipe %l0c, %c relu acc : memref<2x2x16x16xf32, #msnpu.space<l0c>> to memref<32x32xf32>
  msnpu.fill 0.0, %l1 : memref<2x2x16x16xf16, #msnpu.space<l1>>
  msnpu.barrier
  msnpu.core_barrier
  return
}

// The cube's other input types: bf16 (16x16 fractals, converted by MTE2)
// and f32 (16x8 and 8x16).
// CHECK-LABEL: func.func @mmad_types
// CHECK: msnpu.dma %{{.*}}, %{{.*}} : memref<1x1x16x16xf32> to memref<1x1x16x16xbf16, #msnpu.space<l1>>
// CHECK: msnpu.mmad %{{.*}}, %{{.*}}, %{{.*}} init : memref<1x1x16x16xbf16, #msnpu.space<l0a>>, memref<1x1x16x16xbf16, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
// CHECK: msnpu.mmad %{{.*}}, %{{.*}}, %{{.*}} : memref<1x2x16x8xf32, #msnpu.space<l0a>>, memref<2x1x8x16xf32, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
func.func @mmad_types(%g: memref<1x1x16x16xf32>) {
  %l1 = msnpu.buffer [0] : memref<1x1x16x16xbf16, #msnpu.space<l1>>
  msnpu.dma %g, %l1 : memref<1x1x16x16xf32> to memref<1x1x16x16xbf16, #msnpu.space<l1>>
  %a = msnpu.buffer [0] : memref<1x1x16x16xbf16, #msnpu.space<l0a>>
  %b = msnpu.buffer [0] : memref<1x1x16x16xbf16, #msnpu.space<l0b>>
  %c = msnpu.buffer [0] : memref<1x1x16x16xf32, #msnpu.space<l0c>>
  msnpu.mmad %a, %b, %c init : memref<1x1x16x16xbf16, #msnpu.space<l0a>>, memref<1x1x16x16xbf16, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
  %fa = msnpu.buffer [0] : memref<1x2x16x8xf32, #msnpu.space<l0a>>
  %fb = msnpu.buffer [0] : memref<2x1x8x16xf32, #msnpu.space<l0b>>
  msnpu.mmad %fa, %fb, %c : memref<1x2x16x8xf32, #msnpu.space<l0a>>, memref<2x1x8x16xf32, #msnpu.space<l0b>>, memref<1x1x16x16xf32, #msnpu.space<l0c>>
  return
}

// CHECK-LABEL: func.func @vector
// CHECK: msnpu.vunary <exp> %{{.*}}, %{{.*}} : memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.vbinary <add> %{{.*}}, %{{.*}}, %{{.*}} : memref<8x64xf32, #msnpu.space<ub>>, memref<1x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.vscalar <max> %{{.*}}, 0.000000e+00, %{{.*}}
// CHECK: msnpu.vscalar <lt> %{{.*}}, 0.000000e+00, %{{.*}}
// CHECK: msnpu.vselect %{{.*}}, %{{.*}} else %{{.*}}, %{{.*}} : memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.vselect %{{.*}}, %{{.*}}, %{{.*}} {scalar = 0.000000e+00 : f64} : memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
// CHECK: msnpu.vdup 1.000000e+00, %{{.*}}
// CHECK: msnpu.vreduce <sum> %{{.*}}, %{{.*}} acc : memref<8x64xf32, #msnpu.space<ub>> to memref<8xf32, #msnpu.space<ub>>
// CHECK: msnpu.vunary <cast> %{{.*}}, %{{.*}} : memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf16, #msnpu.space<ub>>
// CHECK: %[[CORE:.*]] = msnpu.core_id
// CHECK: msnpu.per_core [3, 2]
func.func @vector() -> (index, index) {
  %x = msnpu.buffer [0] : memref<8x64xf32, #msnpu.space<ub>>
  %b = msnpu.buffer [2048] : memref<1x64xf32, #msnpu.space<ub>>
  %y = msnpu.buffer [4096] : memref<8x64xf32, #msnpu.space<ub>>
  %r = msnpu.buffer [6144] : memref<8xf32, #msnpu.space<ub>>
  %h = msnpu.buffer [8192] : memref<8x64xf16, #msnpu.space<ub>>
  msnpu.vunary <exp> %x, %y : memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vbinary <add> %y, %b, %y : memref<8x64xf32, #msnpu.space<ub>>, memref<1x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vscalar <max> %y, 0.0, %y : memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vscalar <lt> %y, 0.0, %x : memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vselect %x, %y else %y, %y : memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vselect %x, %y, %y {scalar = 0.0} : memref<8x64xf32, #msnpu.space<ub>>, memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vdup 1.0, %x : memref<8x64xf32, #msnpu.space<ub>>
  msnpu.vreduce <sum> %y, %r acc : memref<8x64xf32, #msnpu.space<ub>> to memref<8xf32, #msnpu.space<ub>>
  msnpu.vunary <cast> %y, %h : memref<8x64xf32, #msnpu.space<ub>> to memref<8x64xf16, #msnpu.space<ub>>
  %core = msnpu.core_id
  %n = msnpu.per_core [3, 2]
  return %core, %n : index, index
}
