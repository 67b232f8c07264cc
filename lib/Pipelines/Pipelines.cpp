//===- Pipelines.cpp - the one compile pipeline ---------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Pipelines/Pipelines.h"

#include "ms/Dialect/Dist/Transforms/Passes.h"
#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/Dialect/Fusion/Transforms/Passes.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"

#include <deque>

using namespace mlir;
using namespace mlir::ms;

/// The target-independent phases before code generation.
static const char *const kFrontPhases[] = {"graph", "dist", "fusion", "kernels",
                                           "plan"};
/// The phase that ends a compilation with the target's readable output.
static const char kTextPhase[] = "llvmir";
/// The last phase.
static const char kSerializePhase[] = "serialize";

std::vector<std::string> mlir::ms::getCompilePhases(StringRef target) {
  const TargetBackend *backend = lookupTargetBackend(target);
  if (!backend)
    return {};
  std::vector<std::string> phases(std::begin(kFrontPhases),
                                  std::end(kFrontPhases));
  for (StringRef phase : backend->getCodegenPhases())
    phases.push_back(phase.str());
  phases.push_back(kTextPhase);
  phases.push_back(kSerializePhase);
  return phases;
}

/// "a, b or c".
static std::string joinAlternatives(ArrayRef<StringRef> names) {
  if (names.size() < 2)
    return names.empty() ? "" : names.front().str();
  return llvm::join(names.drop_back(), ", ") + " or " + names.back().str();
}

LogicalResult mlir::ms::verifyCompileOptions(const CompileOptions &options,
                                             std::string &error) {
  const TargetBackend *backend = lookupTargetBackend(options.target);
  if (!backend) {
    error = "target '" + options.target +
            "' is not built into this compiler; built targets: " +
            llvm::join(getRegisteredTargetBackends(), ", ");
    return failure();
  }
  if (options.optLevel < 0 || options.optLevel > 2) {
    error = "unknown optimization level -O" + std::to_string(options.optLevel) +
            "; expected -O0, -O1 or -O2";
    return failure();
  }
  if (!backend->supportsOptLevel(options.optLevel)) {
    error = "target '" + options.target + "' does not compile at -O" +
            std::to_string(options.optLevel) + " yet";
    return failure();
  }
  if (options.multiCopy < kMultiCopyAuto || options.multiCopy > 64) {
    error = "expected a number of copies from 1 to 64 (or auto), found " +
            std::to_string(options.multiCopy);
    return failure();
  }
  StringRef precision = options.targetOptions.precision;
  // The names some target computes in.
  llvm::SetVector<StringRef> known;
  for (const std::string &name : getRegisteredTargetBackends())
    for (StringRef each : lookupTargetBackend(name)->getPrecisions())
      known.insert(each);
  if (!precision.empty() && !known.contains(precision)) {
    error = "expected --precision " + joinAlternatives(known.getArrayRef()) +
            ", found '" + precision.str() + "'";
    return failure();
  }
  ArrayRef<StringRef> precisions = backend->getPrecisions();
  if (!precision.empty() && !llvm::is_contained(precisions, precision)) {
    error = "target '" + options.target + "' does not multiply in " +
            precision.str() + ": expected --precision " +
            joinAlternatives(precisions);
    return failure();
  }
  std::vector<std::string> phases = getCompilePhases(options.target);
  StringRef stop = options.compileTo;
  if (!stop.empty() && !llvm::is_contained(phases, stop)) {
    error = "unknown phase '" + stop.str() + "'; expected one of " +
            llvm::join(phases, ", ");
    return failure();
  }
  return backend->verifyOptions(options.targetOptions, error);
}

LogicalResult mlir::ms::buildCompilePipeline(
    OpPassManager &pm, const CompileOptions &options, std::string &error,
    std::vector<std::pair<size_t, std::string>> *phaseStarts) {
  if (failed(verifyCompileOptions(options, error)))
    return failure();
  const TargetBackend *backend = lookupTargetBackend(options.target);
  std::vector<std::string> phases = getCompilePhases(options.target);
  StringRef stop = options.compileTo;
  // The backend sees the precision it computes in, never the default's
  // empty name.
  TargetOptions targetOptions = options.targetOptions;
  if (targetOptions.precision.empty())
    targetOptions.precision = backend->getPrecisions().front().str();

  for (const std::string &phase : phases) {
    size_t start = pm.size();
    if (phase == "graph") {
      // Code generation needs static shapes.
      pm.addNestedPass<func::FuncOp>(graph::createInferShapesPass());
      pm.addPass(createRefineEntrySignaturePass({options.entry}));
    } else if (phase == "dist") {
      // A sharded compile: one SPMD program over the mesh, with collectives.
      if (options.sharded) {
        pm.addPass(dist::createMaterializePass({options.entry}));
        // Forward first: layouts flow from the annotated weights and inputs
        // through the layers; results take what reaches them.
        shard::ShardingPropagationOptions propagation;
        propagation.traversal = shard::TraversalOrder::ForwardBackward;
        pm.addNestedPass<func::FuncOp>(
            shard::createShardingPropagation(propagation));
        pm.addNestedPass<func::FuncOp>(dist::createDecomposeReshardsPass());
        pm.addNestedPass<func::FuncOp>(shard::createPartition());
        pm.addNestedPass<func::FuncOp>(dist::createCombineCollectivesPass());
        // Upstream reshards each use apart: one gather per user.
        pm.addNestedPass<func::FuncOp>(createCSEPass());
        pm.addNestedPass<func::FuncOp>(graph::createInferShapesPass());
        if (options.multiCopy > 1)
          pm.addNestedPass<func::FuncOp>(dist::createMultiCopyPass(
              {options.multiCopy, options.multiCopyReport}));
      }
    } else if (phase == "fusion") {
      // O1 compiles each group as one kernel; O2 offloads those kernels.
      if (options.optLevel >= 1)
        pm.addNestedPass<func::FuncOp>(fusion::createRaiseAttentionPass());
      if (backend->decomposesAttention())
        pm.addNestedPass<func::FuncOp>(graph::createDecomposeAttentionPass());
      if (options.optLevel >= 1) {
        // Raising attention in several places (multi-copy: one attention per
        // copy on the same keys) repeats the ops that feed it.
        pm.addNestedPass<func::FuncOp>(createCSEPass());
        pm.addPass(fusion::createFormGroupsPass({options.entry}));
      }
    } else if (phase == "kernels") {
      pm.addPass(createOutlineKernelsPass({options.entry}));
      pm.addPass(createDeduplicateKernelsPass());
      backend->buildKernelPhase(pm, targetOptions);
    } else if (phase == "plan") {
      pm.addPass(exec::createBuildPlanPass(
          {options.entry, options.target, options.optLevel}));
      OpPassManager &plan = pm.nest<exec::PlanOp>();
      // Collectives communicate on their own queue while queue 0 computes.
      if (options.sharded)
        plan.addPass(exec::createOverlapCollectivesPass());
      plan.addPass(exec::createPlanMemoryPass());
      if (options.optLevel == 2)
        plan.addPass(exec::createOffloadGraphPass());
    } else if (phase == kTextPhase) {
      if (stop == kTextPhase)
        pm.addPass(createSerializeExecutablesPass(
            {options.targetOptions.cpu, /*cacheDir=*/"",
             options.targetOptions.cudaArch, /*textual=*/true}));
    } else if (phase == kSerializePhase) {
      pm.addPass(createSerializeExecutablesPass(
          {options.targetOptions.cpu, options.targetOptions.cacheDir,
           options.targetOptions.cudaArch, /*textual=*/false}));
      // Identical layers' steps are written once (the offloaded graphs of
      // O2 already call one function per layer).
      pm.addPass(exec::createOutlineRepeatedStepsPass());
    } else {
      backend->buildCodegenPhase(phase, pm, targetOptions);
    }
    if (phaseStarts && pm.size() > start)
      phaseStarts->emplace_back(start, phase);
    if (phase == stop)
      break;
  }
  return success();
}

namespace {
/// Options of the named pipelines.
struct NamedPipelineOptions
    : public PassPipelineOptions<NamedPipelineOptions> {
  Option<std::string> compileTo{*this, "compile-to",
                                llvm::cl::desc("Stop after this phase")};
  Option<std::string> targetCpu{
      *this, "target-cpu", llvm::cl::desc("CPU to generate code for"),
      llvm::cl::init("native")};
  Option<std::string> cudaArch{
      *this, "cuda-arch",
      llvm::cl::desc("CUDA architecture to generate PTX for"),
      llvm::cl::init("sm_90a")};
  Option<bool> cudaTma{
      *this, "cuda-tma",
      llvm::cl::desc("Load wgmma operands by TMA where possible (sm_90a)"),
      llvm::cl::init(true)};
  Option<bool> cudaProducerWarp{
      *this, "cuda-producer-warp",
      llvm::cl::desc("Issue TMA loads from a warp of their own (sm_90a)"),
      llvm::cl::init(true)};
  Option<bool> cudaWideTiles{
      *this, "cuda-wide-tiles",
      llvm::cl::desc("Large TMA products take 128 x 256 tiles (sm_90a)"),
      llvm::cl::init(false)};
  Option<unsigned> cudaPersistentBlocks{
      *this, "cuda-persistent-blocks",
      llvm::cl::desc("TMA products of more tiles launch this many blocks, "
                     "each walking the tiles (sm_90a; 0: a block a tile)"),
      llvm::cl::init(0)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Precision in which matmuls multiply: f32, bf16 or f16 "
                     "(default: the target's, ms-compile --help)"),
      llvm::cl::init("")};
};
} // namespace

void mlir::ms::registerCompilePipelines() {
  static std::deque<std::string> names;
  for (const std::string &target : getRegisteredTargetBackends()) {
    for (int level : {0, 1, 2}) {
      names.push_back("ms-" + target + "-O" + std::to_string(level));
      registerPassPipeline(
          names.back(),
          "The whole ms-compile pipeline for this target and level",
          [target, level](OpPassManager &pm, StringRef text,
                          function_ref<LogicalResult(const Twine &)> fail) {
            NamedPipelineOptions named;
            if (failed(named.parseFromString(text)))
              return failure();
            CompileOptions options;
            options.target = target;
            options.optLevel = level;
            options.compileTo = named.compileTo;
            options.targetOptions.cpu = named.targetCpu;
            options.targetOptions.cudaArch = named.cudaArch;
            options.targetOptions.cudaTma = named.cudaTma;
            options.targetOptions.cudaProducerWarp = named.cudaProducerWarp;
            options.targetOptions.cudaWideTiles = named.cudaWideTiles;
            options.targetOptions.cudaPersistentBlocks =
                named.cudaPersistentBlocks;
            options.targetOptions.precision = named.precision;
            std::string error;
            if (failed(buildCompilePipeline(pm, options, error)))
              return fail(error);
            return success();
          },
          [](function_ref<void(const detail::PassOptions &)> handler) {
            handler(NamedPipelineOptions());
          });
    }
  }
}
