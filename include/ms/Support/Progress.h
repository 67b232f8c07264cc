//===- Progress.h - where a compilation is, for a progress line -*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The compiler reports where it is (the import, each phase of the
// pipeline, code parts generated, the write) to a handler a tool installs;
// without one, reporting costs a load of a flag. ms-compile installs a
// printer that keeps one line up to date on a terminal.
//
//===----------------------------------------------------------------------===//

#ifndef MS_SUPPORT_PROGRESS_H
#define MS_SUPPORT_PROGRESS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace mlir::ms {
/// One step of a compilation.
struct ProgressUpdate {
  /// `import`, a phase of the pipeline (`graph` ... `serialize`), `write`.
  std::string stage;
  /// Code parts generated so far and in all, and how many of those came
  /// from the kernel cache; -1 when the stage does not count parts.
  int64_t done = -1;
  int64_t total = -1;
  int64_t cached = -1;
};

/// Receives every update; called under a lock, from any thread.
using ProgressHandler = std::function<void(const ProgressUpdate &)>;

/// Installs `handler` (an empty one stops reporting).
void setProgressHandler(ProgressHandler handler);
/// Whether a handler is installed.
bool isProgressReported();
/// Passes `update` to the handler, if any. Thread-safe.
void reportProgress(const ProgressUpdate &update);

/// A printer of updates to `os`, each prefixed by `tool: `. On a terminal
/// it rewrites one line in place (at most ten times a second) and `clear`
/// erases it; elsewhere it prints one line per stage and one when code
/// generation ends, so that logs and tests can read it.
class ProgressPrinter {
public:
  ProgressPrinter(llvm::raw_ostream &os, llvm::StringRef tool, bool terminal);
  /// Shows `update`.
  void print(const ProgressUpdate &update);
  /// Erases the line (on a terminal), before other output or at the end.
  void clear();

private:
  llvm::raw_ostream &os;
  std::string tool;
  bool terminal;
  bool shown = false;
  std::string lastStage;
  int64_t lastPrinted = 0;
};

/// The printer ms-compile uses: on stderr when it is a terminal, or always
/// when `MS_PROGRESS` is set to a non-empty value other than `0`; null
/// otherwise.
std::unique_ptr<ProgressPrinter> createProgressPrinter(llvm::StringRef tool);
} // namespace mlir::ms

#endif // MS_SUPPORT_PROGRESS_H
