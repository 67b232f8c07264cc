//===- Compiler.cpp - the ms compiler facade ------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/Compiler.h"

#include "ms/Dialect/Exec/Transforms/Passes.h"
#include "ms/ModuleFile/ModuleWriter.h"
#include "ms/Support/Progress.h"

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
  PassManager pm(module.getContext());
  if (driver.configurePassManager &&
      failed(driver.configurePassManager(pm)))
    return failure();
  std::string error;
  CompileOptions phases = options;
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
       << ": graph, fusion, kernels and plan; no code generated\n";
    for (auto plan : module.getOps<exec::PlanOp>()) {
      printKernelReport(module, plan, os);
      exec::printMemoryReport(plan, os);
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
