//===- OutputFile.cpp - files written whole, and only when changed --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Support/OutputFile.h"
#include "ms/runtime/MappedPages.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

using namespace mlir::ms;

namespace {
/// The bytes at the start of the output held in memory rather than
/// compared at once: a writer completes its header there at the end.
constexpr uint64_t kHeldBytes = 64 * 1024;

/// Compares what is written with `old`, the file's bytes, and starts the
/// temporary file at the first difference (with the bytes before it).
class CompareOrWriteStream final : public llvm::raw_pwrite_stream {
public:
  CompareOrWriteStream(llvm::StringRef path, llvm::ArrayRef<char> old,
                       bool mapped, llvm::sys::fs::UniqueID id)
      : path(path), old(old), mapped(mapped), id(id) {}
  /// Without `finish` (the writer failed): the bytes are dropped and the
  /// temporary file removed.
  ~CompareOrWriteStream() override {
    discarding = true;
    flush();
    if (out) {
      out->clear_error();
      out->close();
      out->clear_error();
      out.reset();
      llvm::sys::fs::remove(temp);
    }
  }

  /// Ends the output: renames the temporary file over the path, or, when
  /// nothing differed, sets the file's modification time.
  OutputFileResult finish(std::string &error) {
    flush();
    if (!out && problem.empty() && pos == old.size() &&
        std::memcmp(head.data(), old.data(), head.size()) == 0 && touch())
      return OutputFileResult::Unchanged;
    if (!out)
      startWriting();
    if (out) {
      out->close();
      if (out->has_error()) {
        problem = "cannot write '" + temp.str().str() +
                  "': " + out->error().message();
        out->clear_error();
      }
      out.reset();
      if (problem.empty())
        if (std::error_code ec = llvm::sys::fs::rename(temp, path))
          problem = "cannot write '" + path + "': " + ec.message();
      if (!problem.empty())
        llvm::sys::fs::remove(temp);
    }
    if (!problem.empty()) {
      error = problem;
      return OutputFileResult::Error;
    }
    return OutputFileResult::Written;
  }

private:
  uint64_t current_pos() const override { return pos; }

  void write_impl(const char *ptr, size_t size) override {
    if (discarding)
      return;
    if (!out && pos < kHeldBytes) {
      size_t held = std::min<uint64_t>(size, kHeldBytes - pos);
      head.append(ptr, ptr + held);
      ptr += held;
      size -= held;
      pos += held;
    }
    if (size == 0)
      return;
    if (!out && problem.empty() && pos + size <= old.size() &&
        std::memcmp(old.data() + pos, ptr, size) == 0) {
      pos += size;
      release();
      return;
    }
    if (!out)
      startWriting();
    if (out)
      out->write(ptr, size);
    pos += size;
  }

  void pwrite_impl(const char *ptr, size_t size, uint64_t offset) override {
    flush();
    if (!out && offset + size <= head.size()) {
      std::memcpy(head.data() + offset, ptr, size);
      return;
    }
    if (!out)
      startWriting();
    if (out)
      out->pwrite(ptr, size, offset);
  }

  /// Creates the temporary file with the bytes written so far: the held
  /// ones, then the file's bytes that matched after them.
  void startWriting() {
    if (!problem.empty())
      return;
    llvm::StringRef dir = llvm::sys::path::parent_path(path);
    llvm::SmallString<256> model(dir.empty() ? "." : dir);
    llvm::sys::path::append(model, "ms-output-%%%%%%.tmp");
    int fd;
    if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, temp)) {
      problem = "cannot create '" + model.str().str() + "': " + ec.message();
      return;
    }
    // Unbuffered: this stream's own buffer batches the writes.
    out = std::make_unique<llvm::raw_fd_ostream>(fd, /*shouldClose=*/true,
                                                 /*unbuffered=*/true);
    out->write(head.data(), head.size());
    if (pos > head.size())
      out->write(old.data() + head.size(), pos - head.size());
    head.clear();
  }

  /// Gives back the mapped pages compared so far, a few MiB at a time (a
  /// page given back is read again if touched), so that comparing a file
  /// does not add it to the compiler's resident memory.
  void release() {
    if (mapped && pos - released >= (4 << 20))
      released += ::ms::format::releaseMappedPages(old.data() + released,
                                                   pos - released);
  }

  /// Sets the unchanged file's modification time to now, if it is still
  /// the file compared (not one renamed there since).
  bool touch() {
    int fd;
    if (llvm::sys::fs::openFileForWrite(
            path, fd, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append))
      return false;
    llvm::sys::fs::file_status status;
    auto now = std::chrono::system_clock::now();
    bool done = !llvm::sys::fs::status(fd, status) &&
                status.getUniqueID() == id &&
                !llvm::sys::fs::setLastAccessAndModificationTime(fd, now, now);
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    return done;
  }

  std::string path;
  llvm::ArrayRef<char> old;
  /// Whether `old` is a mapping of the file, and its bytes before
  /// `released` given back.
  bool mapped;
  uint64_t released = 0;
  /// The compared file's identity.
  llvm::sys::fs::UniqueID id;
  /// Set when the stream ends without `finish`.
  bool discarding = false;
  /// The first bytes written, while nothing has differed.
  llvm::SmallVector<char, 0> head;
  uint64_t pos = 0;
  llvm::SmallString<256> temp;
  /// The temporary file, from the first difference on.
  std::unique_ptr<llvm::raw_fd_ostream> out;
  /// Why the file cannot be written; once set, the rest is dropped.
  std::string problem;
};
} // namespace

OutputFileResult mlir::ms::writeOutputFile(
    llvm::StringRef path,
    llvm::function_ref<bool(llvm::raw_pwrite_stream &)> write,
    std::string &error) {
  // The file there, mapped, when it is a regular file.
  std::unique_ptr<llvm::MemoryBuffer> existing;
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) &&
      llvm::sys::fs::is_regular_file(status)) {
    auto mapped = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (mapped)
      existing = std::move(*mapped);
  }
  llvm::ArrayRef<char> old;
  if (existing)
    old = llvm::ArrayRef<char>(existing->getBufferStart(),
                               existing->getBufferSize());
  CompareOrWriteStream os(path, old,
                          existing && existing->getBufferKind() ==
                                          llvm::MemoryBuffer::MemoryBuffer_MMap,
                          status.getUniqueID());
  if (!write(os))
    return OutputFileResult::WriteFailed;
  return os.finish(error);
}
