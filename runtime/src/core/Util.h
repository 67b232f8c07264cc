//===- Util.h - small helpers shared by the runtime sources -----*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_CORE_UTIL_H
#define MS_RUNTIME_CORE_UTIL_H

#include "ms/runtime/Runtime.h"

#include <cerrno>
#include <cstdint>

#include <unistd.h>

/// Returns from the enclosing function when `expr` yields a failed Status.
#define MS_RETURN_IF_ERROR(expr)                                               \
  do {                                                                         \
    if (::ms::rt::Status msStatus_ = (expr); !msStatus_.ok())                  \
      return msStatus_;                                                        \
  } while (false)

namespace ms::rt::impl {
/// Sets `out` to `a + b`; returns true when it overflows.
inline bool addOverflows(uint64_t a, uint64_t b, uint64_t &out) {
  return __builtin_add_overflow(a, b, &out);
}

/// Sets `out` to `a * b`; returns true when it overflows.
inline bool mulOverflows(uint64_t a, uint64_t b, uint64_t &out) {
  return __builtin_mul_overflow(a, b, &out);
}

/// Writes all of `data` to `fd`, retrying interrupted writes; false on
/// failure (errno set).
inline bool writeAll(int fd, const void *data, size_t size) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    bytes += written;
    size -= static_cast<size_t>(written);
  }
  return true;
}

/// Returns true when [offset, offset + size) lies within [0, limit).
inline bool inRange(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}
} // namespace ms::rt::impl

#endif // MS_RUNTIME_CORE_UTIL_H
