//===- Simulator.h - runs NPU kernels, functionally and in time -*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// One launch of a kernel of an npu-program (docs/NPU.md): step by step, each
// core runs the step in turn (cores share nothing but GM, and within a step
// a correct program's result does not depend on their interleaving; the
// next step starts when the last core has finished). Every instruction is
// executed functionally at once, in program order, which is correct for a
// properly synchronized program; alongside, the timing model computes when
// it starts and ends on its pipe, and the race check proves that the
// program's flags order every pair of conflicting accesses that program
// order alone relied on.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPU_SIMULATOR_H
#define MS_RUNTIME_NPU_SIMULATOR_H

#include "npu/NpuProgram.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ms::rt::impl::npu {
/// What one launch measured.
struct LaunchStats {
  /// Cycles from the launch's start to the end of its last core.
  int64_t cycles = 0;
  /// Per pipe: cycles it was busy, summed over the cores (S: issue cycles).
  std::array<int64_t, kPipeCount> busy{};
  /// Per OpKind: instructions executed, summed over the cores (a loop
  /// counts once per execution, not per iteration).
  std::array<int64_t, kOpKindCount> instructions{};
};

/// The timeline lane of a kernel's span (pipes are lanes 0 .. kPipeCount-1).
inline constexpr int kKernelLane = kPipeCount;

/// One span of a timeline.
struct TraceEvent {
  /// What ran: an op ("dma"), a vec function ("exp"), "wait_flag" for a
  /// stalled wait, or the kernel's name on the kernel lane (one span per
  /// step and core).
  std::string name;
  /// The instruction's path ("steps[0][2].body[0]"), or the step's.
  std::string path;
  int core = 0;
  /// A Pipe, or kKernelLane.
  int lane = 0;
  int64_t start = 0;
  int64_t duration = 0;
};

/// Where a launch records its timeline.
struct TraceSink {
  std::vector<TraceEvent> events;
  /// The most events kept; later ones are only counted.
  size_t limit = size_t(1) << 20;
  /// Events not kept.
  uint64_t dropped = 0;

  /// Keeps `event`, or counts it when the sink is full.
  void add(TraceEvent event) {
    if (events.size() < limit)
      events.push_back(std::move(event));
    else
      ++dropped;
  }
};

/// Simulates one launch of `kernel` (of a program for `config`) on the GM
/// buffers `args` (`argCount` host pointers, in the kernel's argument
/// order), allocating its scratch. Sets `stats` and, when `trace` is not
/// NULL, appends the timeline (times from the launch's start). Failures
/// (out of bounds, race, deadlock) name the kernel, the core and the
/// instruction.
Status simulate(const NpuConfig &config, const Kernel &kernel,
                void *const *args, size_t argCount, LaunchStats &stats,
                TraceSink *trace);
} // namespace ms::rt::impl::npu

#endif // MS_RUNTIME_NPU_SIMULATOR_H
