//===- Simulate.h - timeline simulation of an execution plan ----*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Replays an `msexec.plan` on a modelled machine: every step gets a cost from
// a device model (kernels: FLOPs against peak rate, bytes against memory
// bandwidth, plus a launch overhead) or a link model (collectives: ring
// algorithms over a latency and a bandwidth), queues run their steps in plan
// order and events order them across queues. Ranks are symmetric (SPMD), so
// one rank is simulated. The numbers are model inputs, not measurements:
// they answer "how long would this plan take, and how much of its
// communication would compute hide" for machines the compiler does not run
// on (docs/Architecture.md, "Simulating a plan").
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_EXEC_TRANSFORMS_SIMULATE_H
#define MS_DIALECT_EXEC_TRANSFORMS_SIMULATE_H

#include "ms/Dialect/Exec/IR/ExecOps.h"

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace mlir::ms::exec {
/// The speeds of one device: the inputs of the cost of local work.
struct SimDevice {
  /// Sustained floating-point operations per second of a kernel.
  double flops = 0;
  /// Sustained device memory bytes per second of a kernel or copy.
  double memoryBandwidth = 0;
  /// Seconds every kernel launch (or offloaded graph) costs besides its work.
  double launchOverheadSec = 0;
  /// Seconds a host step costs, whatever it computes.
  double hostStepSec = 0;
};

/// The links between ranks: the inputs of the cost of collectives.
struct SimLink {
  /// Seconds of one step of a ring (or tree) algorithm besides its bytes.
  double latencySec = 0;
  /// Bytes per second one rank moves through the collective: the bus
  /// bandwidth of nccl-tests, so that a ring all-reduce of S bytes over p
  /// ranks takes 2 (p - 1) / p * S / bandwidth.
  double bandwidth = 0;
};

/// A named machine to simulate on.
struct SimPreset {
  /// The name `--simulate` and the pass's `preset` take.
  std::string name;
  /// What the numbers model, for `--help` and the docs.
  std::string summary;
  SimDevice device;
  SimLink link;
};

/// Returns the built-in presets (h100-nvlink, h100-pcie, ethernet, cpu), in
/// the order diagnostics list them.
ArrayRef<SimPreset> getSimPresets();

/// Returns preset `name`, or fails with `error` naming the valid ones.
FailureOr<SimPreset> lookupSimPreset(StringRef name, std::string &error);

/// What a span of the timeline occupies.
enum class SimSpanKind {
  /// The rank's own device or host: kernels, offloaded graphs, copies,
  /// host steps, the local slices of `all_slice`.
  Compute,
  /// A collective that moves data between ranks.
  Communication,
};

/// One step of the simulated timeline.
struct SimSpan {
  /// The plan step (a launch inside an offload for a nested span).
  Operation *step = nullptr;
  /// The kernel, collective or step kind, for reports and traces.
  std::string name;
  SimSpanKind kind = SimSpanKind::Compute;
  int64_t queue = 0;
  /// 0 for a step of the plan; 1 for a launch or copy inside an offload,
  /// which lies within its offload's span and does not add to the totals.
  unsigned depth = 0;
  double startSec = 0;
  double endSec = 0;
  /// The model's inputs for the step: FLOPs of a kernel, bytes of its
  /// buffers (of a collective: the bytes its formula sends).
  double flops = 0;
  uint64_t bytes = 0;
};

/// The outcome of simulating a plan on one rank.
struct SimResult {
  /// When the last queue finishes: the time of one run of the plan.
  double stepSec = 0;
  /// The sum of the compute spans (steps of the plan).
  double computeSec = 0;
  /// The sum of the communication spans.
  double commSec = 0;
  /// The part of the communication spans during which another queue runs
  /// a compute span.
  double hiddenCommSec = 0;
  /// Every span, steps of the plan in plan order with each offload's
  /// launches after it.
  std::vector<SimSpan> spans;

  /// Returns hiddenCommSec / commSec (0 without communication).
  double getHiddenFraction() const;
};

/// Returns the floating-point operations of msgraph op `op` on its static
/// shapes: contractions count two per multiply-add, elementwise ops,
/// reductions, normalizations and pooling a small constant per element;
/// data movement, constants and ops of other dialects count 0. The one
/// place that says what an op costs in FLOPs.
double getGraphOpFlops(Operation *op);

/// Returns the seconds collective `op` keeps the link busy on one rank
/// (ring algorithms; 0 for `all_slice`, which is local) and sets `bytes` to
/// the bytes its formula sends; fails on an unknown collective.
FailureOr<double> getCollectiveSeconds(CollectiveOp op, const SimLink &link,
                                       uint64_t &bytes);

/// Replays `plan` on `preset`. Fails (with a diagnostic) on a kernel that
/// is not a function of msgraph ops (the plan phase) or an unknown
/// collective.
FailureOr<SimResult> simulatePlan(PlanOp plan, const SimPreset &preset);

/// Prints the one-line summary of `result`: the preset and its numbers,
/// step time, compute, communication and hidden communication.
void printSimulation(const SimPreset &preset, const SimResult &result,
                     llvm::raw_ostream &os);

/// Writes the timeline of `result` as Chrome trace-event JSON to `path`
/// (pid 0 the simulated rank, tid the queue); fails with `error`.
LogicalResult writeSimulationTrace(const SimPreset &preset,
                                   const SimResult &result, StringRef path,
                                   std::string &error);
} // namespace mlir::ms::exec

#endif // MS_DIALECT_EXEC_TRANSFORMS_SIMULATE_H
