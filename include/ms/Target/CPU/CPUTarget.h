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

/// The argument attribute that marks a kernel's conv weight `[M, C, K...]`
/// stored in bfloat16 for bf16 pair contractions (`ms-cpu-pack-weights
/// precision=bf16`), which `ms-cpu-contraction-kernels` reads in place of
/// the weight: as pair panels `[M / 32, (C / 2) K..., 64]` (element `[p, i,
/// 2j + t]` is the weight at output channel 32p + j, input channel 2c + t
/// and window position r for i = c K... + r: pairs of input channels, for a
/// conv that reads its input in place), or as rows `[M, C K...]` (pairs
/// along the merged reduction, for an im2col conv; `[M, C K... + 1]`, each
/// row ending in a zero, when C K... is odd).
inline constexpr llvm::StringLiteral kConvPairsAttrName = "ms.conv_pairs";

/// The attribute (a symbol reference) on a variant's copy of an executable
/// (`ms-cpu-executable-variants`) naming the executable the plan's launches
/// refer to, whose entry points the copy exports too.
inline constexpr llvm::StringLiteral kVariantOfAttrName = "ms.variant_of";

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
