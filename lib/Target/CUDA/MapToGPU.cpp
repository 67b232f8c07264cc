//===- MapToGPU.cpp - bufferized kernels as GPU launches ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Each top-level parallel loop of a kernel becomes one launch with one
// thread per iteration; each run of other effectful top-level ops one launch
// of one thread. Launched functions take memrefs only: the kernel's
// arguments and its top-level allocations; everything else they use is
// cloned in.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDAMAPTOGPUPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Threads per block of a parallel loop's launch.
static constexpr int64_t kThreadsPerBlock = 256;
/// The name of the module holding every launched function.
static constexpr StringLiteral kGpuModuleName = "ms_cuda";

/// Whether `op` only reads memory (a load): it is cloned into the launches
/// that use it, where nothing has written in between.
static bool onlyReads(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return !list.empty() &&
         llvm::all_of(list, [](const MemoryEffects::EffectInstance &effect) {
           return isa<MemoryEffects::Read>(effect.getEffect());
         });
}

/// Whether `op` can be cloned into the launches that use its results: it
/// has no effects, or only reads and nothing writes before the use.
static bool isCloneable(Operation *op) {
  return op->getNumRegions() == 0 && (isMemoryEffectFree(op) || onlyReads(op));
}

/// Whether an op from `from` (exclusive) to `to` (exclusive), in one block,
/// may write memory.
static bool writesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !onlyReads(op) &&
        !isa<memref::AllocOp, memref::DeallocOp>(op))
      return true;
  return false;
}

namespace {
/// Top-level ops of a kernel that run as one launch.
struct LaunchGroup {
  /// A parallel loop (its only op), else a run of effectful ops.
  scf::ParallelOp loop;
  SmallVector<Operation *> ops;
};

/// Maps one kernel function.
class KernelMapper {
public:
  KernelMapper(func::FuncOp func, gpu::GPUModuleOp gpuModule)
      : func(func), gpuModule(gpuModule) {}

  LogicalResult map() {
    Block &body = func.getBody().front();
    // Scratch buffers first: a launch takes the place of its group's first
    // op, and may use an allocation made between its ops.
    Operation *firstNonAlloc = nullptr;
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto alloc = dyn_cast<memref::AllocOp>(&op);
      if (!alloc || !alloc->getOperands().empty()) {
        if (!firstNonAlloc)
          firstNonAlloc = &op;
        continue;
      }
      if (firstNonAlloc)
        alloc->moveBefore(firstNonAlloc);
    }
    SmallVector<LaunchGroup> groups;
    // Cloneable ops after the last effectful op of an open run: they join
    // it only if another effectful op follows.
    SmallVector<Operation *> pending;
    for (Operation &op : body.without_terminator()) {
      if (auto alloca = dyn_cast<memref::AllocaOp>(&op))
        return alloca.emitError("expected heap allocations at the top of a "
                                "kernel mapped to the GPU, but found a "
                                "stack allocation");
      if (auto alloc = dyn_cast<memref::AllocOp>(&op)) {
        if (!alloc.getType().hasStaticShape() ||
            !alloc.getType().getLayout().isIdentity())
          return alloc.emitError("expected a static, contiguous scratch "
                                 "buffer, but found ")
                 << alloc.getType();
        continue;
      }
      if (isa<memref::DeallocOp>(&op))
        continue;
      if (isCloneable(&op)) {
        if (!groups.empty() && !groups.back().loop)
          pending.push_back(&op);
        continue;
      }
      if (auto loop = dyn_cast<scf::ParallelOp>(&op)) {
        pending.clear();
        groups.push_back({loop, {loop}});
        continue;
      }
      if (groups.empty() || groups.back().loop)
        groups.emplace_back();
      llvm::append_range(groups.back().ops, pending);
      pending.clear();
      groups.back().ops.push_back(&op);
    }
    for (auto [index, group] : llvm::enumerate(groups))
      if (failed(outline(group, index)))
        return failure();
    // Loads left on the host were cloned where used; none may remain.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (op.use_empty() && onlyReads(&op))
        op.erase();
    for (Operation *op : llvm::reverse(leftovers))
      if (op->use_empty())
        op->erase();
    return success();
  }

private:
  /// Makes `group` a GPU function and launches it in its place.
  LogicalResult outline(LaunchGroup &group, size_t index) {
    Operation *first = group.ops.front();
    Location loc = first->getLoc();
    DenseSet<Operation *> inGroup(group.ops.begin(), group.ops.end());

    // What the group reads from outside: memrefs become parameters; values
    // of ops without effects are cloned in (with what they read).
    llvm::SetVector<Value> params;
    llvm::SetVector<Operation *> cloned;
    std::function<LogicalResult(Value, Operation *)> capture =
        [&](Value value, Operation *user) -> LogicalResult {
      if (params.contains(value))
        return success();
      Operation *def = value.getDefiningOp();
      if (!def || isa<memref::AllocOp>(def)) {
        if (!isa<MemRefType>(value.getType()))
          return user->emitError("expected kernel arguments mapped to the "
                                 "GPU to be memrefs, but found ")
                 << value.getType();
        params.insert(value);
        return success();
      }
      if (cloned.contains(def))
        return success();
      if (!isCloneable(def) ||
          (onlyReads(def) && writesBetween(def, group.ops.front())))
        return user->emitError("cannot map this kernel to the GPU: it uses "
                               "a value computed by another launch ('")
               << def->getName() << "'), not passed through memory";
      for (Value operand : def->getOperands())
        if (failed(capture(operand, def)))
          return failure();
      cloned.insert(def);
      return success();
    };
    for (Operation *op : group.ops) {
      WalkResult walk = op->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          Operation *def = operand.getDefiningOp();
          Block *block = operand.getParentBlock();
          bool outside = block == &func.getBody().front() &&
                         !(def && inGroup.contains(def));
          if (outside && failed(capture(operand, inner)))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }

    // Launch shape: one thread per iteration of a parallel loop.
    int64_t threads = 1, blocks = 1;
    SmallVector<int64_t> lower, step, trips;
    if (scf::ParallelOp loop = group.loop) {
      if (!loop.getInitVals().empty())
        return loop.emitError("cannot map a parallel loop with reductions "
                              "to the GPU yet");
      int64_t total = 1;
      for (auto [lb, ub, st] : llvm::zip(
               loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
        std::optional<int64_t> l = getConstantIntValue(lb);
        std::optional<int64_t> u = getConstantIntValue(ub);
        std::optional<int64_t> s = getConstantIntValue(st);
        if (!l || !u || !s || *s <= 0)
          return loop.emitError("expected a parallel loop with constant "
                                "bounds and steps to map to the GPU");
        lower.push_back(*l);
        step.push_back(*s);
        trips.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
        total *= trips.back();
      }
      if (total == 0) {
        loop.erase();
        return success();
      }
      threads = std::min(total, kThreadsPerBlock);
      blocks = (total + threads - 1) / threads;
      if (blocks > std::numeric_limits<int32_t>::max())
        return loop.emitError("expected at most 2^31 - 1 blocks of ")
               << threads << " threads, but the loop needs " << blocks;
    }

    // The function, in the module every kernel's launches share.
    OpBuilder builder(gpuModule.getBodyRegion());
    builder.setInsertionPointToEnd(gpuModule.getBody());
    SmallVector<Type> types =
        llvm::map_to_vector(params, [](Value v) { return v.getType(); });
    std::string name = (func.getSymName() + "_" + Twine(index)).str();
    auto gpuFunc = gpu::GPUFuncOp::create(builder, loc, name,
                                          builder.getFunctionType(types, {}));
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     builder.getUnitAttr());
    gpuFunc.setKnownBlockSizeAttr(
        builder.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    gpuFunc.setKnownGridSizeAttr(
        builder.getDenseI32ArrayAttr({static_cast<int32_t>(blocks), 1, 1}));
    SymbolTable(gpuModule).insert(gpuFunc);

    Block &entry = gpuFunc.getBody().front();
    builder.setInsertionPointToStart(&entry);
    IRMapping mapping;
    for (auto [param, arg] : llvm::zip(params, entry.getArguments()))
      mapping.map(param, arg);
    for (Operation *op : cloned)
      builder.clone(*op, mapping);

    if (scf::ParallelOp loop = group.loop) {
      // iteration = block * threads + thread, the innermost dimension
      // varying fastest.
      auto index = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(builder, loc, v);
      };
      Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
      Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
      Value linear = arith::AddIOp::create(
          builder, loc,
          arith::MulIOp::create(builder, loc, block, index(threads)), thread);
      int64_t total = 1;
      for (int64_t trip : trips)
        total *= trip;
      if (blocks * threads != total) {
        Value inBounds = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ult, linear, index(total));
        auto guard = scf::IfOp::create(builder, loc, inBounds);
        builder.setInsertionPointToStart(guard.thenBlock());
      }
      SmallVector<Value> ivs(trips.size());
      Value rest = linear;
      for (int64_t d = trips.size() - 1; d >= 0; --d) {
        Value position = rest;
        if (d > 0) {
          position =
              arith::RemUIOp::create(builder, loc, rest, index(trips[d]));
          rest = arith::DivUIOp::create(builder, loc, rest, index(trips[d]));
        }
        Value scaled =
            step[d] == 1
                ? position
                : arith::MulIOp::create(builder, loc, position, index(step[d]))
                      .getResult();
        ivs[d] = lower[d] == 0 ? scaled
                               : arith::AddIOp::create(builder, loc, scaled,
                                                       index(lower[d]))
                                     .getResult();
      }
      for (auto [iv, value] : llvm::zip(loop.getInductionVars(), ivs))
        mapping.map(iv, value);
      for (Operation &op : loop.getBody()->without_terminator())
        builder.clone(op, mapping);
    } else {
      for (Operation *op : group.ops)
        builder.clone(*op, mapping);
    }
    builder.setInsertionPointToEnd(&entry);
    gpu::ReturnOp::create(builder, loc);

    // The launch, in place of the group.
    builder.setInsertionPoint(first);
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    // Created one by one (not as call arguments, whose order C++ leaves
    // open): the IR is the same with every compiler.
    Value one = constant(1);
    Value gridX = constant(blocks);
    Value blockX = constant(threads);
    gpu::LaunchFuncOp::create(
        builder, loc, gpuFunc, gpu::KernelDim3{gridX, one, one},
        gpu::KernelDim3{blockX, one, one},
        /*dynamicSharedMemorySize=*/Value(), params.getArrayRef());
    // The group's ops go; those of its cloneable ops still used later are
    // cloned by the launches that use them, then erased as dead.
    for (Operation *op : llvm::reverse(group.ops)) {
      if (op->use_empty())
        op->erase();
      else
        leftovers.push_back(op);
    }
    return success();
  }

  func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  /// Cloneable ops of outlined groups that later launches still used.
  SmallVector<Operation *> leftovers;
};

struct CUDAMapToGPUPass
    : public ms::impl::CUDAMapToGPUPassBase<CUDAMapToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        kernels.push_back(func);
    if (kernels.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kGpuModuleName);
    if (!gpuModule) {
      OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
      gpuModule =
          gpu::GPUModuleOp::create(builder, module.getLoc(), kGpuModuleName);
    }
    for (func::FuncOp func : kernels)
      if (failed(KernelMapper(func, gpuModule).map()))
        return signalPassFailure();
    // Constants the launched functions read are copied into their module.
    SymbolTable gpuSymbols(gpuModule);
    gpuModule.walk([&](memref::GetGlobalOp get) {
      if (gpuSymbols.lookup(get.getName()))
        return;
      auto global = module.lookupSymbol<memref::GlobalOp>(get.getName());
      if (global)
        gpuSymbols.insert(global->clone());
    });
  }
};
} // namespace
