//===- NpuDevice.cpp - the simulated NPU backend --------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Device memory is host memory (as on the CPU: 64-byte aligned, zeroed,
// host-visible); the simulated GM is that memory. Executables come from the
// module's npu-program section (docs/NPU.md), parsed and validated at load;
// a Function handle points to one kernel of it. Queues are the CPU
// backend's ordered queues, a launch being a task that simulates the kernel
// on the host. The device's monitor adds every launch to the profile and,
// while a trace is recorded, to the timeline, where kernels follow each
// other on one cycle clock.
//
//===----------------------------------------------------------------------===//

#include "npu/NpuDevice.h"
#include "core/ThreadPool.h"
#include "core/Util.h"
#include "cpu/CpuDevice.h"
#include "cpu/CpuQueue.h"
#include "npu/Simulator.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

using ms::rt::Status;
using namespace ms::rt::impl;
using namespace ms::rt::impl::npu;
namespace format = ms::format;
using Json = nlohmann::json;

namespace {
/// A kernel the plan launches; a Function handle points to one.
struct NpuFunction {
  const Program *program = nullptr;
  const Kernel *kernel = nullptr;
};

/// A module's npu-program and the kernels the plan resolved.
class NpuExecutable final : public Executable {
public:
  Program program;
  /// One per resolved name (filled before resolve(); never resized after).
  std::vector<NpuFunction> entries;

  /// Publishes the entries as the executable's functions.
  void resolve() {
    for (const NpuFunction &entry : entries)
      resolved.push_back(Function{&entry});
  }
};

/// What the device measured, and its timeline while one is recorded.
/// Thread-safe: the device's queues all report here.
class NpuMonitor {
public:
  /// Simulates `entry` on `args` and adds the launch to the profile (and
  /// the timeline).
  Status launch(const NpuFunction &entry, const std::vector<void *> &args);
  /// Returns the profile as JSON.
  std::string profile();
  /// Starts recording a timeline.
  Status beginTrace();
  /// Writes the timeline to `path` and stops recording.
  Status writeTrace(const std::string &path);

private:
  /// Totals of one kernel name.
  struct KernelTotals {
    uint64_t launches = 0;
    int64_t cycles = 0;
  };

  /// Writes the recorded timeline as Chrome trace-event JSON to `file`.
  void writeEvents(std::FILE *file) const;

  /// Guards every field.
  std::mutex mutex;
  uint64_t launches = 0;
  /// Simulated cycles of every launch, one after another.
  int64_t cycles = 0;
  /// Sum over launches of cycles times the configuration's cores: what
  /// busy cycles are a fraction of.
  int64_t coreCycles = 0;
  std::array<int64_t, kPipeCount> busy{};
  std::array<int64_t, kOpKindCount> instructions{};
  std::map<std::string, KernelTotals> kernels;
  /// True while a timeline is recorded.
  bool tracing = false;
  /// The timeline, in device cycles.
  TraceSink trace;
};

Status NpuMonitor::launch(const NpuFunction &entry,
                          const std::vector<void *> &args) {
  TraceSink local;
  bool record = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    record = tracing;
    local.limit = trace.limit - std::min(trace.limit, trace.events.size());
  }
  LaunchStats stats;
  const NpuConfig &config = entry.program->config;
  MS_RETURN_IF_ERROR(simulate(config, *entry.kernel, args.data(), args.size(),
                              stats, record ? &local : nullptr));
  std::lock_guard<std::mutex> lock(mutex);
  ++launches;
  // Kernels run one after another: this one starts where the clock is.
  int64_t startsAt = cycles;
  cycles += stats.cycles;
  coreCycles += stats.cycles * config.cores;
  for (int p = 0; p < kPipeCount; ++p)
    busy[size_t(p)] += stats.busy[size_t(p)];
  for (int op = 0; op < kOpKindCount; ++op)
    instructions[size_t(op)] += stats.instructions[size_t(op)];
  KernelTotals &totals = kernels[entry.kernel->name];
  ++totals.launches;
  totals.cycles += stats.cycles;
  if (record && tracing) {
    for (TraceEvent &event : local.events) {
      event.start += startsAt;
      trace.add(std::move(event));
    }
    trace.dropped += local.dropped;
  }
  return Status();
}

std::string NpuMonitor::profile() {
  std::lock_guard<std::mutex> lock(mutex);
  Json busyJson = Json::object(), instructionsJson = Json::object(),
       kernelsJson = Json::object();
  for (int p = 0; p < kPipeCount; ++p)
    busyJson[pipeName(Pipe(p))] = busy[size_t(p)];
  for (int op = 0; op < kOpKindCount; ++op)
    instructionsJson[opName(OpKind(op))] = instructions[size_t(op)];
  for (const auto &[name, totals] : kernels)
    kernelsJson[name] = {{"launches", totals.launches},
                         {"cycles", totals.cycles}};
  Json profile = {{"device", "npu"},         {"kernels_launched", launches},
                  {"cycles", cycles},        {"core_cycles", coreCycles},
                  {"busy_cycles", busyJson}, {"instructions", instructionsJson},
                  {"kernels", kernelsJson}};
  return profile.dump();
}

Status NpuMonitor::beginTrace() {
  std::lock_guard<std::mutex> lock(mutex);
  tracing = true;
  trace.events.clear();
  trace.dropped = 0;
  return Status();
}

Status NpuMonitor::writeTrace(const std::string &path) {
  std::lock_guard<std::mutex> lock(mutex);
  if (!tracing)
    return Status::error(MS_INVALID_ARGUMENT,
                         "no npu trace is being recorded (begin one first)");
  std::FILE *file = std::fopen(path.c_str(), "w");
  if (!file)
    return Status::error(
        MS_INVALID_ARGUMENT,
        path + ": cannot write the trace: " + std::strerror(errno));
  writeEvents(file);
  bool failed = std::ferror(file) != 0;
  failed |= std::fclose(file) != 0;
  if (failed)
    return Status::error(MS_INTERNAL, path + ": cannot write the trace: " +
                                          std::strerror(errno));
  tracing = false;
  trace.events.clear();
  trace.dropped = 0;
  return Status();
}

void NpuMonitor::writeEvents(std::FILE *file) const {
  int cores = 0;
  for (const TraceEvent &event : trace.events)
    cores = std::max(cores, event.core + 1);
  std::fputs("{\"traceEvents\": [\n", file);
  const char *separator = "";
  // Name the processes (cores) and threads (pipes, then the kernel lane).
  for (int core = 0; core < cores; ++core) {
    std::fprintf(file,
                 "%s{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %d, "
                 "\"args\": {\"name\": \"npu core %d\"}}",
                 separator, core, core);
    separator = ",\n";
    for (int lane = 0; lane <= kKernelLane; ++lane) {
      const char *name = lane == kKernelLane ? "kernel" : pipeName(Pipe(lane));
      std::fprintf(file,
                   ",\n{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": "
                   "%d, \"tid\": %d, \"args\": {\"name\": \"%s\"}},\n"
                   "{\"name\": \"thread_sort_index\", \"ph\": \"M\", "
                   "\"pid\": %d, \"tid\": %d, \"args\": {\"sort_index\": %d}}",
                   core, lane, name, core, lane, lane);
    }
  }
  for (const TraceEvent &event : trace.events) {
    std::string name = Json(event.name).dump();
    std::fprintf(file,
                 "%s{\"name\": %s, \"ph\": \"X\", \"pid\": %d, \"tid\": %d, "
                 "\"ts\": %lld, \"dur\": %lld",
                 separator, name.c_str(), event.core, event.lane,
                 static_cast<long long>(event.start),
                 static_cast<long long>(event.duration));
    separator = ",\n";
    if (!event.path.empty())
      std::fprintf(file, ", \"args\": {\"at\": %s}",
                   Json(event.path).dump().c_str());
    std::fputs("}", file);
  }
  std::fprintf(file,
               "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": "
               "{\"time_unit\": \"cycles\", \"note\": \"ts and dur are "
               "simulated npu core cycles (viewers show them as "
               "microseconds)\", \"dropped_events\": %llu}}\n",
               static_cast<unsigned long long>(trace.dropped));
}

/// A queue: the CPU backend's ordered queue whose launches are tasks that
/// simulate the kernel.
class NpuQueue final : public Queue {
public:
  NpuQueue(std::shared_ptr<NpuMonitor> monitor, ThreadPool *pool)
      : monitor(std::move(monitor)), inner(pool) {}

  Status launch(Function function, void **args, size_t argCount) override {
    const auto *entry = static_cast<const NpuFunction *>(function.handle);
    if (!entry)
      return Status::error(MS_INVALID_ARGUMENT, "launch of a NULL function");
    return inner.hostCallback(
        [monitor = monitor.get(), entry,
         buffers = std::vector<void *>(args, args + argCount)] {
          return monitor->launch(*entry, buffers);
        });
  }
  Status copy(void *dst, const void *src, size_t size) override {
    return inner.copy(dst, src, size);
  }
  Status hostCallback(std::function<Status()> callback) override {
    return inner.hostCallback(std::move(callback));
  }
  Status signal(Event &event) override { return inner.signal(event); }
  Status wait(Event &event) override { return inner.wait(event); }
  Status synchronize() override { return inner.synchronize(); }

private:
  std::shared_ptr<NpuMonitor> monitor;
  /// Destroyed first: waits for the launches, which use the monitor.
  CpuQueue inner;
};

/// The simulated NPU device.
class NpuDevice final : public HostMemoryDevice {
public:
  explicit NpuDevice(std::unique_ptr<ThreadPool> pool)
      : pool(std::move(pool)), monitor(std::make_shared<NpuMonitor>()) {}

  ms_device_kind_t kind() const override { return MS_DEVICE_NPU_SIM; }
  const char *name() const override { return "npu"; }
  format::SectionKind codeSection() const override {
    return format::SectionKind::NpuProgram;
  }

  Status loadExecutable(const std::string &what, const void *code, size_t size,
                        const std::vector<std::string> &functionNames,
                        std::unique_ptr<Executable> &out) override;

  Status createQueue(QueueMode mode, std::unique_ptr<Queue> &out) override {
    // An inline queue simulates each launch on the submitting thread.
    out = std::make_unique<NpuQueue>(
        monitor, mode == QueueMode::Async ? pool.get() : nullptr);
    return Status();
  }
  Status createEvent(std::unique_ptr<Event> &out) override {
    return CpuEvent::create(out);
  }

  std::string profile() const override { return monitor->profile(); }
  Status beginTrace() override { return monitor->beginTrace(); }
  Status writeTrace(const std::string &path) override {
    return monitor->writeTrace(path);
  }

private:
  /// The workers asynchronous queues run on.
  std::unique_ptr<ThreadPool> pool;
  /// Shared with the queues.
  std::shared_ptr<NpuMonitor> monitor;
};
} // namespace

Status NpuDevice::loadExecutable(const std::string &what, const void *code,
                                 size_t size,
                                 const std::vector<std::string> &functionNames,
                                 std::unique_ptr<Executable> &out) {
  out.reset();
  auto executable = std::make_unique<NpuExecutable>();
  MS_RETURN_IF_ERROR(parseProgram(what + ": npu-program section", code, size,
                                  executable->program));
  for (const std::string &name : functionNames) {
    auto found = executable->program.kernels.find(name);
    if (found == executable->program.kernels.end())
      return Status::error(MS_NOT_FOUND,
                           what + ": kernel '" + name +
                               "' not found in the npu-program section");
    executable->entries.push_back({&executable->program, &found->second});
  }
  executable->resolve();
  out = std::move(executable);
  return Status();
}

Status ms::rt::impl::createNpuDevice(std::shared_ptr<Device> &out) {
  out.reset();
  std::unique_ptr<ThreadPool> pool;
  MS_RETURN_IF_ERROR(ThreadPool::create(ThreadPool::defaultThreads(), pool));
  out = std::make_shared<NpuDevice>(std::move(pool));
  return Status();
}
