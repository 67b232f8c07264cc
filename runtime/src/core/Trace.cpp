//===- Trace.cpp - timelines of a context's runs --------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "core/Trace.h"
#include "core/Util.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

using ms::rt::Status;
using namespace ms::rt::impl;

int64_t RunTrace::now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void RunTrace::enable() {
  std::lock_guard<std::mutex> lock(mutex);
  enabled = true;
  started = true;
  runs = 0;
  recorded.clear();
  dropped = 0;
}

void RunTrace::disable() {
  std::lock_guard<std::mutex> lock(mutex);
  enabled = false;
}

int64_t RunTrace::startRun() {
  std::lock_guard<std::mutex> lock(mutex);
  return enabled ? int64_t(runs++) : -1;
}

void RunTrace::record(uint32_t step, uint64_t run, int64_t startNs,
                      int64_t endNs) {
  std::lock_guard<std::mutex> lock(mutex);
  if (recorded.size() >= kMaxSpans) {
    ++dropped;
    return;
  }
  try {
    recorded.push_back(TraceSpan{step, run, startNs, endNs});
  } catch (const std::bad_alloc &) {
    // A trace is best effort: a span without memory is counted as dropped.
    ++dropped;
  }
}

std::string ms::rt::impl::traceStepName(const ModuleMeta &meta, size_t index,
                                        size_t hostIndex) {
  const Step &step = meta.steps[index];
  switch (step.kind) {
  case StepKind::Launch:
  case StepKind::Graph:
    if (step.kernel < meta.kernels.size() && !meta.kernels[step.kernel].empty())
      return meta.kernels[step.kernel];
    return "kernel " + std::to_string(step.kernel);
  case StepKind::Copy:
    return "copy " + std::to_string(step.size) + "B";
  case StepKind::Host:
    return hostIndex < meta.hostOpNames.size() ? meta.hostOpNames[hostIndex]
                                               : "host";
  case StepKind::Collective:
    return step.collective->name + " " +
           std::to_string(step.collective->srcBytes) + "B";
  case StepKind::Signal:
    return "signal";
  case StepKind::Wait:
    return "wait";
  }
  return "step";
}

namespace {
/// Returns `text` as a JSON string literal.
std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// Formats nanoseconds `ns` (>= 0) as microseconds with three decimals.
std::string micros(int64_t ns) {
  if (ns < 0)
    ns = 0;
  char text[32];
  std::snprintf(text, sizeof(text), "%" PRId64 ".%03" PRId64, ns / 1000,
                ns % 1000);
  return text;
}

/// Returns the name of the kind of `step` ("launch", ...).
const char *kindName(StepKind kind) {
  switch (kind) {
  case StepKind::Launch:
    return "launch";
  case StepKind::Graph:
    return "graph";
  case StepKind::Copy:
    return "copy";
  case StepKind::Host:
    return "host";
  case StepKind::Collective:
    return "collective";
  case StepKind::Signal:
    return "signal";
  case StepKind::Wait:
    return "wait";
  }
  return "step";
}

/// Creates a fresh file next to `path` (mode 0666 less the umask); sets
/// `temporary` to its name. Returns the descriptor, or -1 (errno set).
int createTemporary(const std::string &path, std::string &temporary) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary = path + ".tmp." + std::to_string(getpid()) + "." +
                std::to_string(counter++);
    int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                    0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  errno = EEXIST;
  return -1;
}
} // namespace

Status RunTrace::write(const std::string &path, int64_t pid,
                       const ModuleMeta &meta) const {
  std::vector<TraceSpan> spans;
  uint64_t droppedSpans = 0;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!started)
      return Status::error(MS_INVALID_ARGUMENT,
                           "the context's runs are not traced (enable tracing "
                           "with ms_context_set_trace first)");
    spans = recorded;
    droppedSpans = dropped;
  }

  // What each step is called and which queues compute or communicate.
  std::vector<std::string> names(meta.steps.size());
  std::vector<bool> computes(meta.queueCount, false),
      communicates(meta.queueCount, false);
  size_t hostIndex = 0;
  for (size_t i = 0; i < meta.steps.size(); ++i) {
    const Step &step = meta.steps[i];
    names[i] = jsonString(traceStepName(meta, i, hostIndex));
    if (step.kind == StepKind::Host)
      ++hostIndex;
    if (step.kind == StepKind::Collective)
      communicates[step.queue] = true;
    else if (isTracedStep(step.kind))
      computes[step.queue] = true;
  }

  std::string process = std::to_string(pid);
  std::string text = "{\"traceEvents\": [\n";
  text += "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + process +
          ", \"args\": {\"name\": \"rank " + process + "\"}}";
  for (uint32_t q = 0; q < meta.queueCount; ++q) {
    if (!computes[q] && !communicates[q])
      continue;
    const char *role = !communicates[q] ? "compute"
                       : computes[q]    ? "compute+comm"
                                        : "comm";
    std::string queue = std::to_string(q);
    text +=
        ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + process +
        ", \"tid\": " + queue + ", \"args\": {\"name\": \"queue " + queue +
        " (" + role + ")\"}}";
  }
  for (const TraceSpan &span : spans) {
    const Step &step = meta.steps[span.step];
    bool comm = step.kind == StepKind::Collective;
    text += ",\n{\"name\": " + names[span.step] + ", \"cat\": \"" +
            (comm ? "comm" : "compute") +
            "\", \"ph\": \"X\", \"ts\": " + micros(span.startNs) +
            ", \"dur\": " + micros(span.endNs - span.startNs) +
            ", \"pid\": " + process +
            ", \"tid\": " + std::to_string(step.queue) +
            ", \"args\": {\"run\": " + std::to_string(span.run) +
            ", \"step\": " + std::to_string(span.step) + ", \"kind\": \"" +
            kindName(step.kind) + "\"";
    switch (step.kind) {
    case StepKind::Launch:
    case StepKind::Graph:
      text += ", \"kernel\": " + std::to_string(step.kernel);
      break;
    case StepKind::Copy:
      text += ", \"bytes\": " + std::to_string(step.size);
      break;
    case StepKind::Collective: {
      const CollectiveOp &op = *step.collective;
      text += ", \"op\": " + jsonString(op.name) +
              ", \"bytes\": " + std::to_string(op.srcBytes) +
              ", \"dst_bytes\": " + std::to_string(op.dstBytes) +
              ", \"group_size\": " + std::to_string(op.groupSize);
      break;
    }
    default:
      break;
    }
    text += "}}";
  }
  text += "\n],\n\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"clock\": "
          "\"steady_clock\", \"dropped_spans\": " +
          std::to_string(droppedSpans) + "}}\n";

  // A temporary file next to `path`, renamed over it once complete.
  std::string temporary;
  int fd = createTemporary(path, temporary);
  if (fd < 0)
    return Status::error(
        MS_INVALID_ARGUMENT,
        path + ": cannot write the trace: " + std::strerror(errno));
  bool ok = writeAll(fd, text.data(), text.size());
  int error = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = errno;
  }
  if (ok && std::rename(temporary.c_str(), path.c_str()) != 0) {
    ok = false;
    error = errno;
  }
  if (ok)
    return Status();
  ::unlink(temporary.c_str());
  return Status::error(
      MS_INTERNAL, path + ": cannot write the trace: " + std::strerror(error));
}
