//===- Executor.h - running a module's plan ---------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_EXECUTOR_H
#define MS_RUNTIME_CORE_EXECUTOR_H

#include "core/Module.h"

#include <memory>
#include <mutex>
#include <vector>

namespace ms::rt::impl {
/// The state of running one module: its arena, allocated once, runtime-owned
/// outputs, allocated on first request, and the plan's argument pointers,
/// resolved once so that a run only rebinds the inputs and outputs. Runs of
/// one context are serialized by the caller (one thread, or one stream).
class Context : public std::enable_shared_from_this<Context> {
public:
  /// Creates a context for `module`, allocating its arena.
  static Status create(std::shared_ptr<Module> module,
                       std::shared_ptr<Context> &out);
  ~Context();
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  /// Validates and binds the tensors, then runs the plan: to completion when
  /// `stream` is null, else queued on `stream`. See ms_context_run.
  Status run(const ms_tensor_t *inputs, size_t inputCount, ms_tensor_t *outputs,
             size_t outputCount, Stream *stream);

  /// Returns the module.
  const Module &module() const { return *owner; }

private:
  explicit Context(std::shared_ptr<Module> module);
  /// Checks the caller's tensors and writes their pointers into `args`.
  Status bind(const ms_tensor_t *inputs, size_t inputCount,
              ms_tensor_t *outputs, size_t outputCount);

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
  /// Guards `inFlight` and `inFlightStream`.
  std::mutex mutex;
  /// Runs queued on a stream and not yet finished.
  size_t inFlight = 0;
  /// The stream those runs are queued on.
  Stream *inFlightStream = nullptr;
};
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_EXECUTOR_H
