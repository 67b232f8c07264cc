//===- KernelCache.h - compiled kernels on disk, by content -----*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A directory of compiled code (a backend's object files), each entry named
// by a hash of everything that made it: the kernel's IR, the target and its
// options, and the compiler's build. `ms-compile` and `ms.jit` share it, so
// a recompilation (the same model, one layer changed, a restart after a
// crash) generates code only for what it has not compiled before.
//
// Entries are written to a temporary file in the directory and renamed into
// place: a crash, a kill or a concurrent writer never leaves a partial
// entry. Each entry carries a magic, its size and a checksum; one that
// fails them is reported, removed and rebuilt. The directory is kept under
// a size bound by removing the least recently used entries.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_KERNELCACHE_H
#define MS_TARGET_KERNELCACHE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::ms {
/// Hits and misses of the kernel caches of this process.
struct KernelCacheStats {
  /// Code parts found and not found.
  int64_t hits = 0;
  int64_t misses = 0;
  /// Entries that failed their checks.
  int64_t corrupt = 0;
  /// Linked libraries found (every part of them found too: no link).
  int64_t linkedHits = 0;
};

/// A kernel cache directory.
class KernelCache {
public:
  /// The default directory: `$MS_CACHE_DIR/kernels`, else
  /// `$XDG_CACHE_HOME/ms/kernels`, else `~/.cache/ms/kernels`; empty (no
  /// cache) when `MS_CACHE_DIR` is set to an empty string.
  static std::string defaultDirectory();
  /// A string naming this compiler's build (its version and its library
  /// file): any rebuild changes it.
  static std::string buildIdentity();
  /// The key of the entry made from `parts` (a hex SHA-256 of them).
  static std::string key(llvm::ArrayRef<llvm::StringRef> parts);

  /// A cache in `directory` (created when first written), holding at most
  /// `maxBytes` (`$MS_CACHE_MAX_BYTES`, default 1 GiB, when 0).
  explicit KernelCache(std::string directory, uint64_t maxBytes = 0);

  /// What an entry holds: a compiled code part, or the library linked from
  /// parts (counted apart in the stats).
  enum class Entry { Part, Linked };
  /// Returns the entry `key`, or nothing if there is none. An entry that
  /// fails its checks is removed and described in `warning`.
  std::optional<std::string> lookup(llvm::StringRef key, std::string &warning,
                                    Entry entry = Entry::Part);
  /// Stores `bytes` as entry `key`; failures (a read-only directory) only
  /// leave it uncached.
  void store(llvm::StringRef key, llvm::StringRef bytes);
  /// Removes the least recently used entries while the directory holds
  /// more than its bound, and temporary files of writers that died.
  void evict();

  /// This process's counts.
  static KernelCacheStats stats();

private:
  std::string directory;
  uint64_t maxBytes;
};
} // namespace mlir::ms

#endif // MS_TARGET_KERNELCACHE_H
