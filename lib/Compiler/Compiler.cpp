//===- Compiler.cpp - the ms compiler facade ------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/Compiler.h"

#include "ms/Compiler/ExecutionPlan.h"
#include "ms/Compiler/ModuleWriter.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::ms;

ArrayRef<StringRef> mlir::ms::compileStages() {
  static const StringRef stages[] = {"graph",      "kernels", "linalg",
                                     "bufferized", "llvm",    "llvmir",
                                     "plan"};
  return stages;
}

/// Runs `build`'s passes on `module`.
static LogicalResult runPipeline(ModuleOp module, const CompileOptions &options,
                                 function_ref<void(OpPassManager &)> build) {
  PassManager pm(module.getContext());
  if (options.configurePassManager &&
      failed(options.configurePassManager(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

FailureOr<std::string> mlir::ms::compileModule(ModuleOp module,
                                               const CompileOptions &options,
                                               llvm::raw_ostream &os) {
  if (options.optLevel != 0)
    return module.emitError("optimization level -O")
           << options.optLevel
           << " is not implemented yet; this build supports -O0";
  if (options.target != "cpu")
    return module.emitError("target '")
           << options.target << "' is not implemented yet; expected 'cpu'";
  StringRef stop = options.compileTo;

  // Graph level. O0 only infers shapes: code generation needs static ones.
  if (failed(runPipeline(module, options, [](OpPassManager &pm) {
        pm.addNestedPass<func::FuncOp>(graph::createInferShapesPass());
      })))
    return failure();
  // The compiled module's signature is the refined one: drop the casts that
  // kept the entry function's declared (dynamic) result types.
  if (func::FuncOp entry = findEntryFunction(module, "")) {
    auto ret = cast<func::ReturnOp>(entry.getBody().front().getTerminator());
    for (OpOperand &operand : ret->getOpOperands())
      if (auto cast = operand.get().getDefiningOp<tensor::CastOp>())
        operand.set(cast.getSource());
    entry.setType(FunctionType::get(module.getContext(),
                                    entry.getArgumentTypes(),
                                    ret.getOperandTypes()));
  } else {
    return failure();
  }
  if (stop == "graph") {
    module.print(os);
    return std::string();
  }

  // Partition: one kernel per op.
  if (failed(runPipeline(module, options, [](OpPassManager &pm) {
        pm.addPass(createOutlineKernelsPass());
      })))
    return failure();
  if (stop == "kernels") {
    module.print(os);
    return std::string();
  }

  func::FuncOp entry = findEntryFunction(module, "");
  if (!entry)
    return failure();
  std::vector<std::string> kernelSymbols;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kKernelAttrName))
      kernelSymbols.push_back(func.getSymName().str());
  FailureOr<ExecutionPlan> plan = buildExecutionPlan(entry, kernelSymbols);
  if (failed(plan))
    return failure();
  plan->optLevel = options.optLevel;
  plan->target = options.target;
  if (stop == "plan") {
    plan->writeJson(os);
    os << "\n";
    return std::string();
  }
  if (options.memoryReport)
    plan->writeMemoryReport(os);

  // The device program: the kernels alone, lowered to native code.
  OwningOpRef<ModuleOp> kernels = ModuleOp::create(module.getLoc());
  OpBuilder b = OpBuilder::atBlockEnd(kernels->getBody());
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kKernelAttrName))
      b.clone(*func);
  struct Phase {
    StringRef name;
    void (*build)(OpPassManager &);
  };
  for (Phase phase : {Phase{"linalg", buildCpuLinalgPipeline},
                      Phase{"bufferized", buildCpuBufferizationPipeline},
                      Phase{"llvm", buildCpuLLVMPipeline}}) {
    if (failed(runPipeline(*kernels, options, phase.build)))
      return failure();
    if (phase.name == "llvm" &&
        failed(addKernelEntryPoints(*kernels, kernelSymbols)))
      return failure();
    if (stop == phase.name) {
      kernels->print(os);
      return std::string();
    }
  }
  if (stop == "llvmir") {
    std::string ir;
    if (failed(emitCpuSharedObject(*kernels, options.cpu, &ir)))
      return failure();
    os << ir;
    return std::string();
  }
  FailureOr<std::string> elf = emitCpuSharedObject(*kernels, options.cpu);
  if (failed(elf))
    return failure();
  return writeModuleFile(*plan, *elf);
}
