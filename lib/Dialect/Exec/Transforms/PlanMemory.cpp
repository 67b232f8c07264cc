//===- PlanMemory.cpp - arena and weight placement ------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/Passes.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/runtime/ModuleFormat.h"

#include "llvm/Support/Format.h"

namespace mlir::ms::exec {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::ms::exec

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

void mlir::ms::exec::collectArenaBuffers(PlanOp plan,
                                         SmallVectorImpl<AllocOp> &allocs,
                                         std::vector<PlannedBuffer> &buffers) {
  // Steps in the order they run, offloaded ones and bodies' included.
  SmallVector<Operation *> steps;
  DenseMap<Value, std::pair<int64_t, int64_t>> useRange;
  SmallVector<SmallVector<Value>> operandsOf;
  forEachStep(plan, [&](Operation *op, ValueRange operands) {
    if (isa<LaunchOp, CopyOp, HostOp, CollectiveOp, SignalOp, WaitOp>(op)) {
      steps.push_back(op);
      operandsOf.emplace_back(operands.begin(), operands.end());
    }
  });
  // A step on another queue than 0 runs concurrently with queue 0's later
  // steps: its buffers stay live until queue 0 waits for the first signal
  // its queue makes after it (to the end when queue 0 never does).
  std::vector<int64_t> liveUntil(steps.size());
  for (auto [i, op] : llvm::enumerate(steps)) {
    liveUntil[i] = i;
    int64_t queue = getStepQueue(op);
    if (queue == 0 || isa<SignalOp, WaitOp>(op))
      continue;
    int64_t until = steps.size();
    Value event;
    for (size_t j = i + 1; j < steps.size() && until == (int64_t)steps.size();
         ++j) {
      if (auto signal = dyn_cast<SignalOp>(steps[j]);
          signal && !event && getStepQueue(signal) == queue)
        event = signal.getEvent();
      else if (auto wait = dyn_cast<WaitOp>(steps[j]);
               wait && event && wait.getEvent() == event &&
               getStepQueue(wait) == 0)
        until = j;
    }
    liveUntil[i] = until;
  }
  for (auto [i, operands] : llvm::enumerate(operandsOf))
    for (Value v : operands) {
      auto [it, inserted] = useRange.try_emplace(v, i, liveUntil[i]);
      it->second.second = std::max<int64_t>(it->second.second, liveUntil[i]);
    }
  for (auto alloc : plan.getBody().getOps<AllocOp>()) {
    PlannedBuffer buffer;
    buffer.size = alloc.getByteSize();
    buffer.offset = alloc.getOffset().value_or(0);
    if (auto it = useRange.find(alloc); it != useRange.end())
      std::tie(buffer.firstUse, buffer.lastUse) = it->second;
    allocs.push_back(alloc);
    buffers.push_back(buffer);
  }
}

void mlir::ms::exec::printMemoryReport(PlanOp plan, llvm::raw_ostream &os) {
  SmallVector<AllocOp> allocs;
  std::vector<PlannedBuffer> buffers;
  collectArenaBuffers(plan, allocs, buffers);
  // Recompute peak and totals from the placed buffers.
  std::vector<PlannedBuffer> copy = buffers;
  MemoryPlan stats = planMemory(copy);
  // The weights section, and what one rank reads of it: its own block of
  // each weight sliced per rank.
  uint64_t weights = 0, rankWeights = 0, fileWeights = 0, laidOut = 0;
  bool perRank = false;
  for (auto weight : plan.getBody().getOps<WeightOp>()) {
    if (weight.getFile()) {
      fileWeights += weight.getStorageBytes();
      rankWeights += weight.getStorageBytes();
      // (Laid out from the file into memory as the module loads.)
      if (isa<graph::RelayoutElementsAttr>(weight.getValue()))
        laidOut += weight.getStorageBytes();
      continue;
    }
    weights = std::max<uint64_t>(weights, weight.getOffset().value_or(0) +
                                              weight.getStorageBytes());
    perRank |= weight.getPerRank();
    rankWeights +=
        weight.getPerRank() ? weight.getRankStride() : weight.getStorageBytes();
  }
  os << "memory report\n";
  os << "  peak live bytes:     " << stats.peakLiveBytes << "\n";
  os << "  arena size:          " << plan.getArenaSize().value_or(0) << "\n";
  os << "  sum of buffer sizes: " << stats.totalBytes << "\n";
  os << "  weights:             " << weights << "\n";
  if (fileWeights) {
    os << "  weights in files:    " << fileWeights
       << " (external data the runtime maps";
    if (laidOut)
      os << "; " << laidOut << " of them laid out in memory as it loads";
    os << ")\n";
  }
  if (perRank)
    os << "  weights per rank:    " << rankWeights
       << " (its block of each weight sliced per rank)\n";
  os << "  buffers (arena offset, size, live steps):\n";
  // A buffer's producer is the first step that uses it.
  DenseMap<Value, Operation *> producerOf;
  forEachStep(plan, [&](Operation *op, ValueRange operands) {
    if (isa<LaunchOp, CopyOp, HostOp, CollectiveOp>(op))
      for (Value v : operands)
        producerOf.try_emplace(v, op);
  });
  for (auto [i, alloc] : llvm::enumerate(allocs)) {
    std::string what;
    llvm::raw_string_ostream desc(what);
    Operation *producer = producerOf.lookup(alloc);
    if (auto launch = dyn_cast_or_null<LaunchOp>(producer))
      desc << "result of " << launch.getKernel().getLeafReference().getValue()
           << (launch.getSourceOp() ? " (" + *launch.getSourceOp() + ")" : "");
    else if (auto host = dyn_cast_or_null<HostOp>(producer))
      desc << "result of " << host.getOp();
    else if (auto collective = dyn_cast_or_null<CollectiveOp>(producer))
      desc << "result of " << collective.getOp();
    os << llvm::format("    #%-4zu offset %-10llu size %-10llu steps %lld..%lld  ",
                       i, (unsigned long long)buffers[i].offset,
                       (unsigned long long)buffers[i].size,
                       (long long)buffers[i].firstUse,
                       (long long)buffers[i].lastUse)
       << what << "\n";
  }
}

namespace {
struct PlanMemoryPass final
    : exec::impl::PlanMemoryPassBase<PlanMemoryPass> {
  void runOnOperation() override {
    PlanOp plan = getOperation();
    SmallVector<AllocOp> allocs;
    std::vector<PlannedBuffer> buffers;
    collectArenaBuffers(plan, allocs, buffers);
    MemoryPlan memory = planMemory(buffers, ::ms::format::kAlignment);
    Builder b(&getContext());
    for (auto [alloc, buffer] : llvm::zip_equal(allocs, buffers))
      alloc.setOffsetAttr(b.getI64IntegerAttr(buffer.offset));
    plan.setArenaSizeAttr(b.getI64IntegerAttr(memory.arenaSize));
    uint64_t offset = 0;
    for (auto weight : plan.getBody().getOps<WeightOp>()) {
      if (weight.getFile())
        continue;
      offset = ::ms::format::alignUp(offset);
      weight.setOffsetAttr(b.getI64IntegerAttr(offset));
      offset += weight.getStorageBytes();
    }
  }
};
} // namespace
