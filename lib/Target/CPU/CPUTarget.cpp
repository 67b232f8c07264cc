//===- CPUTarget.cpp - kernels to a native shared object ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"
#include "ms/Target/KernelCache.h"

#include "ms/Support/Progress.h"
#include "ms/Transforms/Passes.h"
#include "ms/runtime/ModuleFormat.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <atomic>

using namespace mlir;
using namespace mlir::ms;

//===----------------------------------------------------------------------===//
// The CPU code is generated for
//===----------------------------------------------------------------------===//

namespace {
/// The CPU code is generated for, as LLVM sees it.
struct CpuTarget {
  llvm::Triple triple;
  const llvm::Target *target = nullptr;
  /// The LLVM CPU name (the host's for "native").
  std::string cpu;
  /// LLVM features on top of the CPU's own (the host's for "native").
  std::string features;
  /// The CPU's features.
  std::unique_ptr<llvm::MCSubtargetInfo> info;
};
} // namespace

/// Resolves `options.cpu` for this host's architecture: "native" is the
/// host's CPU with all its features, anything else an LLVM CPU name.
static LogicalResult resolveCpu(const TargetOptions &options, CpuTarget &out,
                                std::string &error) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  out.triple = llvm::Triple(llvm::sys::getProcessTriple());
  out.target = llvm::TargetRegistry::lookupTarget(out.triple, error);
  if (!out.target) {
    error = "no LLVM target for " + out.triple.str() + ": " + error;
    return failure();
  }
  out.cpu = options.cpu;
  llvm::SubtargetFeatures features;
  if (out.cpu == "native") {
    out.cpu = llvm::sys::getHostCPUName().str();
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      features.AddFeature(feature.first(), feature.second);
  }
  out.features = features.getString();
  // The generic CPU first: LLVM warns on stderr about an unknown name.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      out.target->createMCSubtargetInfo(out.triple, "", ""));
  if (generic && generic->isCPUStringValid(out.cpu))
    out.info.reset(
        out.target->createMCSubtargetInfo(out.triple, out.cpu, out.features));
  if (!out.info) {
    error = "unknown --target-cpu '" + options.cpu +
            "': expected native or an LLVM CPU name for " +
            out.triple.getArchName().str() +
            (out.triple.isX86() ? " (x86-64, x86-64-v2, x86-64-v3, "
                                  "x86-64-v4, skylake-avx512, znver4, ...)"
                                : "");
    return failure();
  }
  return success();
}

/// Returns the register block for `target`'s vector registers: 32 zmm
/// (AVX-512) hold 8 rows of 32 columns, 16 ymm (AVX2) or xmm 6 rows of two
/// vectors; bf16 dot products where AVX512-BF16 is.
static CPUKernelShape getKernelShape(const CpuTarget &target) {
  if (target.triple.isX86()) {
    if (target.info->checkFeatures("+avx512f"))
      return {16, 8, target.info->checkFeatures("+avx512bf16")};
    if (target.info->checkFeatures("+avx"))
      return {8, 6, false};
    return {4, 6, false};
  }
  // AArch64 NEON and others: 32 registers of 128 bits.
  return {4, 8, false};
}

FailureOr<CPUKernelShape> mlir::ms::getCPUKernelShape(StringRef cpu,
                                                      std::string &error) {
  TargetOptions options;
  options.cpu = cpu.str();
  CpuTarget target;
  if (failed(resolveCpu(options, target, error)))
    return failure();
  return getKernelShape(target);
}

/// Returns the CPUs `cpus` names, best first ("x86-64-v4,x86-64-v3").
static SmallVector<std::string> splitCpus(StringRef cpus) {
  SmallVector<std::string> names;
  for (StringRef name : llvm::split(cpus, ','))
    names.push_back(name.trim().str());
  return names;
}

/// Returns the format::kCpuFeatures `target` has: what its code may use,
/// which the runtime checks the host for before loading it.
static std::vector<std::string> getCpuRequirements(const CpuTarget &target) {
  std::vector<std::string> requirements;
  if (!target.triple.isX86())
    return requirements;
  for (const char *feature : ::ms::format::kCpuFeatures)
    if (target.info->checkFeatures(std::string("+") + feature))
      requirements.push_back(feature);
  return requirements;
}

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

/// Adds msgraph -> linalg conversion and cleanups; contraction kernels get
/// `shape`'s register blocks (or their executable's CPU variant's) and
/// multiply bf16 with `bf16`.
static void buildCpuLinalgPipeline(OpPassManager &pm, CPUKernelShape shape,
                                   bool bf16) {
  // Fused kernels (O1, O2) become as few loop nests as possible, tiled so
  // that each tile's intermediates stay in the per-core caches (16K
  // elements of the result: 64 KiB of f32, within L2).
  buildKernelLinalgPipeline(pm);
  // 3x3 convs with a Winograd-transformed weight (ms-cpu-pack-weights)
  // become transforms around 16 matmuls, which the contraction kernels
  // then cover.
  pm.addNestedPass<func::FuncOp>(
      createCPUWinogradConvsPass(CPUWinogradConvsPassOptions{shape.lanes}));
  // Matmuls become register-tiled kernels (before tiling: a kernel that
  // holds one is not tiled again).
  CPUContractionKernelsPassOptions kernels;
  kernels.lanes = shape.lanes;
  kernels.rows = shape.rows;
  kernels.bf16Dot = shape.bf16Dot;
  kernels.bf16 = bf16;
  pm.addNestedPass<func::FuncOp>(createCPUContractionKernelsPass(kernels));
  pm.addNestedPass<func::FuncOp>(createCPUPoolingKernelsPass());
  pm.addNestedPass<func::FuncOp>(
      createTileFusedKernelsPass(TileFusedKernelsPassOptions{16384}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Adds lowering of bufferized kernels to the LLVM dialect (parallel loops
/// through OpenMP, bare-pointer calling convention).
static void buildCpuLLVMPipeline(OpPassManager &pm) {
  // The tile loops of fused kernels become the parallel loops that OpenMP
  // runs; the ops inside each tile then run sequentially.
  pm.addPass(createForallToParallelLoopPass());
  pm.addPass(createLowerMemRefCopiesPass());
  // Parallel loops over the outer (parallel) dimensions run on OpenMP
  // threads; reductions stay sequential inside each iteration.
  pm.addPass(createInterchangeReductionsPass());
  // Float sums over the innermost loop (norms, softmax) vectorize only when
  // LLVM may reorder them.
  pm.addPass(createCPUReassociateReductionsPass());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  // Loop nests under 16384 innermost iterations run on the calling thread:
  // a fork/join costs microseconds, more than such a kernel. The threads
  // share the leading dims that give 64 iterations; the inner dims run as
  // loops (vectorizable, no index divisions).
  pm.addPass(createSerializeNestedParallelPass(
      SerializeNestedParallelPassOptions{/*minParallelWork=*/16384,
                                         /*minParallelIterations=*/64}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertSCFToOpenMPPass());
  // Expand what LLVM and libm do not lower directly, except powf: its
  // expansion exp(y * log(x)) is NaN for a negative base, where pow (the libm
  // call that math-to-llvm emits) gives (-2)^2 = 4.
  math::MathExpandOpsPassOptions expand;
  // Not tanh: its expansion (1 - e^-2x) / (1 + e^-2x) loses all precision
  // near 0 (tanh(1e-7) came out 8.9e-8); ms-cpu-approximate-math takes f32
  // tanh, math-to-llvm the rest.
  expand.opMnemonics = {"ctlz",  "sinh",  "cosh", "tan",   "asinh",
                        "acosh", "atanh", "fma",  "ceil",  "exp2",
                        "fpowi", "round", "roundeven", "rsqrt"};
  pm.addPass(math::createMathExpandOpsPass(expand));
  // Math on f16/bf16 runs in f32: LLVM would otherwise promote it itself and
  // call compiler-rt for the bf16 truncation.
  pm.addPass(math::createMathExtendToSupportedTypes());
  // exp, erf, tanh, log and their kin become polynomials LLVM vectorizes
  // (a libm call would run per element, in the kernels' epilogues too).
  pm.addPass(createCPUApproximateMathPass());
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
  // Min and max stay LLVM intrinsics, whose reductions LLVM vectorizes.
  pm.addPass(createCPUExpandArithPass());
  // Vector transfers (the contraction kernels) become vector loads and
  // stores, then LLVM vector operations.
  // (x86vector: the bf16 dot products of the contraction kernels.)
  ConvertVectorToLLVMPassOptions vectors;
  vectors.x86Vector = true;
  pm.addPass(createConvertVectorToLLVMPass(vectors));
  // Subviews at loop-dependent offsets expand to affine.apply: lower affine
  // after them.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  FinalizeMemRefToLLVMConversionPassOptions memrefs;
  memrefs.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefs));
  pm.addPass(createSCFToControlFlowPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  // bf16 loads and stores move i16 bits: no bf16 value is left for LLVM to
  // carry across a select or phi (X86 without AVX512-BF16 would call
  // compiler-rt for it).
  pm.addPass(createCPULegalizeBF16MemoryPass());
  // Vectors of booleans (a contraction epilogue's mask) load and store a
  // byte per element, as the tensors hold them; LLVM would pack bits.
  pm.addPass(createCPULegalizeBoolMemoryPass());
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

/// Finds lld: the one of the LLVM this compiler was built with, then
/// ld.lld-<major> and ld.lld on PATH.
static std::string findLinker() {
  SmallString<128> bundled(MS_LLVM_TOOLS_DIR);
  llvm::sys::path::append(bundled, "ld.lld");
  if (llvm::sys::fs::can_execute(bundled))
    return bundled.str().str();
  for (std::string name :
       {"ld.lld-" + std::to_string(LLVM_VERSION_MAJOR), std::string("ld.lld")})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  return "";
}

/// Returns the functions defined in `module` in groups that call nothing
/// defined outside their group (a kernel with its entry wrapper; an
/// offloaded graph with all its kernels), in module order, with each
/// group's size in ops; one group when the module has globals other than
/// private or internal ones (they would be defined once per group).
static SmallVector<std::pair<DenseSet<Operation *>, int64_t>>
groupFunctions(ModuleOp module) {
  SmallVector<LLVM::LLVMFuncOp> functions;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (!func.isExternal())
      functions.push_back(func);
  bool shareable =
      llvm::all_of(module.getOps<LLVM::GlobalOp>(), [](LLVM::GlobalOp global) {
        return global.getLinkage() == LLVM::Linkage::Private ||
               global.getLinkage() == LLVM::Linkage::Internal;
      });
  for (Operation &op : module.getBody()->getOperations())
    shareable &= isa<LLVM::LLVMFuncOp, LLVM::GlobalOp>(op);
  // Union-find over calls and function addresses.
  DenseMap<Operation *, Operation *> parent;
  std::function<Operation *(Operation *)> find = [&](Operation *op) {
    Operation *up = parent.lookup(op);
    if (!up || up == op)
      return parent[op] = op;
    Operation *root = find(up);
    return parent[op] = root;
  };
  SymbolTable symbols(module);
  for (LLVM::LLVMFuncOp func : functions) {
    func.walk([&](Operation *op) {
      FlatSymbolRefAttr ref;
      if (auto call = dyn_cast<LLVM::CallOp>(op))
        ref = call.getCalleeAttr();
      else if (auto address = dyn_cast<LLVM::AddressOfOp>(op))
        ref = address.getGlobalNameAttr();
      auto callee = ref ? symbols.lookup<LLVM::LLVMFuncOp>(ref.getAttr())
                        : LLVM::LLVMFuncOp();
      if (callee && !callee.isExternal()) {
        Operation *root = find(func);
        Operation *calleeRoot = find(callee);
        parent[calleeRoot] = root;
      }
    });
  }
  SmallVector<std::pair<DenseSet<Operation *>, int64_t>> groups;
  DenseMap<Operation *, unsigned> indexOf;
  for (LLVM::LLVMFuncOp func : functions) {
    Operation *root = shareable ? find(func) : nullptr;
    auto [it, added] = indexOf.try_emplace(root, groups.size());
    if (added)
      groups.emplace_back();
    auto &[members, size] = groups[it->second];
    members.insert(func);
    func.walk([&](Operation *) { ++size; });
  }
  return groups;
}

/// Optimizes `llvmModule` for `cpu` and emits its object code into
/// `object`; returns an error message or an empty string.
static std::string optimizeAndEmit(llvm::Module &llvmModule,
                                   const CpuTarget &cpu,
                                   const TargetOptions &options,
                                   SmallVectorImpl<char> *object) {
  std::unique_ptr<llvm::TargetMachine> machine(cpu.target->createTargetMachine(
      cpu.triple, cpu.cpu, cpu.features, llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return "cannot create an LLVM target machine for CPU '" + cpu.cpu + "'";
  llvmModule.setDataLayout(machine->createDataLayout());
  llvmModule.setTargetTriple(cpu.triple);
  auto optimize =
      makeOptimizingTransformer(options.llvmOptLevel, 0, machine.get());
  if (llvm::Error err = optimize(&llvmModule))
    return "LLVM optimization failed: " + llvm::toString(std::move(err));
  if (!object)
    return "";
  llvm::raw_svector_ostream os(*object);
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return "the target cannot emit object files";
  pm.run(llvmModule);
  return "";
}

/// Translates an LLVM-dialect module to LLVM IR, optimizes it for the
/// target, emits objects and links them with lld into a shared object.
/// The kernels are split into parts (groupFunctions), each taken from the
/// kernel cache or optimized and compiled on LLVM's thread pool, then linked
/// in module order.
/// Returns the shared object's bytes. When `llvmIr` is set, the optimized IR
/// text of the whole module is stored there and no object is produced.
static FailureOr<std::string> emitCpuSharedObject(ModuleOp module,
                                                  const TargetOptions &options,
                                                  std::string *llvmIr) {
  CpuTarget cpu;
  std::string error;
  if (failed(resolveCpu(options, cpu, error)))
    return module.emitError(error);

  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  registerOpenMPDialectTranslation(*module.getContext());
  // One part per group (all of them for the IR text): the module without
  // the other groups' functions, translated in its own LLVM context.
  SmallVector<std::pair<DenseSet<Operation *>, int64_t>> parts;
  if (!llvmIr)
    parts = groupFunctions(module);
  if (parts.size() <= 1) {
    parts.clear();
    parts.emplace_back();
  }
  bool whole = parts.size() == 1;
  std::optional<KernelCache> cache;
  if (!options.cacheDir.empty() && !llvmIr)
    cache.emplace(options.cacheDir);
  std::string identity = KernelCache::buildIdentity();
  std::string targetName = cpu.triple.str() + ";" + cpu.cpu + ";" +
                           cpu.features + ";O" +
                           std::to_string(options.llvmOptLevel);
  SmallVector<std::unique_ptr<llvm::LLVMContext>> contexts;
  SmallVector<std::unique_ptr<llvm::Module>> llvmModules;
  SmallVector<std::string> keys;
  SmallVector<SmallVector<char, 0>> objects(parts.size());
  for (auto [i, part] : llvm::enumerate(parts)) {
    OwningOpRef<ModuleOp> copy;
    ModuleOp source = module;
    if (!whole) {
      // The module's attributes and every op but the other parts' function
      // bodies, in module order (as a clone of the whole module with those
      // erased, without copying them first).
      copy = ModuleOp::create(module.getLoc());
      (*copy)->setAttrs(module->getAttrDictionary());
      OpBuilder builder = OpBuilder::atBlockEnd(copy->getBody());
      for (Operation &op : module.getBody()->getOperations()) {
        auto func = dyn_cast<LLVM::LLVMFuncOp>(op);
        if (!func || func.isExternal() || part.first.contains(func))
          builder.clone(op);
      }
      source = *copy;
    }
    // A part compiled before (the same IR, target and compiler) comes
    // from the cache.
    keys.emplace_back();
    if (cache) {
      std::string text;
      llvm::raw_string_ostream os(text);
      source->print(os, OpPrintingFlags().enableDebugInfo(false));
      keys.back() =
          KernelCache::key({"cpu-object", identity, targetName, text});
      std::string warning;
      if (std::optional<std::string> object =
              cache->lookup(keys.back(), warning)) {
        objects[i].assign(object->begin(), object->end());
        contexts.emplace_back();
        llvmModules.emplace_back();
        continue;
      }
      if (!warning.empty())
        module.emitWarning(warning);
    }
    contexts.push_back(std::make_unique<llvm::LLVMContext>());
    llvmModules.push_back(
        translateModuleToLLVMIR(source, *contexts.back(), "ms_kernels"));
    if (!llvmModules.back())
      return module.emitError("failed to translate kernels to LLVM IR");
  }
  if (llvmIr) {
    std::string message = optimizeAndEmit(*llvmModules[0], cpu, options,
                                          /*object=*/nullptr);
    if (!message.empty())
      return module.emitError(message);
    llvm::raw_string_ostream os(*llvmIr);
    llvmModules[0]->print(os, nullptr);
    return std::string();
  }
  // The parts not from the cache, the largest first, on the thread pool.
  SmallVector<unsigned> order;
  for (unsigned i = 0; i < parts.size(); ++i)
    if (llvmModules[i])
      order.push_back(i);
  llvm::stable_sort(order, [&](unsigned a, unsigned b) {
    return parts[a].second > parts[b].second;
  });
  SmallVector<std::string> messages(parts.size());
  {
    int64_t total = parts.size(), cached = total - order.size();
    std::atomic<int64_t> done = cached;
    reportProgress({"serialize", done, total, cached});
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency());
    for (unsigned i : order)
      pool.async([&, i] {
        messages[i] =
            optimizeAndEmit(*llvmModules[i], cpu, options, &objects[i]);
        reportProgress({"serialize", ++done, total, cached});
      });
    pool.wait();
  }
  for (const std::string &message : messages)
    if (!message.empty())
      return module.emitError(message);
  if (cache) {
    for (unsigned i : order)
      cache->store(keys[i], StringRef(objects[i].data(), objects[i].size()));
  }
  // The cache is kept within its bound however the link ends.
  llvm::scope_exit evict([&] {
    if (cache)
      cache->evict();
  });

  // The library these parts link into, linked before: every part came
  // from the cache (the link's other inputs are the linker, which the key
  // names by path, size and time, and flags and libraries fixed by the
  // compiler's build).
  std::string linker = findLinker();
  std::string linkedKey;
  if (cache) {
    llvm::sys::fs::file_status status;
    std::string linkerIdentity = linker;
    if (!linker.empty() && !llvm::sys::fs::status(linker, status))
      linkerIdentity +=
          ";" + std::to_string(status.getSize()) + ";" +
          std::to_string(
              status.getLastModificationTime().time_since_epoch().count());
    SmallVector<StringRef> linkParts = {"cpu-shared-object", identity,
                                        targetName, linkerIdentity};
    llvm::append_range(linkParts, keys);
    linkedKey = KernelCache::key(linkParts);
    std::string warning;
    if (order.empty())
      if (std::optional<std::string> linked =
              cache->lookup(linkedKey, warning, KernelCache::Entry::Linked))
        return *linked;
    if (!warning.empty())
      module.emitWarning(warning);
  }

  // Object files, then lld -shared.
  SmallVector<SmallString<128>> objPaths(parts.size());
  SmallString<128> soPath;
  llvm::scope_exit cleanup([&] {
    for (const SmallString<128> &path : objPaths)
      if (!path.empty())
        llvm::sys::fs::remove(path);
    llvm::sys::fs::remove(soPath);
  });
  if (llvm::sys::fs::createTemporaryFile("ms-kernels", "so", soPath))
    return module.emitError("cannot create temporary files for linking");
  for (auto [path, object] : llvm::zip_equal(objPaths, objects)) {
    int fd;
    if (llvm::sys::fs::createTemporaryFile("ms-kernels", "o", fd, path))
      return module.emitError("cannot create temporary files for linking");
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
    os.close();
    if (os.has_error()) {
      os.clear_error();
      return module.emitError("cannot write ") << path;
    }
  }
  if (linker.empty())
    return module.emitError("cannot find ld.lld (install lld-22)");
  // libomp comes from the LLVM this compiler was built with; libm from the
  // system's library directories, as CMake found them.
  std::string llvmLibs = "-L" MS_LLVM_LIBRARY_DIR;
  SmallVector<std::string> systemLibs;
  for (StringRef dir : llvm::split(MS_SYSTEM_LIBRARY_DIRS, ':'))
    if (!dir.empty())
      systemLibs.push_back(("-L" + dir).str());
  SmallVector<StringRef> args = {linker, "-shared", "--gc-sections", "-o",
                                 soPath};
  for (const SmallString<128> &path : objPaths)
    args.push_back(path);
  args.append({llvmLibs, "-rpath", MS_LLVM_LIBRARY_DIR, "-lomp"});
  for (const std::string &dir : systemLibs)
    args.push_back(dir);
  args.push_back("-lm");
  if (failed(runTool(linker, args, error)))
    return module.emitError("linking the kernels failed: ") << error;
  auto buffer = llvm::MemoryBuffer::getFile(soPath);
  if (!buffer)
    return module.emitError("cannot read the linked kernels: ")
           << buffer.getError().message();
  if (cache)
    cache->store(linkedKey, (*buffer)->getBuffer());
  return (*buffer)->getBuffer().str();
}

namespace {
/// The CPU target backend.
class CPUTargetBackend final : public TargetBackend {
public:
  StringRef getName() const override { return "cpu"; }
  StringRef getBinaryFormat() const override { return "cpu-elf"; }
  ArrayRef<StringRef> getCodegenPhases() const override {
    static const StringRef phases[] = {"linalg", "bufferized", "llvm"};
    return phases;
  }
  LogicalResult verifyOptions(const TargetOptions &options,
                              std::string &error) const override {
    for (const std::string &name : splitCpus(options.cpu)) {
      if (name.empty()) {
        error = "expected CPU names separated by commas in --target-cpu, "
                "but found an empty one in '" +
                options.cpu + "'";
        return failure();
      }
      TargetOptions one = options;
      one.cpu = name;
      CpuTarget cpu;
      if (failed(resolveCpu(one, cpu, error)))
        return failure();
    }
    return success();
  }
  std::vector<std::string>
  getRequirements(const TargetOptions &options) const override {
    CpuTarget cpu;
    std::string error;
    if (failed(resolveCpu(options, cpu, error)))
      return {};
    return getCpuRequirements(cpu);
  }
  ArrayRef<StringRef> getPrecisions() const override {
    static const StringRef precisions[] = {"f32", "bf16"};
    return precisions;
  }
  void buildKernelPhase(OpPassManager &pm,
                        const TargetOptions &options) const override {
    pm.addPass(
        createCPUPackWeightsPass(CPUPackWeightsPassOptions{options.precision}));
  }
  void buildCodegenPhase(StringRef phase, OpPassManager &pm,
                         const TargetOptions &options) const override {
    // Several CPUs: one copy of the kernels per CPU first.
    SmallVector<std::string> cpus = splitCpus(options.cpu);
    if (phase == "linalg" && cpus.size() > 1) {
      CPUExecutableVariantsPassOptions variants;
      variants.targetCpus = llvm::to_vector(cpus);
      pm.addPass(createCPUExecutableVariantsPass(variants));
    }
    OpPassManager &kernels = pm.nest<exec::ExecutableOp>().nest<ModuleOp>();
    if (phase == "linalg") {
      // verifyOptions rejected a CPU that does not resolve.
      std::string error;
      FailureOr<CPUKernelShape> shape = getCPUKernelShape(cpus.front(), error);
      buildCpuLinalgPipeline(
          kernels, succeeded(shape) ? *shape : CPUKernelShape{16, 8, false},
          options.precision == "bf16");
    } else if (phase == "bufferized") {
      buildKernelBufferizationPipeline(kernels);
    } else if (phase == "llvm") {
      buildCpuLLVMPipeline(kernels);
      pm.addPass(createCPUEmitEntryPointsPass());
    }
  }
  FailureOr<std::string> serialize(exec::ExecutableOp executable,
                                   const TargetOptions &options,
                                   bool textual) const override {
    ModuleOp kernels = executable.getInnerModule();
    if (!textual)
      return emitCpuSharedObject(kernels, options, nullptr);
    std::string ir;
    if (failed(emitCpuSharedObject(kernels, options, &ir)))
      return failure();
    return ir;
  }
};
} // namespace

void mlir::ms::registerCPUTargetBackend() {
  registerTargetBackend(std::make_unique<CPUTargetBackend>());
}
