//===- MemoryPlanner.h - static arena planning by liveness ------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Assigns every intermediate buffer an offset in one arena so that buffers
// whose live ranges overlap never share bytes (the idea MindSpore calls
// SOMAS). Plain C++ with no MLIR dependency so it can be unit tested.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_TRANSFORMS_MEMORYPLANNER_H
#define MS_DIALECT_EXEC_TRANSFORMS_MEMORYPLANNER_H

#include <cstdint>
#include <vector>

namespace mlir::ms {

/// A buffer to place: `size` bytes live from step `firstUse` through step
/// `lastUse` inclusive.
struct PlannedBuffer {
  uint64_t size = 0;
  int64_t firstUse = 0;
  int64_t lastUse = 0;
  /// Filled in by planMemory: byte offset in the arena.
  uint64_t offset = 0;
};

/// The outcome of planning.
struct MemoryPlan {
  /// Bytes the arena needs.
  uint64_t arenaSize = 0;
  /// The largest sum of sizes of buffers live at one step (a lower bound on
  /// any arena).
  uint64_t peakLiveBytes = 0;
  /// Sum of all buffer sizes (what a plan without reuse would need).
  uint64_t totalBytes = 0;
};

/// Assigns offsets (aligned to `alignment` bytes) to `buffers` in place:
/// largest first, each at the lowest offset that does not overlap a placed
/// buffer with an intersecting live range.
MemoryPlan planMemory(std::vector<PlannedBuffer> &buffers,
                      uint64_t alignment = 64);

} // namespace mlir::ms

#endif // MS_DIALECT_EXEC_TRANSFORMS_MEMORYPLANNER_H
