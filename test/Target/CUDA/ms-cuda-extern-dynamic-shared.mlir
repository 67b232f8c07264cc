// RUN: ms-opt %s --pass-pipeline='builtin.module(gpu.module(ms-cuda-extern-dynamic-shared))' | FileCheck %s

// The lowering's internal zero-length shared global becomes an external
// declaration (PTX's `.extern .shared` array); static shared buffers,
// globals of other address spaces and initialized ones stay as they are.
// The array is at least 16-byte aligned, what the driver guarantees.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
// CHECK: llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
gpu.module @kernels {
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @static_tile() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
  llvm.mlir.global internal @empty_global() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.func @k() {
    %0 = llvm.mlir.addressof @__dynamic_shmem__0 : !llvm.ptr<3>
    llvm.return
  }
}
