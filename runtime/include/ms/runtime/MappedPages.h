//===- MappedPages.h - giving back the pages of a mapped file ----*- C++
//-*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Bytes read once from a read-only mapping of a file (a model's weights
// copied into constants, a module compared with the one it replaces,
// weights laid out as a module loads) need not stay in the process's
// resident memory: their pages are given back, and read again from the file
// if touched. Shared by the compiler and the runtime; plain C++17 and POSIX.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_MAPPEDPAGES_H
#define MS_RUNTIME_MAPPEDPAGES_H

#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

namespace ms::format {
/// Gives back the whole pages within [data, data + size) of a read-only
/// file mapping. Returns the bytes from `data` to the end of the last page
/// given back (0 when none is whole).
inline uint64_t releaseMappedPages(const void *data, uint64_t size) {
  auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  auto start = reinterpret_cast<uintptr_t>(data);
  uintptr_t begin = (start + page - 1) / page * page;
  uintptr_t end = (start + size) / page * page;
  if (begin >= end)
    return 0;
  ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
  return end - start;
}
} // namespace ms::format

#endif // MS_RUNTIME_MAPPEDPAGES_H
