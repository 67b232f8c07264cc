//===- KernelCache.cpp - compiled kernels on disk, by content -------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// An entry is a 32-byte header (magic "MSKCACHE", format version, payload
// size, WordChecksum of the payload) and the payload.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/KernelCache.h"

#include "ms/runtime/ModuleFormat.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <vector>

using namespace llvm;
using namespace mlir;
using namespace mlir::ms;

namespace {
/// The header of an entry.
struct EntryHeader {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  uint64_t size;
  uint64_t checksum;
};
static_assert(sizeof(EntryHeader) == 32, "entry header is 32 bytes");

constexpr char kEntryMagic[8] = {'M', 'S', 'K', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t kEntryVersion = 1;
/// Temporary files of writers are named `<key>.tmp-<random>`; one older
/// than this is a dead writer's.
constexpr std::chrono::hours kStaleTemporary(1);

std::atomic<int64_t> hits{0}, misses{0}, corrupt{0}, linkedHits{0};
} // namespace

std::string KernelCache::defaultDirectory() {
  SmallString<256> dir;
  if (const char *configured = std::getenv("MS_CACHE_DIR")) {
    if (!*configured)
      return "";
    dir = configured;
  } else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = xdg;
    llvm::sys::path::append(dir, "ms");
  } else if (const char *home = std::getenv("HOME"); home && *home) {
    dir = home;
    llvm::sys::path::append(dir, ".cache", "ms");
  } else {
    return "";
  }
  llvm::sys::path::append(dir, "kernels");
  return dir.str().str();
}

std::string KernelCache::buildIdentity() {
  std::string identity = "ms-compiler;llvm " LLVM_VERSION_STRING;
  // The library holding this function: any rebuild changes its size or time.
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&KernelCache::buildIdentity), &info) &&
      info.dli_fname) {
    llvm::sys::fs::file_status status;
    if (!llvm::sys::fs::status(info.dli_fname, status))
      identity +=
          ";lib " + std::string(info.dli_fname) + " " +
          std::to_string(status.getSize()) + " " +
          std::to_string(
              status.getLastModificationTime().time_since_epoch().count());
  }
  return identity;
}

std::string KernelCache::key(ArrayRef<StringRef> parts) {
  llvm::SHA256 hash;
  for (StringRef part : parts) {
    uint64_t size = part.size();
    hash.update(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&size),
                                  sizeof(size)));
    hash.update(part);
  }
  std::array<uint8_t, 32> digest = hash.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

KernelCache::KernelCache(std::string directory, uint64_t maxBytes)
    : directory(std::move(directory)), maxBytes(maxBytes) {
  if (this->maxBytes == 0) {
    this->maxBytes = uint64_t(1) << 30;
    if (const char *configured = std::getenv("MS_CACHE_MAX_BYTES"))
      if (uint64_t value;
          !StringRef(configured).getAsInteger(10, value) && value > 0)
        this->maxBytes = value;
  }
}

std::optional<std::string>
KernelCache::lookup(StringRef key, std::string &warning, Entry entry) {
  bool part = entry == Entry::Part;
  SmallString<256> path(directory);
  llvm::sys::path::append(path, key);
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    if (part)
      ++misses;
    return std::nullopt;
  }
  StringRef bytes = (*buffer)->getBuffer();
  EntryHeader header;
  std::string problem;
  if (bytes.size() < sizeof(header)) {
    problem = "shorter than its header";
  } else {
    std::memcpy(&header, bytes.data(), sizeof(header));
    StringRef payload = bytes.drop_front(sizeof(header));
    if (std::memcmp(header.magic, kEntryMagic, sizeof(kEntryMagic)) != 0 ||
        header.version != kEntryVersion)
      problem = "not a kernel cache entry of this version";
    else if (header.size != payload.size())
      problem = "truncated: " + std::to_string(payload.size()) + " of " +
                std::to_string(header.size) + " bytes";
    else if (::ms::format::fnv1a64Words(payload.data(), payload.size()) !=
             header.checksum)
      problem = "checksum mismatch";
    if (problem.empty()) {
      ++(part ? hits : linkedHits);
      // Recently used: evicted last.
      if (auto file = llvm::sys::fs::openNativeFileForWrite(
              path, llvm::sys::fs::CD_OpenExisting, llvm::sys::fs::OF_Append)) {
        (void)llvm::sys::fs::setLastAccessAndModificationTime(
            *file, std::chrono::system_clock::now());
        llvm::sys::fs::closeFile(*file);
      }
      return payload.str();
    }
  }
  ++corrupt;
  if (part)
    ++misses;
  warning = ("kernel cache entry '" + path + "' is corrupt (" + problem +
             (part ? "); removed, compiling it again"
                   : "); removed, linking it again"))
                .str();
  llvm::sys::fs::remove(path);
  return std::nullopt;
}

void KernelCache::store(StringRef key, StringRef bytes) {
  if (llvm::sys::fs::create_directories(directory))
    return;
  SmallString<256> path(directory), temp;
  llvm::sys::path::append(path, key);
  int fd;
  if (llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return;
  EntryHeader header = {};
  std::memcpy(header.magic, kEntryMagic, sizeof(kEntryMagic));
  header.version = kEntryVersion;
  header.size = bytes.size();
  header.checksum = ::ms::format::fnv1a64Words(bytes.data(), bytes.size());
  bool written;
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(reinterpret_cast<const char *>(&header), sizeof(header));
    os << bytes;
    os.close();
    written = !os.has_error();
    os.clear_error();
  }
  if (!written || llvm::sys::fs::rename(temp, path))
    llvm::sys::fs::remove(temp);
}

void KernelCache::evict() {
  struct Entry {
    std::string path;
    uint64_t size;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  auto now = std::chrono::system_clock::now();
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(directory, ec), end;
       it != end && !ec; it.increment(ec)) {
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status) ||
        status.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    StringRef name = llvm::sys::path::filename(it->path());
    if (name.contains(".tmp-")) {
      if (now - status.getLastModificationTime() > kStaleTemporary)
        llvm::sys::fs::remove(it->path());
      continue;
    }
    entries.push_back(
        {it->path(), status.getSize(), status.getLastModificationTime()});
    total += status.getSize();
  }
  if (total <= maxBytes)
    return;
  llvm::sort(entries,
             [](const Entry &a, const Entry &b) { return a.used < b.used; });
  // Down to 90% of the bound, so that the next writes do not evict again.
  for (const Entry &entry : entries) {
    if (total <= maxBytes / 10 * 9)
      break;
    if (!llvm::sys::fs::remove(entry.path))
      total -= entry.size;
  }
}

KernelCacheStats KernelCache::stats() {
  return {hits.load(), misses.load(), corrupt.load(), linkedHits.load()};
}
