//===- CPUTarget.h - the CPU target backend ---------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The CPU backend: lowers the kernels of a `cpu` executable through linalg,
// one-shot bufferization and OpenMP-parallel loops to the LLVM dialect, adds
// the entry points the runtime calls (`ms-cpu-emit-entry-points`), and
// compiles the result with an LLVM TargetMachine into an object that lld
// links into an ELF shared object (the module file's cpu-elf section).
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CPU_CPUTARGET_H
#define MS_TARGET_CPU_CPUTARGET_H

#include "ms/Target/TargetBackend.h"

namespace mlir::ms {

/// Registers the CPU backend as "cpu".
void registerCPUTargetBackend();

/// The register block of the contraction kernels for one CPU.
struct CPUKernelShape {
  /// f32 lanes of one vector register.
  int64_t lanes;
  /// Most rows of C a block holds.
  int64_t rows;
  /// Whether the CPU has bf16 dot products (AVX512-BF16's vdpbf16ps).
  bool bf16Dot;
};

/// Columns of one panel of a constant matmul weight stored in panels
/// (`ms-cpu-pack-weights`): a whole number of register blocks of columns
/// (one of AVX-512's, two of AVX2's).
inline constexpr int64_t kMatmulWeightPanel = 32;

/// The argument attribute that marks a kernel's conv weight stored as its
/// Winograd F(2x2, 3x3) transform `[16, M, C]` (`ms-cpu-pack-weights`),
/// which `ms-cpu-winograd-convs` reads in place of the weight.
inline constexpr llvm::StringLiteral kWinogradFilterAttrName =
    "ms.winograd_filter";

/// Returns the register block for the vector registers of CPU `cpu`
/// ("native": the host's, else an LLVM CPU name); fails with `error` for a
/// name LLVM does not know.
FailureOr<CPUKernelShape> getCPUKernelShape(StringRef cpu, std::string &error);

#define GEN_PASS_DECL
#include "ms/Target/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ms/Target/CPU/Passes.h.inc"

} // namespace mlir::ms

#endif // MS_TARGET_CPU_CPUTARGET_H
