//===- TargetBackend.h - the interface every code generator implements -*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A target backend turns the kernels of an `msexec.executable` into device
// code: it contributes the code generation phases of the compile pipeline
// and serializes the result into a module-file section. Backends register
// under their name ("cpu"); the pipeline builder looks them up, so adding a
// target means adding lib/Target/<T>/ and one registration call in InitAll.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_TARGETBACKEND_H
#define MS_TARGET_TARGETBACKEND_H

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Dialect/Exec/IR/ExecOps.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::ms {

/// Options every backend reads.
struct TargetOptions {
  /// LLVM CPU name; "native" means the host with all its features.
  std::string cpu = "native";
  /// LLVM optimization level of the generated code (0-3).
  unsigned llvmOptLevel = 3;
  /// Directory of the kernel cache (KernelCache); empty: no cache.
  std::string cacheDir;
  /// CUDA architecture the cuda target generates PTX for (sm_90a, sm_80).
  std::string cudaArch = "sm_90a";
  /// Whether the cuda target's wgmma products (sm_90a) load the operands a
  /// tensor map can describe by TMA; false: by cp.async, as on sm_80.
  bool cudaTma = true;
  /// Whether a warp of its own issues the cuda target's TMA loads (warp
  /// specialization); false: thread 0 does, between its products.
  bool cudaProducerWarp = true;
  /// Whether the cuda target's large TMA products from a producer warp take
  /// 128 x 256 tiles (one block a multiprocessor); false: 128 x 128.
  bool cudaWideTiles = false;
  /// The blocks the cuda target's TMA products from a producer warp launch
  /// when they have more tiles, each walking the tiles that many apart
  /// (persistent blocks); 0: a block a tile.
  unsigned cudaPersistentBlocks = 0;
  /// Precision in which matmuls multiply: empty for the target's default
  /// (the first of TargetBackend::getPrecisions), "f32", "tf32" (operands
  /// rounded to TensorFloat-32's 10 fraction bits, products summed in f32),
  /// "bf16" (rounded to bfloat16) or "f16" (rounded to IEEE half);
  /// buildCompilePipeline resolves it before the backend sees it, and
  /// rejects one the target does not compute in.
  std::string precision;
};

/// A code generator for one kind of device.
class TargetBackend {
public:
  virtual ~TargetBackend() = default;

  /// The name `--target` selects and executables record ("cpu").
  virtual StringRef getName() const = 0;
  /// The module-file section the binary goes into ("cpu-elf").
  virtual StringRef getBinaryFormat() const = 0;
  /// Checks `options` (e.g. that the CPU exists); fails with `error`.
  virtual LogicalResult verifyOptions(const TargetOptions &options,
                                      std::string &error) const {
    return success();
  }
  /// Whether the backend compiles at optimization level `level` (0-2).
  virtual bool supportsOptLevel(int level) const { return true; }
  /// The TargetOptions::precision values the backend compiles with, its
  /// default first.
  virtual ArrayRef<StringRef> getPrecisions() const {
    static const StringRef precisions[] = {"f32"};
    return precisions;
  }
  /// Returns the device features code generated with `options` needs (for
  /// the CPU: names of format::kCpuFeatures), which the runtime checks the
  /// device for before loading it.
  virtual std::vector<std::string>
  getRequirements(const TargetOptions &options) const {
    return {};
  }
  /// Whether the target runs `msgraph.attention` as its matmuls and softmax
  /// (msgraph-decompose-attention, before fusion) rather than as one fused
  /// kernel.
  virtual bool decomposesAttention() const { return false; }
  /// Adds the target's passes on the outlined kernels and their callers
  /// (phase "kernels", before the plan is built): layouts the target's
  /// kernels want for constant operands, made once at compile time.
  virtual void buildKernelPhase(OpPassManager &pm,
                                const TargetOptions &options) const {}
  /// The code generation phases, in order (each can end a compilation
  /// with --compile-to).
  virtual ArrayRef<StringRef> getCodegenPhases() const = 0;
  /// Adds the passes of `phase` to `pm`, anchored on the top-level module.
  virtual void buildCodegenPhase(StringRef phase, OpPassManager &pm,
                                 const TargetOptions &options) const = 0;
  /// Serializes the lowered kernels of `executable` into the binary, or
  /// with `textual` into a readable form. Emits errors on `executable`.
  virtual FailureOr<std::string> serialize(exec::ExecutableOp executable,
                                           const TargetOptions &options,
                                           bool textual) const = 0;
};

/// Adds the lowering of an executable's kernels (anchored on its module)
/// from msgraph to linalg, with a fused group's ops fused into as few loop
/// nests as possible, as `lowering` chooses. Every backend starts its
/// kernels this way.
void buildKernelLinalgPipeline(
    OpPassManager &pm, const ConvertGraphToLinalgPassOptions &lowering = {});

/// Adds one-shot bufferization of the kernels of an executable's module
/// (anchored on it): kernel results become out-params, temporaries are
/// deallocated. Every backend's kernels are bufferized alike.
void buildKernelBufferizationPipeline(OpPassManager &pm);

/// Adds the passes of phase "linalg" (buildKernelLinalgPipeline) or
/// "bufferized" (buildKernelBufferizationPipeline), which every backend's
/// kernels go through, to `kernels` (anchored on an executable's module);
/// returns false, adding nothing, for another phase.
bool buildSharedKernelPhase(StringRef phase, OpPassManager &kernels);

/// Registers `backend` under its name (once per process; a second backend
/// of the same name is ignored).
void registerTargetBackend(std::unique_ptr<TargetBackend> backend);
/// Returns the backend named `name`, or null.
const TargetBackend *lookupTargetBackend(StringRef name);
/// Returns the names of the registered backends, sorted.
std::vector<std::string> getRegisteredTargetBackends();

#define GEN_PASS_DECL
#include "ms/Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ms/Target/Passes.h.inc"

} // namespace mlir::ms

#endif // MS_TARGET_TARGETBACKEND_H
