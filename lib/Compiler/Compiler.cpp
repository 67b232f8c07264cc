//===- Compiler.cpp - the ms compiler facade ------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/Compiler.h"

#include "ms/Dialect/Dist/IR/DistOps.h"
#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/Dialect/Exec/Transforms/Simulate.h"
#include "ms/ModuleFile/ModuleWriter.h"
#include "ms/Support/Progress.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::ms;

/// Prints each kernel of `plan`'s executables that it launches, with its
/// source ops and how many times one run launches it.
static void printKernelReport(ModuleOp module, exec::PlanOp plan,
                              llvm::raw_ostream &os) {
  llvm::MapVector<StringRef, std::pair<StringRef, int64_t>> launches;
  plan.walk([&](exec::LaunchOp launch) {
    auto &[ops, count] = launches[launch.getKernel().getLeafReference()];
    if (launch.getSourceOp())
      ops = *launch.getSourceOp();
    ++count;
  });
  int64_t total = 0;
  size_t width = 0;
  for (auto &[name, entry] : launches) {
    total += entry.second;
    width = std::max(width, name.size());
  }
  os << "kernels: " << launches.size() << " distinct, " << total
     << " launches per run\n";
  for (auto &[name, entry] : launches)
    os << "  " << name << std::string(width - name.size(), ' ')
       << llvm::formatv(" {0,4} x  {1}\n", entry.second, entry.first);
}

/// Prints what each rank of a sharded plan sends and receives per run: each
/// collective's count, group size and bytes per rank (the size of the
/// tensor it contributes, which bandwidth-optimal algorithms move about
/// twice for all_reduce and once for the others).
static void printCommunicationReport(exec::PlanOp plan, llvm::raw_ostream &os) {
  struct Entry {
    int64_t count = 0, bytes = 0;
  };
  llvm::MapVector<std::pair<StringRef, int64_t>, Entry> entries;
  int64_t total = 0;
  plan.walk([&](exec::CollectiveOp op) {
    int64_t groupSize = 1;
    if (!op.getGroups().empty())
      groupSize = cast<DenseI64ArrayAttr>(op.getGroups()[0]).size();
    int64_t bytes =
        cast<exec::BufferType>(op.getSource().getType()).getStaticByteSize();
    Entry &entry = entries[{op.getOp(), groupSize}];
    ++entry.count;
    entry.bytes += bytes;
    if (op.getOp() != "all_slice")
      total += bytes;
  });
  os << "ranks: " << plan.getRanks().value_or(1)
     << " (one program each; the memory report is per rank)\n";
  os << "collectives per rank per run: " << total
     << " bytes contributed (all_slice moves none)\n";
  for (auto &[key, entry] : entries) {
    // An all_slice keeps a block of what the rank holds: a local copy.
    if (key.first == "all_slice") {
      os << llvm::formatv("  {0,-15} {1,4} x  local copies, nothing sent\n",
                          key.first, entry.count);
      continue;
    }
    os << llvm::formatv("  {0,-15} {1,4} x  groups of {2}, {3} bytes\n",
                        key.first, entry.count, key.second, entry.bytes);
  }
}

/// The number of copies `--multi-copy auto` picks for `module`: the
/// candidates' plans (dry runs of copies of the module) replayed on the
/// target's simulation preset, the fastest step winning, fewer copies on a
/// tie within 2%. A candidate that does not compile is skipped silently
/// (the real compile reports what is wrong with the model).
static FailureOr<int64_t> chooseCopies(ModuleOp module,
                                       const CompileOptions &options) {
  std::string error;
  FailureOr<exec::SimPreset> preset = exec::lookupSimPreset(
      options.target == "cuda" ? "h100-nvlink" : "cpu", error);
  if (failed(preset))
    return emitError(module.getLoc(), error);
  int64_t best = 1;
  double bestSec = -1;
  std::string summary;
  llvm::raw_string_ostream line(summary);
  for (int64_t copies : {1, 2, 4}) {
    OwningOpRef<ModuleOp> candidate = module.clone();
    CompileOptions trial = options;
    trial.multiCopy = copies;
    trial.multiCopyReport = false;
    trial.compileTo = "plan";
    PassManager pm(module.getContext());
    if (failed(buildCompilePipeline(pm, trial, error)))
      return emitError(module.getLoc(), error);
    double stepSec = 0;
    bool ok;
    {
      ScopedDiagnosticHandler quiet(module.getContext(),
                                    [](Diagnostic &) { return success(); });
      ok = succeeded(pm.run(*candidate));
      for (auto plan : candidate->getOps<exec::PlanOp>()) {
        if (!ok)
          break;
        FailureOr<exec::SimResult> result = exec::simulatePlan(plan, *preset);
        ok = succeeded(result);
        if (ok)
          stepSec += result->stepSec;
      }
    }
    line << (copies == 1 ? "" : ", ") << copies << ": ";
    if (!ok) {
      line << "does not compile";
      continue;
    }
    line << llvm::formatv("{0:F1}", stepSec * 1e6) << " us";
    if (bestSec < 0 || stepSec < bestSec * 0.98) {
      best = copies;
      bestSec = stepSec;
    }
  }
  if (options.multiCopyReport)
    emitRemark(module.getLoc())
        << "multi-copy auto on the " << preset->name
        << " model, simulated step per number of copies (" << summary
        << "): " << best;
  return best;
}

namespace {
/// Reports each phase as its first top-level pass starts.
class PhaseProgress : public PassInstrumentation {
public:
  explicit PhaseProgress(llvm::DenseMap<Pass *, std::string> starts)
      : starts(std::move(starts)) {}
  void runBeforePass(Pass *pass, Operation *) override {
    auto it = starts.find(pass);
    if (it != starts.end())
      reportProgress({it->second});
  }

private:
  llvm::DenseMap<Pass *, std::string> starts;
};
} // namespace

FailureOr<std::string> mlir::ms::compileModule(ModuleOp module,
                                               const CompileOptions &options,
                                               const DriverOptions &driver,
                                               llvm::raw_ostream &os) {
  // The simulation replays the plan of a dry run (its kernels are still
  // msgraph ops, which give their FLOPs).
  std::optional<exec::SimPreset> simulation;
  if (!driver.simulatePreset.empty()) {
    if (!driver.dryRun)
      return emitError(module.getLoc(),
                       "expected a dry run with a simulation preset, but "
                       "found a full compilation");
    std::string error;
    FailureOr<exec::SimPreset> preset =
        exec::lookupSimPreset(driver.simulatePreset, error);
    if (failed(preset))
      return emitError(module.getLoc(), error);
    simulation = *preset;
  }
  PassManager pm(module.getContext());
  if (driver.configurePassManager &&
      failed(driver.configurePassManager(pm)))
    return failure();
  std::string error;
  CompileOptions phases = options;
  phases.sharded = module->hasAttr(dist::kMeshAttrName);
  if (phases.multiCopy == kMultiCopyAuto) {
    phases.multiCopy = 1;
    // A stop before the dist phase splits nothing.
    if (phases.sharded && phases.compileTo != "graph") {
      FailureOr<int64_t> copies = chooseCopies(module, phases);
      if (failed(copies))
        return failure();
      phases.multiCopy = *copies;
    }
  }
  if (driver.dryRun)
    phases.compileTo = "plan";
  std::vector<std::pair<size_t, std::string>> phaseStarts;
  if (failed(buildCompilePipeline(pm, phases, error, &phaseStarts)))
    return emitError(module.getLoc(), error);
  if (isProgressReported()) {
    SmallVector<Pass *> passes =
        llvm::map_to_vector(pm.getPasses(), [](Pass &pass) { return &pass; });
    llvm::DenseMap<Pass *, std::string> starts;
    for (auto &[index, phase] : phaseStarts)
      starts[passes[index]] = phase;
    pm.addInstrumentation(std::make_unique<PhaseProgress>(std::move(starts)));
  }
  if (failed(pm.run(module)))
    return failure();
  if (driver.dryRun) {
    os << "dry run at -O" << options.optLevel << " for " << options.target
       << ": graph, " << (phases.sharded ? "dist, " : "")
       << "fusion, kernels and plan; no code generated\n";
    for (auto plan : module.getOps<exec::PlanOp>()) {
      printKernelReport(module, plan, os);
      if (plan.getRanks())
        printCommunicationReport(plan, os);
      exec::printMemoryReport(plan, os);
      if (!simulation)
        continue;
      FailureOr<exec::SimResult> result = exec::simulatePlan(plan, *simulation);
      if (failed(result))
        return failure();
      exec::printSimulation(*simulation, *result, os);
      if (std::string error;
          !driver.simulateTrace.empty() &&
          failed(exec::writeSimulationTrace(*simulation, *result,
                                            driver.simulateTrace, error)))
        return emitError(plan.getLoc(), "cannot write the simulation trace: ")
               << error;
    }
    return std::string();
  }
  if (driver.memoryReport)
    for (auto plan : module.getOps<exec::PlanOp>())
      if (plan.getArenaSize())
        exec::printMemoryReport(plan, os);
  if (options.compileTo.empty())
    return driver.moduleBytes ? writeModuleFile(module)
                              : FailureOr<std::string>(std::string());
  // The target's text phase: print the text itself.
  bool textual = false;
  for (auto binary : module.getOps<exec::BinaryOp>()) {
    if (binary.getFormat() != "llvm-ir")
      continue;
    os << binary.getData();
    textual = true;
  }
  if (textual)
    return std::string();
  module.print(os);
  os << "\n";
  return std::string();
}
