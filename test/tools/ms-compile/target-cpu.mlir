// REQUIRES: x86_64-host
// Code for a named CPU uses only that CPU's instruction set, and the module
// says which extensions it needs (the runtime checks the host before
// loading it). x86-64-v3 (AVX2): contraction kernels of 6 rows by two
// 8-lane vectors in ymm registers, no AVX-512 instruction (no zmm, no mask
// register); x86-64-v4: 8 rows by two 16-lane vectors in zmm. Both run on
// this host (e2e/ops/matmul-kernels.mlir and conv-kernels.mlir check their
// results at x86-64-v3).
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v3 -o %t.v3.msm
// RUN: %python %ms_src_root/utils/msm.py %t.v3.msm --extract-cpu-elf %t.v3.so | FileCheck %s --check-prefix=V3
// RUN: llvm-objdump -d %t.v3.so | FileCheck %s --check-prefix=V3-ASM --implicit-check-not=zmm --implicit-check-not="{%%k"
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v3 --compile-to=linalg | FileCheck %s --check-prefix=V3-KERNEL
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v4 -o %t.v4.msm
// RUN: %python %ms_src_root/utils/msm.py %t.v4.msm --extract-cpu-elf %t.v4.so | FileCheck %s --check-prefix=V4
// RUN: llvm-objdump -d %t.v4.so | FileCheck %s --check-prefix=V4-ASM
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v4 --compile-to=linalg | FileCheck %s --check-prefix=V4-KERNEL
// Both in one module, best first: the runtime loads the first the host runs.
// RUN: ms-compile %s -O1 --target-cpu=x86-64-v4,x86-64-v3 -o %t.both.msm
// RUN: %python %ms_src_root/utils/msm.py %t.both.msm | FileCheck %s --check-prefix=BOTH

// V3: cpu-elf {{[0-9]+}} bytes, requires sse3 ssse3 sse4.1 sse4.2 popcnt avx avx2 fma f16c bmi bmi2 lzcnt movbe{{$}}
// V3-ASM: vfmadd{{[0-9]+}}ps {{.*}}%ymm
// V3-KERNEL-COUNT-6: vector.fma {{.*}} : vector<16xf32>
// V3-KERNEL-NOT: vector.fma
// V3-KERNEL: math.tanh {{.*}} : vector<16xf32>

// V4: cpu-elf {{[0-9]+}} bytes, requires {{.*}} avx2 fma {{.*}} avx512f avx512cd avx512bw avx512dq avx512vl{{$}}
// V4-ASM: vfmadd{{[0-9]+}}ps {{.*}}%zmm
// V4-KERNEL-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// V4-KERNEL-NOT: vector.fma
// V4-KERNEL: math.tanh {{.*}} : vector<32xf32>
// BOTH: meta
// BOTH-NEXT: weights
// BOTH-NEXT: cpu-elf {{.*}} avx512vl{{$}}
// BOTH-NEXT: cpu-elf {{.*}} movbe{{$}}
func.func @main(%a: tensor<48x64xf32>, %b: tensor<64x64xf32>) -> tensor<48x64xf32> {
  %0 = msgraph.matmul %a, %b : (tensor<48x64xf32>, tensor<64x64xf32>) -> tensor<48x64xf32>
  %1 = msgraph.tanh %0 : tensor<48x64xf32>
  return %1 : tensor<48x64xf32>
}
