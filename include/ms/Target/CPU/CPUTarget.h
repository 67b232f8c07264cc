//===- CPUTarget.h - kernels to a native shared object ----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The CPU backend: lowers outlined kernels (functions on tensors) through
// linalg, one-shot bufferization and OpenMP-parallel loops to the LLVM
// dialect, adds the `void ms_kernel_<N>(void **args)` entry points the
// runtime calls, and compiles the result with an LLVM TargetMachine into an
// object that lld links into an ELF shared object.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_CPU_CPUTARGET_H
#define MS_TARGET_CPU_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace mlir::ms {

/// Options of the CPU backend.
struct CpuTargetOptions {
  /// LLVM CPU name; "native" means the host CPU with all its features
  /// (AVX-512 where present); "x86-64" is the portable baseline.
  std::string cpu = "native";
  /// LLVM optimization level of the generated code (0-3).
  unsigned optLevel = 3;
};

/// Adds msgraph -> linalg conversion and cleanups.
void buildCpuLinalgPipeline(OpPassManager &pm);
/// Adds bufferization (kernel results become out-params) and deallocation.
void buildCpuBufferizationPipeline(OpPassManager &pm);
/// Adds lowering of bufferized kernels to the LLVM dialect (parallel loops
/// through OpenMP, bare-pointer calling convention).
void buildCpuLLVMPipeline(OpPassManager &pm);

/// Adds `ms_kernel_<i>(void **args)` wrappers that call the LLVM function
/// `kernelSymbols[i]` with args[0..n-1], and makes the callees internal.
LogicalResult addKernelEntryPoints(ModuleOp module,
                                   ArrayRef<std::string> kernelSymbols);

/// Translates an LLVM-dialect module to LLVM IR, optimizes it for the
/// target, emits an object and links it with lld into a shared object.
/// Returns the shared object's bytes. When `llvmIr` is set, the optimized IR
/// text is stored there and no object is produced.
FailureOr<std::string> emitCpuSharedObject(ModuleOp module,
                                           const CpuTargetOptions &options,
                                           std::string *llvmIr = nullptr);

} // namespace mlir::ms

#endif // MS_TARGET_CPU_CPUTARGET_H
