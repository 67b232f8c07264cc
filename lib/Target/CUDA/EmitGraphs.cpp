//===- EmitGraphs.cpp - offloaded graphs (O2) as CUDA graphs --------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// An `msexec.offload` region of cuda launches runs as one CUDA graph. This
// pass names each such region; describeCudaGraph writes the region's steps
// as the graph's nodes for the cuda-ptx section, every buffer as an
// argument of the graph step plus a constant byte offset.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"

#include "ms/runtime/ModuleFormat.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDAEMITGRAPHSPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

/// Whether `offload` (in `plan`) runs as a CUDA graph: the plan is for
/// cuda; an error when the region launches another target's kernels.
static FailureOr<bool> isCudaGraph(PlanOp plan, OffloadOp offload) {
  if (plan.getTarget() != "cuda")
    return false;
  ExecutableOp first;
  for (auto launch : offload.getBody().getOps<LaunchOp>()) {
    ExecutableOp executable = SymbolTable::lookupNearestSymbolFrom<
        ExecutableOp>(launch, launch.getKernel().getRootReference());
    if (!executable || executable.getTarget() != "cuda")
      return launch.emitError("expected the launches of an offloaded graph "
                              "of a cuda plan to be of cuda kernels, but "
                              "found one of target '")
             << (executable ? executable.getTarget() : "?") << "'";
    // The graph is described in one executable's section.
    if (first && executable != first)
      return launch.emitError("expected the launches of an offloaded graph "
                              "to be of one executable, but found @")
             << first.getSymName() << " and @" << executable.getSymName();
    first = executable;
  }
  return true;
}

FailureOr<llvm::json::Object> mlir::ms::describeCudaGraph(OffloadOp offload) {
  // [argument, byte offset] of each buffer: the weights section (0), the
  // arena (1) or a caller's buffer (2 + i).
  DenseMap<Value, int64_t> callers;
  for (auto [i, buffer] : llvm::enumerate(offload.getCallerBuffers()))
    callers[buffer] = 2 + static_cast<int64_t>(i);
  auto refer = [&](Value buffer,
                   Operation *user) -> FailureOr<llvm::json::Value> {
    if (auto it = callers.find(buffer); it != callers.end())
      return llvm::json::Value(llvm::json::Array{it->second, 0});
    Operation *def = buffer.getDefiningOp();
    std::optional<int64_t> offset;
    int64_t argument = 0;
    if (auto weight = dyn_cast_or_null<WeightOp>(def)) {
      offset = weight.getOffset();
    } else if (auto alloc = dyn_cast_or_null<AllocOp>(def)) {
      offset = alloc.getOffset();
      argument = 1;
    }
    if (!offset)
      return user->emitError("expected a placed buffer in an offloaded "
                             "graph (run msexec-plan-memory first)");
    return llvm::json::Value(llvm::json::Array{argument, *offset});
  };
  llvm::json::Array nodes;
  for (Operation &op : offload.getBody().front()) {
    llvm::json::Array args;
    for (Value operand : op.getOperands()) {
      FailureOr<llvm::json::Value> ref = refer(operand, &op);
      if (failed(ref))
        return failure();
      args.push_back(std::move(*ref));
    }
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      nodes.push_back(llvm::json::Object{
          {"kernel", (::ms::format::kKernelPrefix +
                      launch.getKernel().getLeafReference().getValue())
                         .str()},
          {"args", std::move(args)}});
      continue;
    }
    auto copy = cast<CopyOp>(op);
    nodes.push_back(llvm::json::Object{
        {"copy",
         cast<BufferType>(copy.getSource().getType()).getStaticByteSize()},
        {"args", std::move(args)}});
  }
  return llvm::json::Object{{"graph", std::move(nodes)}};
}

namespace {
struct CUDAEmitGraphsPass final
    : mlir::ms::impl::CUDAEmitGraphsPassBase<CUDAEmitGraphsPass> {
  void runOnOperation() override {
    int64_t graphs = 0;
    for (auto plan : getOperation().getOps<PlanOp>()) {
      for (auto offload : plan.getBody().getOps<OffloadOp>()) {
        FailureOr<bool> cuda = isCudaGraph(plan, offload);
        if (failed(cuda))
          return signalPassFailure();
        if (!*cuda)
          continue;
        // The description is checked here, where its errors belong to the
        // pass, and written again by serialization.
        if (failed(describeCudaGraph(offload)))
          return signalPassFailure();
        offload.setEntry("ms_graph_" + std::to_string(graphs++));
      }
    }
  }
};
} // namespace
