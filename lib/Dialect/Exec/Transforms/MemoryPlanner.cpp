//===- MemoryPlanner.cpp - static arena planning by liveness --------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/MemoryPlanner.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mlir::ms;

static uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

MemoryPlan mlir::ms::planMemory(std::vector<PlannedBuffer> &buffers,
                                uint64_t alignment) {
  MemoryPlan plan;
  std::vector<size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  // Largest first (ties: earliest first) packs best in practice.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (buffers[a].size != buffers[b].size)
      return buffers[a].size > buffers[b].size;
    return buffers[a].firstUse < buffers[b].firstUse;
  });
  std::vector<size_t> placed;
  for (size_t index : order) {
    PlannedBuffer &buffer = buffers[index];
    plan.totalBytes += buffer.size;
    // Collect the byte ranges taken by placed buffers live at the same time.
    std::vector<std::pair<uint64_t, uint64_t>> taken;
    for (size_t other : placed) {
      const PlannedBuffer &o = buffers[other];
      if (o.lastUse < buffer.firstUse || buffer.lastUse < o.firstUse)
        continue;
      taken.push_back({o.offset, o.offset + o.size});
    }
    std::sort(taken.begin(), taken.end());
    // First fit in the gaps between taken ranges.
    uint64_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + buffer.size <= begin)
        break;
      offset = std::max(offset, alignTo(end, alignment));
    }
    buffer.offset = offset;
    plan.arenaSize =
        std::max(plan.arenaSize, alignTo(offset + buffer.size, alignment));
    placed.push_back(index);
  }
  // Peak of live bytes over steps.
  std::map<int64_t, int64_t> delta;
  for (const PlannedBuffer &b : buffers) {
    delta[b.firstUse] += b.size;
    delta[b.lastUse + 1] -= b.size;
  }
  int64_t live = 0;
  for (auto [step, d] : delta) {
    live += d;
    plan.peakLiveBytes = std::max<uint64_t>(plan.peakLiveBytes, live);
  }
  return plan;
}
