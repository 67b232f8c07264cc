//===- EmitEntryPoints.cpp - functions the runtime calls ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/RepeatedSteps.h"
#include "ms/Target/CPU/CPUTarget.h"
#include "ms/runtime/ModuleFormat.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUEMITENTRYPOINTSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

namespace {
/// Emits the entry points of one CPU executable.
class EntryPointEmitter {
public:
  EntryPointEmitter(ExecutableOp executable)
      : executable(executable), kernels(executable.getInnerModule()),
        b(OpBuilder::atBlockEnd(kernels.getBody())),
        ptr(LLVM::LLVMPointerType::get(executable.getContext())) {}

  /// Returns the lowered kernel `launch` calls, or null after an error.
  LLVM::LLVMFuncOp lookupCallee(LaunchOp launch);
  /// Adds `void ms_<kernel>(void **args)` calling `callee`.
  void emitKernelWrapper(LLVM::LLVMFuncOp callee);
  /// Adds `void <name>(void **args)` running the steps of `offload`.
  LogicalResult emitGraph(OffloadOp offload, StringRef name);

private:
  /// Creates `void name(void **)` and returns its argument.
  Value createEntry(StringRef name, Location loc);
  /// Emits `steps` (launches and copies) at the builder, the buffer of
  /// operand `o` of step `i` at `pointerOf(i, o)`.
  LogicalResult
  emitSteps(ArrayRef<Operation *> steps,
            function_ref<FailureOr<Value>(size_t, unsigned)> pointerOf);
  /// Adds `void name(ptr...)`, internal and never inlined, running the
  /// first run of `repeat` on its arguments' pointers.
  LLVM::LLVMFuncOp emitBody(ArrayRef<Operation *> steps,
                            const RepeatedSteps &repeat, StringRef name);
  /// Loads args[i].
  Value loadArg(Value args, int64_t i, Location loc);

  ExecutableOp executable;
  ModuleOp kernels;
  OpBuilder b;
  Type ptr;
};
} // namespace

LLVM::LLVMFuncOp EntryPointEmitter::lookupCallee(LaunchOp launch) {
  auto callee = kernels.lookupSymbol<LLVM::LLVMFuncOp>(
      launch.getKernel().getLeafReference());
  if (!callee) {
    launch.emitError("expected lowered kernel ") << launch.getKernel();
    return nullptr;
  }
  // The runtime passes one pointer per buffer: every argument must be one.
  if (!llvm::all_of(callee.getArgumentTypes(),
                    [](Type t) { return isa<LLVM::LLVMPointerType>(t); })) {
    callee.emitError("expected kernel @")
        << callee.getSymName()
        << " to take only buffer pointers after lowering, but its signature "
           "is "
        << callee.getFunctionType();
    return nullptr;
  }
  callee.setLinkage(LLVM::Linkage::Internal);
  return callee;
}

Value EntryPointEmitter::createEntry(StringRef name, Location loc) {
  auto voidType = LLVM::LLVMVoidType::get(b.getContext());
  b.setInsertionPointToEnd(kernels.getBody());
  auto entry = LLVM::LLVMFuncOp::create(
      b, loc, name, LLVM::LLVMFunctionType::get(voidType, {ptr}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToEnd(body);
  return body->getArgument(0);
}

Value EntryPointEmitter::loadArg(Value args, int64_t i, Location loc) {
  Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, args,
                                   ArrayRef<LLVM::GEPArg>{(int32_t)i});
  return LLVM::LoadOp::create(b, loc, ptr, slot);
}

void EntryPointEmitter::emitKernelWrapper(LLVM::LLVMFuncOp callee) {
  Location loc = callee.getLoc();
  Value args = createEntry(
      (::ms::format::kKernelPrefix + callee.getSymName()).str(), loc);
  SmallVector<Value> operands;
  for (unsigned j = 0; j < callee.getNumArguments(); ++j)
    operands.push_back(loadArg(args, j, loc));
  LLVM::CallOp::create(b, loc, callee, operands);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
}

LogicalResult EntryPointEmitter::emitSteps(
    ArrayRef<Operation *> steps,
    function_ref<FailureOr<Value>(size_t, unsigned)> pointerOf) {
  for (auto [i, op] : llvm::enumerate(steps)) {
    SmallVector<Value> operands;
    for (unsigned o = 0; o < op->getNumOperands(); ++o) {
      FailureOr<Value> p = pointerOf(i, o);
      if (failed(p))
        return failure();
      operands.push_back(*p);
    }
    Location loc = op->getLoc();
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      LLVM::LLVMFuncOp callee = lookupCallee(launch);
      if (!callee)
        return failure();
      if (callee.getNumArguments() != operands.size())
        return launch.emitError("expected ")
               << callee.getNumArguments() << " buffers for kernel "
               << launch.getKernel() << ", but found " << operands.size();
      LLVM::CallOp::create(b, loc, callee, operands);
      continue;
    }
    auto copy = cast<CopyOp>(op);
    uint64_t size =
        cast<BufferType>(copy.getSource().getType()).getStaticByteSize();
    Value bytes = LLVM::ConstantOp::create(b, loc, b.getI64Type(), size);
    LLVM::MemmoveOp::create(b, loc, operands[1], operands[0], bytes,
                            /*isVolatile=*/false);
  }
  return success();
}

LLVM::LLVMFuncOp EntryPointEmitter::emitBody(ArrayRef<Operation *> steps,
                                             const RepeatedSteps &repeat,
                                             StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  Location loc = steps[repeat.start]->getLoc();
  b.setInsertionPointToEnd(kernels.getBody());
  auto body = LLVM::LLVMFuncOp::create(
      b, loc, name,
      LLVM::LLVMFunctionType::get(
          LLVM::LLVMVoidType::get(b.getContext()),
          SmallVector<Type>(repeat.representatives.size(), ptr)));
  body.setLinkage(LLVM::Linkage::Internal);
  body.setNoInline(true);
  b.setInsertionPointToEnd(body.addEntryBlock(b));
  if (failed(emitSteps(steps.slice(repeat.start, repeat.length),
                       [&](size_t i, unsigned o) -> FailureOr<Value> {
                         return body.getArgument(repeat.argumentOf[i][o]);
                       })))
    return nullptr;
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return body;
}

LogicalResult EntryPointEmitter::emitGraph(OffloadOp offload, StringRef name) {
  Location loc = offload.getLoc();
  SmallVector<Operation *> steps = llvm::map_to_vector(
      offload.getBody().front(), [](Operation &op) { return &op; });
  // A repeated run of steps (identical layers) becomes one body called
  // once per run, before the graph function so that errors come first.
  RepeatedSteps repeat = findRepeatedSteps(steps);
  LLVM::LLVMFuncOp body;
  if (repeat.count) {
    body = emitBody(steps, repeat, (name + "_body").str());
    if (!body)
      return failure();
  }
  Value args = createEntry(name, loc);
  Value weights = loadArg(args, 0, loc);
  Value arena = loadArg(args, 1, loc);
  DenseMap<Value, Value> pointers;
  for (auto [i, buffer] : llvm::enumerate(offload.getCallerBuffers()))
    pointers[buffer] = loadArg(args, 2 + i, loc);
  auto at = [&](Value base, std::optional<int64_t> offset) -> Value {
    Value bytes = LLVM::ConstantOp::create(b, loc, b.getI64Type(), *offset);
    return LLVM::GEPOp::create(b, loc, ptr, b.getI8Type(), base,
                               ArrayRef<LLVM::GEPArg>{bytes});
  };
  auto pointerOf = [&](Value buffer) -> FailureOr<Value> {
    if (Value p = pointers.lookup(buffer))
      return p;
    Operation *def = buffer.getDefiningOp();
    std::optional<int64_t> offset;
    Value base;
    if (auto weight = dyn_cast<WeightOp>(def)) {
      offset = weight.getOffset();
      base = weights;
    } else if (auto alloc = dyn_cast<AllocOp>(def)) {
      offset = alloc.getOffset();
      base = arena;
    }
    if (!offset)
      return def->emitError("expected a placed buffer (run "
                            "msexec-plan-memory first)");
    Value p = at(base, offset);
    pointers[buffer] = p;
    return p;
  };
  // Steps [from, to) of the graph, one by one.
  auto emitRange = [&](size_t from, size_t to) {
    return emitSteps(ArrayRef<Operation *>(steps).slice(from, to - from),
                     [&](size_t i, unsigned o) {
                       return pointerOf(steps[from + i]->getOperand(o));
                     });
  };
  // (Without a repeat: every step from 0, one by one.)
  if (failed(emitRange(0, repeat.start)))
    return failure();
  for (size_t r = 0; r < repeat.count; ++r) {
    SmallVector<Value> operands;
    for (unsigned a = 0; a < repeat.representatives.size(); ++a) {
      FailureOr<Value> p = pointerOf(repeat.getBinding(steps, r, a));
      if (failed(p))
        return failure();
      operands.push_back(*p);
    }
    LLVM::CallOp::create(b, loc, body, operands);
  }
  if (failed(
          emitRange(repeat.start + repeat.length * repeat.count, steps.size())))
    return failure();
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  offload.setEntry(name);
  return success();
}

namespace {
struct CPUEmitEntryPointsPass final
    : mlir::ms::impl::CPUEmitEntryPointsPassBase<CPUEmitEntryPointsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto executable : module.getOps<ExecutableOp>()) {
      if (executable.getTarget() != "cpu")
        continue;
      EntryPointEmitter emitter(executable);
      // A variant's copy exports the entry points of the executable the
      // plan refers to: the runtime loads one of them by the same names.
      StringAttr planned = executable.getSymNameAttr();
      if (auto of =
              executable->getAttrOfType<FlatSymbolRefAttr>(kVariantOfAttrName))
        planned = of.getAttr();
      auto ours = [&](LaunchOp launch) {
        return launch.getKernel().getRootReference() == planned;
      };
      llvm::SetVector<Operation *> wrapped;
      int64_t graphs = 0;
      for (auto plan : module.getOps<PlanOp>()) {
        for (Operation &op : plan.getBody().front()) {
          if (auto launch = dyn_cast<LaunchOp>(op); launch && ours(launch)) {
            LLVM::LLVMFuncOp callee = emitter.lookupCallee(launch);
            if (!callee)
              return signalPassFailure();
            if (wrapped.insert(callee))
              emitter.emitKernelWrapper(callee);
          }
          auto offload = dyn_cast<OffloadOp>(op);
          if (!offload)
            continue;
          bool mine = llvm::all_of(offload.getBody().getOps<LaunchOp>(), ours);
          if (!mine)
            continue;
          if (failed(emitter.emitGraph(
                  offload, "ms_graph_" + std::to_string(graphs++))))
            return signalPassFailure();
        }
      }
    }
  }
};
} // namespace
