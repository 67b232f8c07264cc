//===- OutputFile.h - files written whole, and only when changed -*- C++
//-*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A tool's output file is written atomically: a temporary file beside it,
// renamed over it once complete, so that a reader, or a crash at any
// moment, sees the old file or the new one and never part of either. A
// recompilation whose output is the file already there (the compiler is
// deterministic) neither writes nor replaces it: the bytes are compared
// with the file's as they are produced, and the temporary file is started
// at the first difference.
//
//===----------------------------------------------------------------------===//

#ifndef MS_SUPPORT_OUTPUTFILE_H
#define MS_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::ms {
/// What `writeOutputFile` did.
enum class OutputFileResult {
  /// The file was written (created or replaced).
  Written,
  /// The file already held the bytes: only its modification time was set.
  Unchanged,
  /// `write` failed (it reported why); the file is as it was.
  WriteFailed,
  /// The file could not be written; `error` says why, and it is as it was.
  Error,
};

/// Writes the bytes `write` produces to `path`, atomically, unless `path`
/// is a regular file that holds exactly those bytes already; then only its
/// modification time is set to now (build tools see it up to date). `write`
/// may `pwrite` into bytes it wrote before; into its first 64 KiB (a header
/// completed at the end) the comparison goes on, elsewhere the file is
/// written. On `Error`, `error` names the file and the problem.
OutputFileResult
writeOutputFile(llvm::StringRef path,
                llvm::function_ref<bool(llvm::raw_pwrite_stream &)> write,
                std::string &error);
} // namespace mlir::ms

#endif // MS_SUPPORT_OUTPUTFILE_H
