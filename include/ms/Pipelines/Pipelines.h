//===- Pipelines.h - the one compile pipeline -------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Every entry point (ms-compile, ms-opt's named pipelines, the Python
// package) compiles through buildCompilePipeline: one pass pipeline whose
// phases are
//
//   graph      shape inference, the entry's refined signature
//   kernels    partitioning into kernels (O0 and O2: one per op)
//   plan       msexec plan and executable, memory planning, offloaded
//              graphs (O2)
//   <codegen>  the target's phases (CPU: linalg, bufferized, llvm)
//   <text>     the target's readable output (CPU: llvmir), only as a stop
//   serialize  executables become binaries
//
// after which writeModuleFile packs the module file.
//
//===----------------------------------------------------------------------===//

#ifndef MS_PIPELINES_PIPELINES_H
#define MS_PIPELINES_PIPELINES_H

#include "ms/Target/TargetBackend.h"

#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace mlir::ms {
/// CompileOptions::multiCopy asking compileModule to pick the number.
constexpr int64_t kMultiCopyAuto = 0;

/// Options of one compilation.
struct CompileOptions {
  /// 0: one kernel per op, run kernel by kernel; 2: the whole graph as one
  /// offloaded unit. 1 (fusion) is not built yet.
  int optLevel = 0;
  /// A registered target backend ("cpu").
  std::string target = "cpu";
  /// Options for the target's code generation.
  TargetOptions targetOptions;
  /// Stop after this phase (see getCompilePhases); empty: run them all.
  std::string compileTo;
  /// Entry function (default: @main, or the only public function).
  std::string entry;
  /// The module is compiled for a mesh of devices (it has `msdist.mesh`):
  /// the `dist` phase partitions it into one program per rank.
  bool sharded = false;
  /// Multi-copy parallelism of a sharded compile: the regions around
  /// collectives are split into this many copies (1: not split;
  /// kMultiCopyAuto: compileModule picks 1, 2 or 4 by simulating each).
  int64_t multiCopy = 1;
  /// Remark how each collective's region was split and why regions stop.
  bool multiCopyReport = false;
};

/// Returns the phases of a compilation for `target`, in order, or an empty
/// list when the target is not built.
std::vector<std::string> getCompilePhases(StringRef target);

/// Checks `options`: the target is built, the level, phase and target
/// options (the CPU) exist. Fails with a message in `error`.
LogicalResult verifyCompileOptions(const CompileOptions &options,
                                   std::string &error);

/// Adds the whole compilation described by `options` to `pm` (anchored on
/// a builtin.module). Fails, with a message in `error`, on an unknown
/// target, level or phase. With `phaseStarts`, appends for each phase that
/// added passes the index in `pm` of its first top-level pass and its name.
LogicalResult buildCompilePipeline(
    OpPassManager &pm, const CompileOptions &options, std::string &error,
    std::vector<std::pair<size_t, std::string>> *phaseStarts = nullptr);

/// Registers one named pipeline per target and level, `ms-<target>-O<n>`
/// (options: compile-to, target-cpu), so that ms-opt replays what
/// ms-compile does.
void registerCompilePipelines();

} // namespace mlir::ms

#endif // MS_PIPELINES_PIPELINES_H
