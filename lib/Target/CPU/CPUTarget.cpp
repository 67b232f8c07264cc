//===- CPUTarget.cpp - kernels to a native shared object ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace mlir;
using namespace mlir::ms;

void mlir::ms::buildCpuLinalgPipeline(OpPassManager &pm) {
  pm.addPass(createConvertGraphToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::ms::buildCpuBufferizationPipeline(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::ms::buildCpuLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createLowerMemRefCopiesPass());
  // Parallel loops over the outer (parallel) dimensions run on OpenMP
  // threads; reductions stay sequential inside each iteration.
  pm.addPass(createInterchangeReductionsPass());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Loop nests under 16384 innermost iterations run on the calling thread:
  // a fork/join costs microseconds, more than such a kernel.
  pm.addPass(createSerializeNestedParallelPass(
      SerializeNestedParallelPassOptions{/*minParallelWork=*/16384}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  // Expand what LLVM and libm do not lower directly, except powf: its
  // expansion exp(y * log(x)) is NaN for a negative base, where pow (the libm
  // call that math-to-llvm emits) gives (-2)^2 = 4.
  math::MathExpandOpsPassOptions expand;
  expand.opMnemonics = {"ctlz", "sinh",  "cosh", "tan",       "tanh",
                        "asinh", "acosh", "atanh", "fma",     "ceil",
                        "exp2",  "fpowi", "round", "roundeven", "rsqrt"};
  pm.addPass(math::createMathExpandOpsPass(expand));
  // Math on f16/bf16 runs in f32: LLVM would otherwise promote it itself and
  // call compiler-rt for the bf16 truncation.
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // bf16 conversions become integer arithmetic: LLVM would call compiler-rt
  // (__truncsfbf2), which the kernels' shared object does not link. After
  // math-to-libm, whose calls on bf16 go through f32.
  // bf16 arithmetic too: each op runs in f32 and rounds back to bf16.
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions arithExpand;
  arithExpand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(arithExpand));
  // Subviews at loop-dependent offsets expand to affine.apply: lower affine
  // after them.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult
mlir::ms::addKernelEntryPoints(ModuleOp module,
                               ArrayRef<std::string> kernelSymbols) {
  MLIRContext *ctx = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto voidType = LLVM::LLVMVoidType::get(ctx);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  for (auto [i, symbol] : llvm::enumerate(kernelSymbols)) {
    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
    if (!callee)
      return module.emitError("expected lowered kernel @") << symbol;
    // The runtime passes one pointer per buffer: every argument must be one.
    if (!llvm::all_of(callee.getArgumentTypes(),
                      [](Type t) { return isa<LLVM::LLVMPointerType>(t); }))
      return callee.emitError("expected kernel @")
             << symbol << " to take only buffer pointers after lowering, but "
             << "its signature is " << callee.getFunctionType();
    callee.setLinkage(LLVM::Linkage::Internal);
    Location loc = callee.getLoc();
    auto entry = LLVM::LLVMFuncOp::create(
        b, loc, "ms_kernel_" + std::to_string(i),
        LLVM::LLVMFunctionType::get(voidType, {ptr}));
    Block *body = entry.addEntryBlock(b);
    OpBuilder eb = OpBuilder::atBlockEnd(body);
    SmallVector<Value> args;
    for (unsigned j = 0; j < callee.getNumArguments(); ++j) {
      Value slot = LLVM::GEPOp::create(eb, loc, ptr, ptr, body->getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{(int32_t)j});
      args.push_back(LLVM::LoadOp::create(eb, loc, ptr, slot));
    }
    LLVM::CallOp::create(eb, loc, callee, args);
    LLVM::ReturnOp::create(eb, loc, ValueRange{});
  }
  return success();
}

/// Runs `program` with `args`; returns its error output on failure.
static LogicalResult runTool(StringRef program, ArrayRef<StringRef> args,
                             std::string &error) {
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc == 0)
    return success();
  error = (program + " failed" + (message.empty() ? "" : ": " + message) +
           " (exit code " + std::to_string(rc) + ")")
              .str();
  return failure();
}

/// Finds lld: the LLVM 22 one first, then any ld.lld on PATH.
static std::string findLinker() {
  for (StringRef candidate : {"/usr/lib/llvm-22/bin/ld.lld", "/usr/bin/ld.lld-22"})
    if (llvm::sys::fs::can_execute(candidate))
      return candidate.str();
  if (auto path = llvm::sys::findProgramByName("ld.lld"))
    return *path;
  return "";
}

FailureOr<std::string>
mlir::ms::emitCpuSharedObject(ModuleOp module, const CpuTargetOptions &options,
                              std::string *llvmIr) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;

  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  registerOpenMPDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "ms_kernels");
  if (!llvmModule)
    return module.emitError("failed to translate kernels to LLVM IR");

  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("no LLVM target for ") << triple.str() << ": "
                                                   << error;
  std::string cpu = options.cpu;
  llvm::SubtargetFeatures features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features.getString(), llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return module.emitError("cannot create an LLVM target machine for CPU '")
           << cpu << "'";
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);

  auto optimize = makeOptimizingTransformer(options.optLevel, 0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get())) {
    std::string message = llvm::toString(std::move(err));
    return module.emitError("LLVM optimization failed: ") << message;
  }
  if (llvmIr) {
    llvm::raw_string_ostream os(*llvmIr);
    llvmModule->print(os, nullptr);
    return std::string();
  }

  // Object file, then lld -shared.
  SmallString<128> objPath, soPath;
  if (llvm::sys::fs::createTemporaryFile("ms-kernels", "o", objPath) ||
      llvm::sys::fs::createTemporaryFile("ms-kernels", "so", soPath))
    return module.emitError("cannot create temporary files for linking");
  auto cleanup = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(objPath);
    llvm::sys::fs::remove(soPath);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream obj(objPath, ec);
    if (ec)
      return module.emitError("cannot write ") << objPath << ": "
                                               << ec.message();
    llvm::legacy::PassManager pm;
    if (machine->addPassesToEmitFile(pm, obj, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return module.emitError("the target cannot emit object files");
    pm.run(*llvmModule);
  }
  std::string linker = findLinker();
  if (linker.empty())
    return module.emitError("cannot find ld.lld (install lld-22)");
  SmallVector<StringRef> args = {linker,
                                 "-shared",
                                 "--gc-sections",
                                 "-o",
                                 soPath,
                                 objPath,
                                 "-L/usr/lib/llvm-22/lib",
                                 "-rpath",
                                 "/usr/lib/llvm-22/lib",
                                 "-lomp",
                                 "-L/usr/lib/x86_64-linux-gnu",
                                 "-L/lib/x86_64-linux-gnu",
                                 "-lm"};
  if (failed(runTool(linker, args, error)))
    return module.emitError("linking the kernels failed: ") << error;
  auto buffer = llvm::MemoryBuffer::getFile(soPath);
  if (!buffer)
    return module.emitError("cannot read the linked kernels: ")
           << buffer.getError().message();
  return (*buffer)->getBuffer().str();
}
