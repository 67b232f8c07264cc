//===- Executor.h - running a module's plan ---------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_EXECUTOR_H
#define MS_RUNTIME_CORE_EXECUTOR_H

#include "core/Collective.h"
#include "core/Communicator.h"
#include "core/Module.h"
#include "core/Trace.h"

#include <memory>
#include <mutex>
#include <vector>

namespace ms::rt::impl {
struct RunState;

/// The state of running one module: its arena, allocated once, runtime-owned
/// outputs, allocated on first request, the plan's argument pointers,
/// resolved once so that a run only rebinds the inputs and outputs, and the
/// plan's queues and events. Runs of one context are serialized by the
/// caller (one thread, or one stream).
///
/// The executor is the only code that interprets a plan, for every device:
/// it issues launch and graph steps as Queue::launch, copy steps as
/// Queue::copy, host steps as Queue::hostCallback (on a device whose memory
/// the host cannot read, on host copies of their tensors), and signal and
/// wait steps on the plan's events, each on the step's queue.
/// Collective steps are host callbacks too, over the groups of the
/// context's communicator; the executor makes them run in plan order on
/// every rank (an internal event orders collectives of different queues),
/// so that all ranks meet in the same order.
///
/// While tracing is on (setTrace), every launch, graph, copy, host and
/// collective step is issued as a host callback that times the step around
/// a direct call (Device::callOnHost for launches), so that the context
/// records a span per step; untraced runs issue the steps as they are.
class Context : public std::enable_shared_from_this<Context> {
public:
  /// Creates a context for `module`, allocating its arena and its events.
  /// A module compiled for several ranks needs `comm`, a world of exactly
  /// that size; the groups of its collective steps are connected here. A
  /// NULL `comm` is a world of one process.
  static Status create(std::shared_ptr<Module> module,
                       std::shared_ptr<Communicator> comm,
                       std::shared_ptr<Context> &out);
  /// Creates a context for `module` in a world of one process.
  static Status create(std::shared_ptr<Module> module,
                       std::shared_ptr<Context> &out) {
    return create(std::move(module), nullptr, out);
  }
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  /// Validates and binds the tensors, then runs the plan: to completion when
  /// `stream` is null, else queued with plan queue 0 on `stream` (a queue of
  /// the module's device). See ms_context_run and ms_context_enqueue.
  Status run(const ms_tensor_t *inputs, size_t inputCount, ms_tensor_t *outputs,
             size_t outputCount, Queue *stream);

  /// Returns the module.
  const Module &module() const { return *owner; }

  /// Starts (dropping the spans recorded so far) or stops recording a
  /// timeline of this context's runs; see ms_context_set_trace. Only a
  /// device whose functions run on the host (the CPU) can trace.
  Status setTrace(bool enable);
  /// Writes the spans recorded since tracing was last enabled to `path` as
  /// Chrome trace-event JSON, as process `pid`; see ms_context_write_trace.
  Status writeTrace(const std::string &path, int64_t pid) const;

private:
  explicit Context(std::shared_ptr<Module> module);
  /// Checks the caller's tensors and writes their pointers into `args`.
  Status bind(const ms_tensor_t *inputs, size_t inputCount,
              ms_tensor_t *outputs, size_t outputCount);
  /// Issues every step to `queues` (one per plan queue) with the argument
  /// array `stepArgs`; with `stopOnFailure`, stops once a host step failed.
  /// With `traceRun` >= 0, each step records its span as that traced run.
  Status issue(Queue *const *queues, void **stepArgs,
               const std::shared_ptr<RunState> &run, bool stopOnFailure,
               int64_t traceRun);
  /// Creates the asynchronous queues of plan queues 1.. and the events
  /// joining them to a stream, once.
  Status ensureAsyncQueues();
  /// Runs the plan, queue 0 on the calling thread (an inline queue) and
  /// queues 1.. on the asynchronous queues, and waits for all of them.
  Status runInline(int64_t traceRun);
  /// Queues the plan with queue 0 on `stream`.
  Status enqueue(Queue &stream, int64_t traceRun);

  /// The module this context runs.
  std::shared_ptr<Module> owner;
  /// The scratch arena (device memory).
  void *arena = nullptr;
  /// Runtime-owned outputs, by output index (NULL until requested).
  std::vector<void *> ownedOutputs;
  /// The shape of each output: the static one, or the one the latest run
  /// computed for an output with data-dependent extents.
  std::vector<std::vector<int64_t>> outputShapes;
  /// The storage of each host step (strings it produced).
  std::vector<HostScratch> scratch;
  /// The plan's argument pointers (ModuleMeta::stepArgs resolved).
  std::vector<void *> args;
  /// For each input, then each output, the argument slots it binds.
  std::vector<std::vector<uint32_t>> slots;
  /// The plan's events.
  std::vector<std::unique_ptr<Event>> events;
  /// Signalled after each collective step when the plan has several queues;
  /// a collective on another queue than the previous one waits for it.
  std::unique_ptr<Event> collectiveOrder;
  /// The world this context runs in (NULL for a module of one rank).
  std::shared_ptr<Communicator> comm;
  /// This rank's group of each of the plan's partitions (NULL where no
  /// step of it communicates), and its position there. Declared after
  /// `comm`: released before it.
  std::vector<std::unique_ptr<CommGroup>> groups;
  std::vector<uint32_t> groupPositions;
  /// Host memory the collective steps rearrange blocks in.
  std::vector<uint8_t> collectiveScratch;
  /// Where the device's memory is not host-visible: the device's own
  /// communicator of each group (NULL where it has none; empty on a
  /// host-visible device), and device memory for their scratch blocks.
  std::vector<std::unique_ptr<DeviceCommGroup>> deviceGroups;
  void *deviceScratch = nullptr;
  /// Where the device's memory is not host-visible: host copies of the
  /// source and destination of a collective that runs on host copies (such
  /// collectives communicate, so they run one at a time, in plan order).
  std::vector<uint8_t> collectiveStaging;
  /// Where the device's memory is not host-visible: for each host step,
  /// host copies of its operands and results.
  std::vector<std::vector<uint8_t>> hostStaging;
  /// For queued runs of a plan with several queues: `joins[0]` starts plan
  /// queues 1.. after the earlier work of the stream, `joins[q]` makes the
  /// stream wait for plan queue q at the end of the run.
  std::vector<std::unique_ptr<Event>> joins;
  /// Plan queue 0 of synchronous runs (an inline queue: the caller's
  /// thread).
  std::unique_ptr<Queue> inlineQueue;
  /// Plan queues 1.. of every run (asynchronous queues; queue 0 is the
  /// inline queue or the stream), created on the first run that needs them.
  /// Declared after the events so that they are destroyed, waiting for
  /// their work, before them.
  std::vector<std::unique_ptr<Queue>> asyncQueues;
  /// The timeline of traced runs.
  RunTrace trace;
  /// Guards `inFlight` and `inFlightStream`.
  std::mutex mutex;
  /// Runs queued on a stream and not yet finished.
  size_t inFlight = 0;
  /// The stream those runs are queued on.
  Queue *inFlightStream = nullptr;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_EXECUTOR_H
