//===- TargetBackend.cpp - backend registry and serialization -------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/TargetBackend.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"

#include <mutex>

namespace mlir::ms {
#define GEN_PASS_DEF_SERIALIZEEXECUTABLESPASS
#include "ms/Target/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// The registered backends.
struct Registry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<TargetBackend>> backends;
};
} // namespace

static Registry &getRegistry() {
  static Registry registry;
  return registry;
}

void mlir::ms::registerTargetBackend(std::unique_ptr<TargetBackend> backend) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::string name = backend->getName().str();
  registry.backends.try_emplace(name, std::move(backend));
}

const TargetBackend *mlir::ms::lookupTargetBackend(StringRef name) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.backends.find(name);
  return it == registry.backends.end() ? nullptr : it->second.get();
}

void mlir::ms::buildKernelLinalgPipeline(
    OpPassManager &pm, const ConvertGraphToLinalgPassOptions &lowering) {
  pm.addPass(createConvertGraphToLinalgPass(lowering));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createFuseKernelOpsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::ms::buildKernelBufferizationPipeline(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Reshapes folded first: a result that is an allocation seen through a
  // collapse and an expand becomes the out-param itself, not a copy.
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
}

std::vector<std::string> mlir::ms::getRegisteredTargetBackends() {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (auto &entry : registry.backends)
    names.push_back(entry.getKey().str());
  llvm::sort(names);
  return names;
}

namespace {
struct SerializeExecutablesPass final
    : ms::impl::SerializeExecutablesPassBase<SerializeExecutablesPass> {
  using SerializeExecutablesPassBase::SerializeExecutablesPassBase;

  void runOnOperation() override {
    TargetOptions options;
    options.cpu = targetCpu;
    options.cacheDir = cacheDir;
    options.cudaArch = cudaArch;
    for (auto executable : llvm::make_early_inc_range(
             getOperation().getOps<exec::ExecutableOp>())) {
      const TargetBackend *backend =
          lookupTargetBackend(executable.getTarget());
      if (!backend) {
        executable.emitError("target '")
            << executable.getTarget() << "' is not built into this compiler";
        return signalPassFailure();
      }
      // A copy of the kernels for one device of several compiles for it.
      TargetOptions variantOptions = options;
      if (std::optional<StringRef> variant = executable.getVariant())
        variantOptions.cpu = variant->str();
      FailureOr<std::string> bytes =
          backend->serialize(executable, variantOptions, textual);
      if (failed(bytes))
        return signalPassFailure();
      OpBuilder b(executable);
      std::vector<std::string> names = backend->getRequirements(variantOptions);
      SmallVector<StringRef> requirements(names.begin(), names.end());
      exec::BinaryOp::create(b, executable.getLoc(), executable.getSymName(),
                             executable.getTarget(),
                             textual ? StringRef("llvm-ir")
                                     : backend->getBinaryFormat(),
                             b.getStrArrayAttr(requirements), *bytes);
      executable.erase();
    }
  }
};
} // namespace

bool mlir::ms::buildSharedKernelPhase(StringRef phase, OpPassManager &kernels) {
  if (phase == "linalg")
    buildKernelLinalgPipeline(kernels);
  else if (phase == "bufferized")
    buildKernelBufferizationPipeline(kernels);
  else
    return false;
  return true;
}
