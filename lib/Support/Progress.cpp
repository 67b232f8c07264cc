//===- Progress.cpp - where a compilation is, for a progress line ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Support/Progress.h"

#include "llvm/Support/Process.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>

using namespace mlir::ms;

namespace {
std::mutex &progressMutex() {
  static std::mutex mutex;
  return mutex;
}
ProgressHandler &progressHandler() {
  static ProgressHandler handler;
  return handler;
}
std::atomic<bool> progressOn{false};

int64_t nowMilliseconds() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
} // namespace

void mlir::ms::setProgressHandler(ProgressHandler handler) {
  std::lock_guard<std::mutex> lock(progressMutex());
  progressOn = static_cast<bool>(handler);
  progressHandler() = std::move(handler);
}

bool mlir::ms::isProgressReported() { return progressOn; }

void mlir::ms::reportProgress(const ProgressUpdate &update) {
  if (!progressOn)
    return;
  std::lock_guard<std::mutex> lock(progressMutex());
  if (progressHandler())
    progressHandler()(update);
}

ProgressPrinter::ProgressPrinter(llvm::raw_ostream &os, llvm::StringRef tool,
                                 bool terminal)
    : os(os), tool(tool.str()), terminal(terminal) {}

void ProgressPrinter::print(const ProgressUpdate &update) {
  bool counted = update.total >= 0;
  bool finished = counted && update.done == update.total;
  bool newStage = update.stage != lastStage;
  lastStage = update.stage;
  std::string text = tool + ": " + update.stage;
  if (counted) {
    text += ": " + std::to_string(update.done) + " of " +
            std::to_string(update.total) + " code parts";
    if (update.cached > 0)
      text += ", " + std::to_string(update.cached) + " from the kernel cache";
  }
  if (!terminal) {
    // One line per stage, and the count once it is complete.
    if (newStage || finished)
      os << text << "\n";
    os.flush();
    return;
  }
  int64_t now = nowMilliseconds();
  if (!newStage && !finished && now - lastPrinted < 100)
    return;
  lastPrinted = now;
  os << "\r" << text << "\x1b[K";
  os.flush();
  shown = true;
}

void ProgressPrinter::clear() {
  if (!terminal || !shown)
    return;
  os << "\r\x1b[K";
  os.flush();
  shown = false;
}

std::unique_ptr<ProgressPrinter>
mlir::ms::createProgressPrinter(llvm::StringRef tool) {
  const char *forced = std::getenv("MS_PROGRESS");
  bool force = forced && *forced && llvm::StringRef(forced) != "0";
  bool terminal = llvm::errs().is_displayed();
  if (!force && !terminal)
    return nullptr;
  return std::make_unique<ProgressPrinter>(llvm::errs(), tool, terminal);
}
