//===- CUDATarget.cpp - the NVIDIA GPU code generator ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Kernels lower like the CPU's to bufferized loop nests, which
// ms-cuda-map-to-gpu turns into launches of GPU functions; those go through
// nvvm to PTX (LLVM's NVPTX backend, libdevice linked when used). The
// `cuda-ptx` section is a JSON document: the PTX and, per kernel the plan
// launches, its scratch buffers and its launches (function, grid, block,
// arguments); per offloaded graph (O2), its kernels and copies in order.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"

#include "ms/Transforms/Passes.h"
#include "ms/runtime/ModuleFormat.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::ms;

namespace {
/// An architecture ms generates code for and the PTX ISA it needs.
struct CudaArch {
  StringLiteral name;
  StringLiteral features;
};
constexpr CudaArch kCudaArchs[] = {
    {"sm_80", "+ptx80"},   {"sm_86", "+ptx80"},  {"sm_89", "+ptx80"},
    {"sm_90", "+ptx80"},   {"sm_90a", "+ptx80"}, {"sm_100", "+ptx86"},
    {"sm_100a", "+ptx86"}, {"sm_120", "+ptx87"}, {"sm_120a", "+ptx87"},
};
} // namespace

StringRef mlir::ms::getCudaPtxFeatures(StringRef arch) {
  for (const CudaArch &known : kCudaArchs)
    if (known.name == arch)
      return known.features;
  return {};
}

std::string mlir::ms::getCudaArchForDevice(StringRef deviceArch) {
  unsigned device = 0;
  if (!deviceArch.consume_front("sm_") || deviceArch.getAsInteger(10, device))
    return "";
  std::string best;
  unsigned bestVersion = 0;
  for (const CudaArch &known : kCudaArchs) {
    StringRef name = known.name.drop_front(3);
    bool specific = name.consume_back("a");
    unsigned version = 0;
    if (name.getAsInteger(10, version))
      continue;
    // The device's own arch-specific target first, then the newest target
    // it runs.
    if (specific && version == device)
      return known.name.str();
    if (!specific && version <= device && version >= bestVersion) {
      best = known.name.str();
      bestVersion = version;
    }
  }
  return best;
}

/// The CUDA toolkit whose libdevice the kernels link: `$CUDA_HOME`,
/// `$CUDA_PATH`, `$CUDA_ROOT` or /usr/local/cuda, the first that has it;
/// empty when none has.
static std::string findCudaToolkit() {
  SmallVector<std::string> candidates;
  for (const char *name : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (const char *value = std::getenv(name); value && *value)
      candidates.push_back(value);
  candidates.push_back("/usr/local/cuda");
  for (const std::string &dir : candidates) {
    SmallString<256> libdevice(dir);
    llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
    if (llvm::sys::fs::exists(libdevice))
      return dir;
  }
  return {};
}

/// Byte size of a static memref's elements.
static int64_t byteSize(MemRefType type) {
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

Value mlir::ms::getRootMemRef(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

nvgpu::TensorMapSwizzleKind mlir::ms::getTmaSwizzleKind(int64_t rowBytes) {
  assert((rowBytes == 32 || rowBytes == 64 || rowBytes == 128) &&
         "a box's rows of a swizzle's bytes");
  return rowBytes == 128  ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
         : rowBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
                          : nvgpu::TensorMapSwizzleKind::SWIZZLE_32B;
}

int64_t mlir::ms::getTmaSwizzleBytes(nvgpu::TensorMapSwizzleKind swizzle) {
  switch (swizzle) {
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_128B:
    return 128;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_64B:
    return 64;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_32B:
    return 32;
  case nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE:
    return 0;
  }
  llvm_unreachable("unknown swizzle");
}

/// The launches of `func` (a kernel mapped by ms-cuda-map-to-gpu) as JSON:
/// `{"scratch": [bytes...], "launches": [{"function", "grid", "block",
/// "args": [["arg", i] | ["scratch", j] | ["tensor-map", {...}]]}]}`.
static FailureOr<llvm::json::Object> describeLaunches(func::FuncOp func) {
  DenseMap<Value, int64_t> scratch;
  llvm::json::Array scratchBytes, launches;
  // A buffer of the kernel: its argument or scratch buffer.
  auto describeBuffer = [&](Value buffer) -> std::optional<llvm::json::Array> {
    if (auto arg = dyn_cast<BlockArgument>(buffer);
        arg && arg.getOwner() == &func.getBody().front())
      return llvm::json::Array{"arg", arg.getArgNumber()};
    auto it = scratch.find(buffer);
    if (it == scratch.end())
      return std::nullopt;
    return llvm::json::Array{"scratch", it->second};
  };
  // A TMA tensor map (ms-cuda-tile-matmul's) of a static view of a buffer,
  // innermost dimension first: the buffer, the view's offset in bytes, its
  // element type, dimensions, strides in bytes (but the innermost), the
  // box a load copies and its swizzle (bytes a row; 0: none).
  auto describeTensorMap =
      [&](nvgpu::TmaCreateDescriptorOp create) -> FailureOr<llvm::json::Array> {
    Value tensor = create.getTensor();
    if (auto cast = tensor.getDefiningOp<memref::CastOp>())
      tensor = cast.getSource();
    auto type = dyn_cast<MemRefType>(tensor.getType());
    SmallVector<int64_t> strides;
    int64_t offset = 0;
    std::optional<llvm::json::Array> buffer =
        describeBuffer(getRootMemRef(tensor));
    if (!type || !type.hasStaticShape() || !buffer ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return create.emitError("expected a tensor map of a static view of a "
                              "kernel's argument or scratch buffer");
    int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
    std::string typeName;
    llvm::raw_string_ostream(typeName) << type.getElementType();
    llvm::json::Array dims, byteStrides, box;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      dims.push_back(type.getDimSize(d));
      if (d != type.getRank() - 1)
        byteStrides.push_back(strides[d] * bytes);
    }
    for (Value size : llvm::reverse(create.getBoxDimensions())) {
      std::optional<int64_t> n = getConstantIntValue(size);
      if (!n)
        return create.emitError("expected a tensor map of a constant box");
      box.push_back(*n);
    }
    int64_t swizzleBytes =
        getTmaSwizzleBytes(create.getTensorMap().getType().getSwizzle());
    return llvm::json::Array{
        "tensor-map", llvm::json::Object{{"buffer", std::move(*buffer)},
                                         {"offset", offset * bytes},
                                         {"type", typeName},
                                         {"dims", std::move(dims)},
                                         {"strides", std::move(byteStrides)},
                                         {"box", std::move(box)},
                                         {"swizzle", swizzleBytes}}};
  };
  for (Operation &op : func.getBody().front().without_terminator()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(&op)) {
      scratch[alloc] = scratchBytes.size();
      scratchBytes.push_back(byteSize(alloc.getType()));
      continue;
    }
    if (isa<memref::DeallocOp, nvgpu::TmaCreateDescriptorOp>(&op) ||
        isMemoryEffectFree(&op))
      continue;
    auto launch = dyn_cast<gpu::LaunchFuncOp>(&op);
    if (!launch)
      return op.emitError("expected only GPU launches in a kernel for the "
                          "cuda target, but found '")
             << op.getName() << "'";
    auto dims = [&](gpu::KernelDim3 dim) -> FailureOr<llvm::json::Array> {
      llvm::json::Array values;
      for (Value v : {dim.x, dim.y, dim.z}) {
        std::optional<int64_t> n = getConstantIntValue(v);
        if (!n)
          return failure();
        values.push_back(*n);
      }
      return values;
    };
    FailureOr<llvm::json::Array> grid = dims(launch.getGridSizeOperandValues());
    FailureOr<llvm::json::Array> block =
        dims(launch.getBlockSizeOperandValues());
    std::optional<int64_t> sharedBytes = 0;
    if (Value bytes = launch.getDynamicSharedMemorySize())
      sharedBytes = getConstantIntValue(bytes);
    if (failed(grid) || failed(block) || !sharedBytes)
      return launch.emitError("expected a launch of constant shape and "
                              "dynamic shared memory size");
    llvm::json::Array args;
    for (Value operand : launch.getKernelOperands()) {
      // A tensor map goes as its address (ms-cuda-map-to-gpu).
      if (auto cast = operand.getDefiningOp<UnrealizedConversionCastOp>();
          cast && cast->getNumOperands() == 1)
        operand = cast->getOperand(0);
      if (auto create = operand.getDefiningOp<nvgpu::TmaCreateDescriptorOp>()) {
        FailureOr<llvm::json::Array> map = describeTensorMap(create);
        if (failed(map))
          return failure();
        args.push_back(std::move(*map));
        continue;
      }
      std::optional<llvm::json::Array> buffer = describeBuffer(operand);
      if (!buffer)
        return launch.emitError("expected launch arguments that are the "
                                "kernel's arguments, scratch buffers or "
                                "tensor maps");
      args.push_back(std::move(*buffer));
    }
    llvm::json::Object described{
        {"function", launch.getKernelName().getValue()},
        {"grid", std::move(*grid)},
        {"block", std::move(*block)},
        {"args", std::move(args)}};
    // Dynamic shared memory a block, in bytes (absent: none).
    if (*sharedBytes)
      described["shared"] = *sharedBytes;
    launches.push_back(std::move(described));
  }
  return llvm::json::Object{{"scratch", std::move(scratchBytes)},
                            {"launches", std::move(launches)}};
}

/// Elements of a row-wise kernel's result a block computes: whole rows,
/// as many as fit (one row where rows are this long or longer).
static constexpr int64_t kRowTileElements = 1024;
/// Rows longer than that are a block each only where they are at least
/// this many (one per SM of an H100 or H200); fewer long rows keep the
/// reductions split over many blocks.
static constexpr int64_t kMinLongRows = 132;

namespace {
class CUDATargetBackend : public TargetBackend {
public:
  StringRef getName() const override { return "cuda"; }
  StringRef getBinaryFormat() const override { return "cuda-ptx"; }

  LogicalResult verifyOptions(const TargetOptions &options,
                              std::string &error) const override {
    if (!getCudaPtxFeatures(options.cudaArch).empty())
      return success();
    error = "unknown --cuda-arch '" + options.cudaArch + "'; expected one of";
    for (const CudaArch &known : kCudaArchs)
      error += " " + known.name.str();
    return failure();
  }

  bool supportsOptLevel(int level) const override { return level <= 2; }

  /// f32 by default; tf32, bf16 and f16 run the tiled matrix products on
  /// tensor cores (ms-cuda-tile-matmul).
  ArrayRef<StringRef> getPrecisions() const override {
    static const StringRef precisions[] = {"f32", "tf32", "bf16", "f16"};
    return precisions;
  }

  ArrayRef<StringRef> getCodegenPhases() const override {
    static const StringRef phases[] = {"linalg", "bufferized", "gpu", "nvvm"};
    return phases;
  }

  void buildKernelPhase(OpPassManager &pm,
                        const TargetOptions &options) const override {
    pm.addPass(createCUDAPackWeightsPass(
        CUDAPackWeightsPassOptions{options.precision}));
  }

  void buildCodegenPhase(StringRef phase, OpPassManager &pm,
                         const TargetOptions &options) const override {
    OpPassManager &kernels = pm.nest<exec::ExecutableOp>().nest<ModuleOp>();
    if (phase == "linalg") {
      // Half attention's products run on tensor cores (BlockProducts).
      ConvertGraphToLinalgPassOptions lowering;
      lowering.tensorCoreAttention = true;
      buildKernelLinalgPipeline(kernels, lowering);
      // Row-wise kernels (softmax, norms) become a block per row (or per
      // few short rows): their intermediates then stay in the block's
      // shared memory and the kernel is one launch.
      TileFusedKernelsPassOptions rows;
      rows.tileElements = kRowTileElements;
      rows.rowReductionsOnly = true;
      rows.minTiles = kMinLongRows;
      kernels.addNestedPass<func::FuncOp>(createTileFusedKernelsPass(rows));
      kernels.addPass(createCanonicalizerPass());
      kernels.addPass(createCSEPass());
      return;
    }
    if (buildSharedKernelPhase(phase, kernels))
      return;
    if (phase == "gpu") {
      kernels.addPass(createLowerMemRefCopiesPass());
      kernels.addPass(createCUDATileMatmulPass(CUDATileMatmulPassOptions{
          options.precision, options.cudaArch, options.cudaTma,
          options.cudaProducerWarp, options.cudaWideTiles,
          options.cudaPersistentBlocks}));
      kernels.addPass(createCUDAOrderLoopsPass());
      kernels.addPass(createConvertLinalgToParallelLoopsPass());
      kernels.addPass(createCanonicalizerPass());
      kernels.addPass(createCUDAMapToGPUPass());
      kernels.addPass(createCanonicalizerPass());
      kernels.addPass(createCSEPass());
      kernels.addPass(createCUDAContractMultiplyAddsPass());
      // O2: each offloaded part of the plan becomes a CUDA graph.
      pm.addPass(createCUDAEmitGraphsPass());
    } else if (phase == "nvvm") {
      GpuNVVMAttachTargetOptions target;
      target.chip = options.cudaArch;
      target.features = getCudaPtxFeatures(options.cudaArch).str();
      target.optLevel = 3;
      kernels.addPass(createGpuNVVMAttachTarget(target));
      OpPassManager &device = kernels.nest<gpu::GPUModuleOp>();
      device.addPass(memref::createExpandStridedMetadataPass());
      device.addPass(createLowerAffinePass());
      device.addPass(createSCFToControlFlowPass());
      // ldmatrix (nvgpu.ldmatrix from ms-cuda-tile-matmul).
      device.addPass(createConvertNVGPUToNVVMPass());
      ConvertGpuOpsToNVVMOpsOptions nvvm;
      nvvm.useBarePtrCallConv = true;
      device.addPass(createConvertGpuOpsToNVVMOps(nvvm));
      // wgmma (ms-cuda-tile-matmul on sm_90a) as PTX in inline assembly.
      device.addPass(createConvertNVVMToLLVMPass());
      device.addPass(createCanonicalizerPass());
      device.addPass(createCSEPass());
      device.addPass(createReconcileUnrealizedCastsPass());
      // Dynamic shared memory (ms-cuda-tile-matmul's deep pipelines) as
      // PTX's `.extern .shared` array.
      device.addPass(createCUDAExternDynamicSharedPass());
    }
  }

  FailureOr<std::string> serialize(exec::ExecutableOp executable,
                                   const TargetOptions &options,
                                   bool textual) const override {
    ModuleOp kernels = executable.getInnerModule();
    MLIRContext *context = kernels.getContext();
    registerBuiltinDialectTranslation(*context);
    registerGPUDialectTranslation(*context);
    registerLLVMDialectTranslation(*context);
    registerNVVMDialectTranslation(*context);

    std::string ptx;
    for (auto gpuModule : kernels.getOps<gpu::GPUModuleOp>()) {
      ArrayAttr targets = gpuModule.getTargetsAttr();
      auto target = targets && targets.size() == 1
                        ? dyn_cast<gpu::TargetAttrInterface>(targets[0])
                        : gpu::TargetAttrInterface();
      if (!target)
        return gpuModule.emitError("expected one GPU target on the module "
                                   "(run the nvvm phase first)");
      std::string toolkit = findCudaToolkit();
      gpu::TargetOptions serializeOptions(
          toolkit, /*librariesToLink=*/{}, /*cmdOptions=*/{},
          /*elfSection=*/{}, gpu::CompilationTarget::Assembly);
      std::optional<SmallVector<char, 0>> object =
          target.serializeToObject(gpuModule, serializeOptions);
      if (!object)
        return gpuModule.emitError("failed to generate PTX");
      ptx.assign(object->begin(), object->end());
      // Math functions come from libdevice; without it they stay
      // unresolved, which no driver would load. (Device malloc and free
      // are the driver's.)
      SmallVector<StringRef> lines;
      StringRef(ptx).split(lines, '\n');
      for (StringRef line : lines) {
        size_t at = line.find("__nv_");
        if (!line.starts_with(".extern .func") || at == StringRef::npos)
          continue;
        StringRef name = line.drop_front(at).take_until(
            [](char c) { return c == '(' || c == ';' || c == ' '; });
        return gpuModule.emitError("the kernels call '")
               << name
               << "', which libdevice provides, but no CUDA toolkit with "
                  "nvvm/libdevice was found (set CUDA_HOME)";
      }
    }
    if (textual)
      return ptx;

    llvm::json::Object launches;
    for (auto func : kernels.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<llvm::json::Object> described = describeLaunches(func);
      if (failed(described))
        return failure();
      launches[(::ms::format::kKernelPrefix + func.getSymName()).str()] =
          std::move(*described);
    }
    // The offloaded graphs (O2) of this executable's kernels.
    if (auto top = executable->getParentOfType<ModuleOp>()) {
      for (auto plan : top.getOps<exec::PlanOp>()) {
        for (auto offload : plan.getBody().getOps<exec::OffloadOp>()) {
          // Described where its kernels are; a graph of copies alone in
          // the module's first cuda executable.
          std::optional<StringRef> entry = offload.getEntry();
          auto launched = offload.getBody().getOps<exec::LaunchOp>();
          exec::ExecutableOp home = *llvm::find_if(
              top.getOps<exec::ExecutableOp>(),
              [](exec::ExecutableOp each) { return each.getTarget() == "cuda"; });
          bool ours = launched.empty()
                          ? home == executable
                          : (*launched.begin()).getKernel().getRootReference() ==
                                executable.getSymNameAttr();
          if (plan.getTarget() != "cuda" || !entry || !ours)
            continue;
          FailureOr<llvm::json::Object> graph = describeCudaGraph(offload);
          if (failed(graph))
            return failure();
          launches[*entry] = std::move(*graph);
        }
      }
    }
    llvm::json::Object section{{"version", 1},
                               {"arch", options.cudaArch},
                               {"ptx", std::move(ptx)},
                               {"kernels", std::move(launches)}};
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    os << llvm::json::Value(std::move(section));
    return bytes;
  }
};
} // namespace

void mlir::ms::registerCUDATargetBackend() {
  registerTargetBackend(std::make_unique<CUDATargetBackend>());
}
