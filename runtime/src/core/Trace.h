//===- Trace.h - timelines of a context's runs ------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// While tracing is on, a context records one span per launch, graph, copy,
// host and collective step it runs: which step of which run, and when it
// started and ended on the steady clock (CLOCK_MONOTONIC on Linux, which
// every process of the machine shares, so the traces of several ranks line
// up). The trace is written as Chrome trace-event JSON: one process per
// rank, one thread per plan queue.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_TRACE_H
#define MS_RUNTIME_CORE_TRACE_H

#include "core/Module.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ms::rt::impl {
/// One step of a traced run and when it ran.
struct TraceSpan {
  /// The step's index in the plan.
  uint32_t step = 0;
  /// The run's index among the runs traced since tracing was enabled.
  uint64_t run = 0;
  /// Steady-clock nanoseconds at the start and end of the step.
  int64_t startNs = 0, endNs = 0;
};

/// The timeline of a context's runs. Thread-safe: the steps of one run
/// record their spans from every queue's thread.
class RunTrace {
public:
  /// The most spans kept; later ones are only counted.
  static constexpr size_t kMaxSpans = size_t(1) << 20;

  /// Returns the steady clock's time in nanoseconds.
  static int64_t now();

  /// Starts recording, dropping the spans recorded so far.
  void enable();
  /// Stops recording; the spans recorded stay until the next enable().
  void disable();
  /// Returns the index of a new traced run, or -1 when tracing is off.
  int64_t startRun();
  /// Records that step `step` of traced run `run` ran from `startNs` to
  /// `endNs`.
  void record(uint32_t step, uint64_t run, int64_t startNs, int64_t endNs);
  /// Writes the spans recorded since the last enable() to `path` as Chrome
  /// trace-event JSON, process `pid` ("rank <pid>"), one thread per queue of
  /// `meta`'s plan. The file is written under a temporary name and renamed,
  /// so a reader never sees a partial trace. Fails when tracing was never
  /// enabled.
  Status write(const std::string &path, int64_t pid,
               const ModuleMeta &meta) const;

private:
  /// Guards every field.
  mutable std::mutex mutex;
  /// True while runs are recorded.
  bool enabled = false;
  /// True once enable() was called: there is a trace to write.
  bool started = false;
  /// Runs traced since enable().
  uint64_t runs = 0;
  /// The spans recorded, at most kMaxSpans.
  std::vector<TraceSpan> recorded;
  /// Spans not kept beyond kMaxSpans.
  uint64_t dropped = 0;
};

/// Returns the name a trace gives step `index` of `meta`'s plan: the
/// kernel's symbol ("kernel <k>" when the module names none), "copy <N>B",
/// the host op, or "<op> <N>B" for a collective (N: its source's bytes).
/// `hostIndex` is the step's position among the host steps.
std::string traceStepName(const ModuleMeta &meta, size_t index,
                          size_t hostIndex);

/// Returns true for the step kinds a trace records.
inline bool isTracedStep(StepKind kind) {
  return kind != StepKind::Signal && kind != StepKind::Wait;
}
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_TRACE_H
