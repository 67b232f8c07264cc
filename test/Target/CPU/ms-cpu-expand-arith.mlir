// RUN: ms-opt %s --ms-cpu-expand-arith | FileCheck %s

// Division rounding up or down and bf16 conversions become arithmetic that
// LLVM has instructions for.
// CHECK-LABEL: func.func @expanded
// CHECK-NOT: arith.floordivsi
// CHECK-NOT: arith.ceildivsi
// CHECK-NOT: arith.truncf
// CHECK: arith.divsi
// CHECK: return
func.func @expanded(%a: i64, %b: i64, %x: f32) -> (i64, i64, bf16) {
  %q = arith.floordivsi %a, %b : i64
  %c = arith.ceildivsi %a, %b : i64
  %h = arith.truncf %x : f32 to bf16
  return %q, %c, %h : i64, i64, bf16
}

// Float and integer min and max are kept (arith-to-llvm makes them LLVM
// intrinsics, whose reductions LLVM vectorizes).
// CHECK-LABEL: func.func @kept
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK: arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK-NOT: arith.select
func.func @kept(%v: vector<16xf32>, %w: vector<16xf32>, %x: f32, %y: f32, %a: i64, %b: i64) -> (vector<16xf32>, f32, f32, i64) {
  %0 = arith.maximumf %v, %w : vector<16xf32>
  %1 = arith.minimumf %x, %y : f32
  %2 = arith.maxnumf %x, %y : f32
  %3 = arith.maxsi %a, %b : i64
  return %0, %1, %2, %3 : vector<16xf32>, f32, f32, i64
}
