// RUN: ms-opt %s --ms-cpu-approximate-math --split-input-file | FileCheck %s

// f32 exp (scalar or vector), erf and tanh become arithmetic with fused
// multiply-adds: no math op is left for libm.
// CHECK-LABEL: func.func @exp_erf_tanh
// CHECK-NOT: math.exp
// CHECK-NOT: math.erf
// CHECK-NOT: math.tanh
// CHECK: math.fma {{.*}} : vector<16xf32>
// CHECK: return
func.func @exp_erf_tanh(%x: vector<16xf32>, %y: f32) -> (vector<16xf32>, f32, f32) {
  %e = math.exp %x : vector<16xf32>
  %f = math.erf %y : f32
  %t = math.tanh %y : f32
  return %e, %f, %t : vector<16xf32>, f32, f32
}

// -----

// log: a subnormal argument is scaled by 2^24 and the result lowered by
// 24 ln 2 (16.6355) before the approximation, which clamps its argument
// to the smallest normal.
// CHECK-LABEL: func.func @log_subnormal
// CHECK-DAG: %[[MIN:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 0x4B800000 : f32
// CHECK-DAG: %[[LN2X24:.*]] = arith.constant 16.6355{{[0-9]*}} : f32
// CHECK: %[[SUB:.*]] = arith.cmpf olt, %[[X:.*]], %[[MIN]]
// CHECK: %[[SCALED:.*]] = arith.mulf %[[X]], %[[SCALE]]
// CHECK: arith.select %[[SUB]], %[[SCALED]], %[[X]]
// CHECK-NOT: math.log
// CHECK: arith.subf %{{.*}}, %[[LN2X24]]
// CHECK: return
func.func @log_subnormal(%x: f32) -> f32 {
  %l = math.log %x : f32
  return %l : f32
}

// -----

// Other element types and functions are left to math-to-llvm and libm.
// CHECK-LABEL: func.func @untouched
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f32
func.func @untouched(%x: f64, %y: f32) -> (f64, f32) {
  %e = math.exp %x : f64
  %s = math.sin %y : f32
  return %e, %s : f64, f32
}
