// RUN: ms-opt %s -ms-cuda-contract-multiply-adds -split-input-file | FileCheck %s

// In a launch: a sum of a product nothing else uses is fused (its other
// flags kept), as is a difference; a product used twice, or only by a
// multiply, is not; of two products summed, the first.
// CHECK-LABEL: func.func @launch(
// CHECK: gpu.launch
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %[[P]] fastmath<nnan,contract> : f32
// CHECK: %[[Q:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.subf %[[Q]], %{{.*}} fastmath<contract> : f32
// CHECK: %[[TWICE:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[TWICE]] : f32
// CHECK: arith.mulf %[[TWICE]], %{{.*}} : f32
// CHECK: %[[FIRST:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: %[[SECOND:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %[[FIRST]], %[[SECOND]] fastmath<contract> : f32
// CHECK: gpu.terminator
func.func @launch(%m: memref<4xf32>, %a: f32, %b: f32, %c: f32) {
  %one = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %one, %sy = %one, %sz = %one) {
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p fastmath<nnan> : f32
    %q = arith.mulf %s, %b : f32
    %d = arith.subf %q, %c : f32
    %twice = arith.mulf %d, %a : f32
    %e = arith.addf %c, %twice : f32
    %f = arith.mulf %twice, %e : f32
    %first = arith.mulf %f, %a : f32
    %second = arith.mulf %f, %b : f32
    %g = arith.addf %first, %second : f32
    %i = arith.constant 0 : index
    memref.store %g, %m[%i] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

// Kernels outlined as gpu.func are fused too; host code is left alone.
// CHECK-LABEL: func.func @host(
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[P]] : f32
// CHECK-LABEL: gpu.func @kernel(
// CHECK: %[[Q:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f16
// CHECK: arith.addf %{{.*}}, %[[Q]] fastmath<contract> : f16
module attributes {gpu.container_module} {
  func.func @host(%a: f32, %b: f32) -> f32 {
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %a, %p : f32
    return %s : f32
  }
  gpu.module @kernels {
    gpu.func @kernel(%m: memref<4xf16>, %a: f16, %b: f16) kernel {
      %p = arith.mulf %a, %b : f16
      %s = arith.addf %a, %p : f16
      %i = arith.constant 0 : index
      memref.store %s, %m[%i] : memref<4xf16>
      gpu.return
    }
  }
}
