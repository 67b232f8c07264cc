//===- CompileMain.cpp - entry point of ms-compile ------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ms-compile MODEL -o OUT.msm [-O0|-O1|-O2] [--target cpu|cuda]
//            [--target-cpu NAME] [--cuda-arch SM] [--cuda-tma=false]
//            [--cuda-producer-warp=false] [--cuda-wide-tiles]
//            [--cuda-persistent-blocks N]
//            [--compile-to STAGE] [--dry-run] [--memory-report]
//            [--simulate PRESET [--simulate-trace FILE]]
//            [--cache-dir DIR | --no-cache] [--time-report]
//            [--mlir-print-ir-*]
//            [--mlir-timing]
//
// On a terminal, one line on stderr shows where the compilation is (the
// phase; code parts generated, and from the kernel cache); MS_PROGRESS=1
// prints it as lines elsewhere too.
//
// The output file appears only when compilation succeeded: it is written to
// a temporary file in the same directory and renamed into place.
//
//===----------------------------------------------------------------------===//

#include "ms/Tools/CompileMain.h"
#include "ms/Tools/InputScreen.h"

#include "ms/Compiler/Compiler.h"
#include "ms/Dialect/Dist/IR/DistOps.h"
#include "ms/Dialect/Exec/Transforms/Simulate.h"
#include "ms/Importer/ONNX/OnnxImporter.h"
#include "ms/InitAll.h"
#include "ms/ModuleFile/ModuleWriter.h"
#include "ms/Pipelines/Pipelines.h"
#include "ms/Support/OutputFile.h"
#include "ms/Support/Progress.h"
#include "ms/Target/KernelCache.h"
#include "ms/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>

using namespace mlir;
using namespace mlir::ms;

namespace {
struct Options {
  llvm::cl::OptionCategory category{"ms-compile options"};
  llvm::cl::opt<std::string> input{llvm::cl::Positional,
                                   llvm::cl::desc("<model.onnx|model.mlir>"),
                                   llvm::cl::Required,
                                   llvm::cl::cat(category)};
  llvm::cl::opt<std::string> output{"o", llvm::cl::desc("Output module file"),
                                    llvm::cl::value_desc("file"),
                                    llvm::cl::cat(category)};
  llvm::cl::opt<int> optLevel{
      "O",
      llvm::cl::desc("Optimization level (0: one kernel per op, run kernel "
                     "by kernel; 1: fused groups, one kernel each; 2: the "
                     "fused kernels as one offloaded unit)"),
      llvm::cl::Prefix, llvm::cl::init(0), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> target{
      "target", llvm::cl::desc("Target device (built: cpu, cuda)"),
      llvm::cl::init("cpu"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> targetCpu{
      "target-cpu",
      llvm::cl::desc("CPU to generate code for: native (default, the host "
                     "with all its vector features) or an LLVM CPU name "
                     "(x86-64-v3: any AVX2 host); several, comma-separated "
                     "and best first, put one copy of the code per CPU in "
                     "the module and the runtime runs the first the host "
                     "can (native,x86-64-v3)"),
      llvm::cl::init("native"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> cudaArch{
      "cuda-arch",
      llvm::cl::desc("CUDA architecture of --target cuda's PTX: sm_90a "
                     "(default), sm_90, sm_89, sm_86 or sm_80"),
      llvm::cl::init("sm_90a"), llvm::cl::cat(category)};
  llvm::cl::opt<bool> cudaTma{
      "cuda-tma",
      llvm::cl::desc("On sm_90a, load the operands of wgmma products by the "
                     "Tensor Memory Accelerator where a tensor map can "
                     "describe them (default); =false copies them by "
                     "cp.async, as on sm_80"),
      llvm::cl::init(true), llvm::cl::cat(category)};
  llvm::cl::opt<bool> cudaProducerWarp{
      "cuda-producer-warp",
      llvm::cl::desc("With TMA, a warp of its own issues each block's "
                     "loads, a stage as soon as the products have released "
                     "it (default); =false: thread 0 issues them between "
                     "its products"),
      llvm::cl::init(true), llvm::cl::cat(category)};
  llvm::cl::opt<bool> cudaWideTiles{
      "cuda-wide-tiles",
      llvm::cl::desc("With a producer warp, large products take 128 x 256 "
                     "tiles (one block a multiprocessor, 128 accumulators a "
                     "thread) where at least 132 remain; default: 128 x 128"),
      llvm::cl::init(false), llvm::cl::cat(category)};
  llvm::cl::opt<unsigned> cudaPersistentBlocks{
      "cuda-persistent-blocks",
      llvm::cl::desc("With a producer warp, products of more tiles launch "
                     "this many blocks, each walking the tiles this many "
                     "apart, so that a block's loads of its next tile "
                     "overlap its last tile's stores (the blocks resident "
                     "at once: 132 on an H100 SXM or H200); default 0: a "
                     "block a tile"),
      llvm::cl::init(0), llvm::cl::value_desc("N"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> precision{
      "precision",
      llvm::cl::desc("Precision in which matmuls multiply. --target cpu: "
                     "f32 (default) or bf16 (constant weights stored in "
                     "bfloat16 and activations rounded to it, products "
                     "summed in f32; AVX512-BF16 dot products where the "
                     "CPU has them); --target npu: f16 (default), bf16 or "
                     "f32 (the cube's input type, sums in f32; f32 takes "
                     "twice the cube cycles); --target cuda: f32 (default), "
                     "tf32, bf16 or f16 (tensor-core tiles of that "
                     "input type, sums in f32)"),
      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> compileTo{
      "compile-to",
      llvm::cl::desc("Print the IR after a phase and stop: graph, dist, "
                     "fusion, kernels, plan, the target's code generation "
                     "phases (an unknown name lists them), llvmir, "
                     "serialize"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> memoryReport{
      "memory-report",
      llvm::cl::desc("Print the static memory plan (peak, arena, buffers)"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> dryRun{
      "dry-run",
      llvm::cl::desc("Run the graph, fusion, kernel and plan phases only (no "
                     "code generation, no output file) and print the "
                     "kernels and the memory plan"),
      llvm::cl::cat(category)};
  /// --simulate's help, naming the presets of their one table.
  std::string simulateHelp =
      "With --dry-run: replay each plan on a modelled machine and print its "
      "step time and the communication compute hides; PRESET is one of " +
      llvm::join(llvm::map_range(exec::getSimPresets(),
                                 [](const exec::SimPreset &preset) {
                                   return StringRef(preset.name);
                                 }),
                 ", ") +
      " (model inputs, not measurements)";
  llvm::cl::opt<std::string> simulate{"simulate", llvm::cl::desc(simulateHelp),
                                      llvm::cl::value_desc("PRESET"),
                                      llvm::cl::cat(category)};
  llvm::cl::opt<std::string> simulateTrace{
      "simulate-trace",
      llvm::cl::desc("With --simulate: write the simulated timeline as Chrome "
                     "trace-event JSON (chrome://tracing, Perfetto)"),
      llvm::cl::value_desc("file"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> cacheDir{
      "cache-dir",
      llvm::cl::desc("Kernel cache directory (default: $MS_CACHE_DIR/kernels, "
                     "$XDG_CACHE_HOME/ms/kernels or ~/.cache/ms/kernels)"),
      llvm::cl::value_desc("dir"), llvm::cl::cat(category)};
  llvm::cl::opt<bool> noCache{
      "no-cache",
      llvm::cl::desc("Compile every kernel; read and write no kernel cache"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> timeReport{
      "time-report",
      llvm::cl::desc("Print the time of each part of the compilation and the "
                     "kernel cache's hits to stderr"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> externalWeights{
      "external-weights",
      llvm::cl::desc("Leave an ONNX model's external-data weights in their "
                     "files: the module refers to them (path, size, "
                     "checksum) instead of holding a copy"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> noMappedWeights{
      "no-mapped-weights",
      llvm::cl::desc("Copy an ONNX model's large weights into the compiler's "
                     "memory instead of reading them from the mapped file "
                     "(the same module, more slowly: for comparison)"),
      llvm::cl::Hidden, llvm::cl::cat(category)};
  llvm::cl::list<std::string> boundInputs{
      "bind-input",
      llvm::cl::desc("Specialize an ONNX model: replace graph input NAME by "
                     "the constant in FILE.npy (repeatable)"),
      llvm::cl::value_desc("NAME=FILE.npy"), llvm::cl::cat(category)};
  llvm::cl::list<std::string> inputShapes{
      "input-shape",
      llvm::cl::desc("Pin an ONNX input's shape: NAME=D1xD2x... (repeatable)"),
      llvm::cl::value_desc("NAME=SHAPE"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> mesh{
      "mesh",
      llvm::cl::desc("Compile for a mesh of devices, one process each: "
                     "its shape, e.g. 4 or 2x2"),
      llvm::cl::value_desc("SHAPE"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> meshAxes{
      "mesh-axes",
      llvm::cl::desc(
          "Names of the mesh's axes, e.g. dp,tp (default d0,d1,...)"),
      llvm::cl::value_desc("NAMES"), llvm::cl::cat(category)};
  llvm::cl::list<std::string> shardings{
      "shard",
      llvm::cl::desc("Lay out value NAME (an input, output, initializer or "
                     "node output) over the mesh: one entry per dim, a mesh "
                     "axis, axes joined by '+', or '-' for whole, e.g. "
                     "x=dp,- (repeatable)"),
      llvm::cl::value_desc("NAME=SPEC"), llvm::cl::cat(category)};
  llvm::cl::opt<std::string> multiCopy{
      "multi-copy",
      llvm::cl::desc("With a mesh: split the regions around collectives into "
                     "N copies whose communication overlaps the next copy's "
                     "compute (default 1: no split; auto: 1, 2 or 4, the "
                     "fastest in a simulation of the plans)"),
      llvm::cl::value_desc("N|auto"), llvm::cl::init("1"),
      llvm::cl::cat(category)};
  llvm::cl::opt<bool> multiCopyReport{
      "multi-copy-report",
      llvm::cl::desc("Print how --multi-copy split each collective's region "
                     "and why regions stop"),
      llvm::cl::cat(category)};
};
} // namespace

int mlir::ms::msCompileMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllTargetBackends();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  Options options;
  // --help lists ms-compile's options, not every LLVM backend flag (the
  // --mlir-print-ir-*, --mlir-timing and other MLIR options still work;
  // --help-hidden lists them).
  llvm::cl::HideUnrelatedOptions(options.category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "ms compiler: an ONNX model or msgraph IR in, a module file out\n");

  // The progress line (on a terminal, or with MS_PROGRESS): erased before
  // any error, diagnostic or report, and at the end.
  std::unique_ptr<ProgressPrinter> progress;
  if (options.compileTo.empty())
    progress = createProgressPrinter("ms-compile");
  auto clearProgress = [&] {
    if (progress)
      progress->clear();
  };
  auto fail = [&](const Twine &message) {
    clearProgress();
    llvm::errs() << "ms-compile: error: " << message << "\n";
    return 1;
  };
  std::vector<std::string> phases = getCompilePhases(options.target);
  if (phases.empty())
    return fail("target '" + options.target +
                "' is not built into this compiler; built targets: " +
                llvm::join(getRegisteredTargetBackends(), ", "));
  if (!options.compileTo.empty() &&
      !llvm::is_contained(phases, options.compileTo.getValue()))
    return fail("unknown --compile-to phase '" + options.compileTo +
                "'; expected one of " + llvm::join(phases, ", "));
  if (options.dryRun && (!options.compileTo.empty() || !options.output.empty()))
    return fail("--dry-run writes no module and prints no IR; it takes "
                "neither -o nor --compile-to");
  if (!options.simulate.empty() && !options.dryRun)
    return fail("--simulate replays the plan of a dry run; add --dry-run");
  if (!options.simulateTrace.empty() && options.simulate.empty())
    return fail("--simulate-trace needs --simulate PRESET");
  if (std::string error; !options.simulate.empty() &&
                         failed(exec::lookupSimPreset(options.simulate, error)))
    return fail("--simulate: " + error);
  if (options.compileTo.empty() && options.output.empty() && !options.dryRun)
    return fail("no output file; pass -o FILE (or --compile-to STAGE, or "
                "--dry-run)");
  CompileOptions compile;
  compile.optLevel = options.optLevel;
  compile.target = options.target;
  compile.targetOptions.cpu = options.targetCpu;
  compile.targetOptions.cudaArch = options.cudaArch;
  compile.targetOptions.cudaTma = options.cudaTma;
  compile.targetOptions.cudaProducerWarp = options.cudaProducerWarp;
  compile.targetOptions.cudaWideTiles = options.cudaWideTiles;
  compile.targetOptions.cudaPersistentBlocks = options.cudaPersistentBlocks;
  compile.targetOptions.precision = options.precision;
  compile.compileTo = options.compileTo;
  if (options.multiCopy == "auto")
    compile.multiCopy = kMultiCopyAuto;
  else if (StringRef(options.multiCopy).getAsInteger(10, compile.multiCopy) ||
           compile.multiCopy < 1)
    return fail("--multi-copy: expected a number of copies from 1 to 64 or "
                "auto, found '" +
                options.multiCopy + "'");
  compile.multiCopyReport = options.multiCopyReport;
  if (options.multiCopyReport && compile.multiCopy == 1)
    return fail("--multi-copy-report reports a split: add --multi-copy N "
                "(N >= 2, or auto)");
  if (compile.multiCopy != 1 && options.mesh.empty() &&
      !StringRef(options.input).ends_with(".mlir"))
    return fail("--multi-copy splits the regions around collectives: it "
                "needs a mesh (--mesh SHAPE)");
  if (!options.noCache)
    compile.targetOptions.cacheDir = options.cacheDir.getNumOccurrences()
                                         ? options.cacheDir.getValue()
                                         : KernelCache::defaultDirectory();
  if (std::string error; failed(verifyCompileOptions(compile, error)))
    return fail(error);
  StringRef extension = llvm::sys::path::extension(options.input);
  bool isOnnx = extension == ".onnx";
  if (extension != ".mlir" && extension != ".mlirbc" && !isOnnx)
    return fail("unsupported input '" + options.input +
                "': expected an ONNX model (.onnx) or msgraph IR (.mlir)");
  OnnxImportOptions importOptions;
  for (const std::string &text : options.inputShapes) {
    std::string error;
    if (!parseInputShape(text, importOptions, error))
      return fail("--input-shape: " + error);
  }
  if (!isOnnx && (!options.inputShapes.empty() || !options.boundInputs.empty()))
    return fail("--input-shape and --bind-input apply to ONNX models only");
  if (options.externalWeights && !isOnnx)
    return fail("--external-weights applies to ONNX models only (their "
                "external-data files)");
  importOptions.recordExternalData = options.externalWeights;
  importOptions.mapWeights = !options.noMappedWeights;

  DialectRegistry registry;
  registerAllDialects(registry);
  // On the heap: a successful compile leaves it to the process's exit
  // (below), as clang's -disable-free does.
  auto ownedContext = std::make_unique<MLIRContext>(registry);
  MLIRContext &context = *ownedContext;
  // A user-facing error is a few lines: the op it is about is printed only
  // when asked (--mlir-print-op-on-diagnostic).
  auto &registered = llvm::cl::getRegisteredOptions();
  auto printOp = registered.find("mlir-print-op-on-diagnostic");
  if (printOp == registered.end() || printOp->second->getNumOccurrences() == 0)
    context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now(), imported, compiled;
  auto seconds = [](Clock::time_point from, Clock::time_point to) {
    return llvm::formatv("{0:f3} s",
                         std::chrono::duration<double>(to - from).count())
        .str();
  };
  // --time-report: each part's time, and what the kernel cache gave.
  auto report = [&](bool wrote, bool unchanged = false) {
    if (!options.timeReport)
      return;
    Clock::time_point end = Clock::now();
    llvm::errs() << "ms-compile: time: read and import "
                 << seconds(start, imported) << ", passes and code generation "
                 << seconds(imported, compiled);
    if (wrote)
      llvm::errs() << ", write " << seconds(compiled, end)
                   << (unchanged ? " (the file held the same bytes)" : "");
    llvm::errs() << ", total " << seconds(start, end) << "\n";
    KernelCacheStats cache = KernelCache::stats();
    if (compile.targetOptions.cacheDir.empty()) {
      llvm::errs() << "ms-compile: kernel cache: off\n";
      return;
    }
    llvm::errs() << "ms-compile: kernel cache ("
                 << compile.targetOptions.cacheDir << "): " << cache.hits
                 << " of " << cache.hits + cache.misses
                 << " code parts reused, " << cache.misses << " compiled";
    if (cache.linkedHits)
      llvm::errs() << ", " << cache.linkedHits
                   << (cache.linkedHits == 1 ? " linked library"
                                             : " linked libraries")
                   << " reused";
    llvm::errs() << "\n";
  };
  std::string errorMessage;
  // MLIR is read whole (its diagnostics quote it); an ONNX model is mapped
  // by the importer, which copies its weights from the mapping.
  llvm::SourceMgr sourceMgr;
  if (!isOnnx) {
    auto file = openInputFile(options.input, &errorMessage);
    if (!file)
      return fail(errorMessage);
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  } else if (!llvm::sys::fs::exists(options.input)) {
    return fail("cannot open input file '" + options.input +
                "': No such file or directory");
  }
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  llvm::scope_exit stopProgress([&] {
    setProgressHandler(nullptr);
    clearProgress();
  });
  if (progress) {
    setProgressHandler(
        [&](const ProgressUpdate &update) { progress->print(update); });
    context.getDiagEngine().registerHandler([&](Diagnostic &) {
      progress->clear();
      return failure();
    });
  }
  // --mesh and --shard: the layout the user asks for.
  dist::ShardingRequest sharding;
  llvm::StringSet<> applied;
  if (!options.shardings.empty() && options.mesh.empty())
    return fail("--shard needs a mesh: add --mesh SHAPE");
  if (!options.meshAxes.empty() && options.mesh.empty())
    return fail("--mesh-axes needs a mesh: add --mesh SHAPE");
  if (!options.mesh.empty()) {
    std::string error;
    sharding.mesh =
        dist::parseMesh(&context, options.mesh, options.meshAxes, error);
    if (!sharding.mesh)
      return fail("--mesh: " + error);
    for (const std::string &text : options.shardings) {
      auto [name, specText] = StringRef(text).split('=');
      if (name.empty() || !StringRef(text).contains('='))
        return fail("--shard: expected NAME=SPEC, but found '" + text + "'");
      dist::SpecAttr spec = dist::parseSpec(&context, specText, error);
      if (!spec)
        return fail("--shard " + text + ": " + error);
      if (std::string problem =
              dist::checkSpec(spec, sharding.mesh, spec.getDims().size());
          !problem.empty())
        return fail("--shard " + text + ": " + problem);
      sharding.specs[name] = spec;
    }
    importOptions.annotateValue = [&](OpBuilder &b, Location loc,
                                      StringRef name, Value value) -> Value {
      auto it = sharding.specs.find(name);
      if (it == sharding.specs.end() || isa<BlockArgument>(value) ||
          !isa<RankedTensorType>(value.getType()))
        return value;
      applied.insert(name);
      return dist::ConstraintOp::create(b, loc, value, it->second);
    };
  }
  reportProgress({"import"});
  for (const std::string &text : options.boundInputs) {
    auto [name, path] = StringRef(text).split('=');
    if (name.empty() || path.empty())
      return fail("--bind-input: expected NAME=FILE.npy, but found '" + text +
                  "'");
    auto value = readNpyFile(path, &context, UnknownLoc::get(&context));
    if (failed(value))
      return 1;
    importOptions.boundInputs[name] = *value;
  }
  OwningOpRef<ModuleOp> module;
  if (isOnnx) {
    importOptions.modelDirectory =
        llvm::sys::path::parent_path(options.input).str();
    if (importOptions.modelDirectory.empty())
      importOptions.modelDirectory = ".";
    module = importOnnxFile(options.input, &context, importOptions);
  } else {
    StringRef text =
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
    std::string problem = screenMlirSource(text, options.input);
    if (!problem.empty()) {
      llvm::errs() << problem << "\n";
      return 1;
    }
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return 1;
  if (sharding.mesh) {
    func::FuncOp entry = findEntryFunction(*module, "");
    if (!entry)
      return 1;
    dist::applyShardingRequest(*module, entry, sharding, applied);
    for (const auto &spec : sharding.specs)
      if (!applied.contains(spec.first()))
        return fail("--shard " + spec.first().str() + ": '" +
                    spec.first().str() + "' names no " +
                    (isOnnx ? "input, output, initializer or node output of "
                              "the model"
                            : "input or output of the entry function (use "
                              "msdist.constraint in the IR for other values)"));
  }
  imported = Clock::now();

  DriverOptions driver;
  driver.memoryReport = options.memoryReport;
  driver.moduleBytes = false;
  driver.dryRun = options.dryRun;
  driver.simulatePreset = options.simulate;
  driver.simulateTrace = options.simulateTrace;
  driver.configurePassManager = [](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
    return success();
  };
  if (failed(compileModule(*module, compile, driver, llvm::outs())))
    return 1;
  compiled = Clock::now();
  if (!options.compileTo.empty() || options.dryRun) {
    clearProgress();
    report(/*wrote=*/false);
    return 0;
  }
  reportProgress({"write"});

  // Written atomically, and not at all when the file there holds the same
  // bytes (a recompilation).
  StringRef dir = llvm::sys::path::parent_path(options.output);
  ModuleWriteOptions writeOptions;
  writeOptions.moduleDirectory = dir.empty() ? "." : dir.str();
  std::string error;
  OutputFileResult written = writeOutputFile(
      options.output,
      [&](llvm::raw_pwrite_stream &os) {
        return succeeded(writeModuleFile(*module, os, writeOptions));
      },
      error);
  if (written == OutputFileResult::WriteFailed)
    return 1;
  if (written == OutputFileResult::Error)
    return fail(error);
  clearProgress();
  report(/*wrote=*/true, written == OutputFileResult::Unchanged);
  // Freeing the module and the weights it holds one by one would take
  // longer than the process's exit takes to give back their pages.
  llvm::BuryPointer(module.release().getOperation());
  llvm::BuryPointer(std::move(ownedContext));
  return 0;
}
