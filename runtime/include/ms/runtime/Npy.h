//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Reads .npy files of format versions 1.0, 2.0 and 3.0 and writes version
// 1.0. Supported: little-endian (or byte-order-free) booleans, integers and
// floats of the ms dtypes, in C order, and strings: unicode ('<U', read and
// written) and byte ('|S', read) arrays become MS_DTYPE_STRING with UTF-8
// text. bf16 has no NumPy dtype and is rejected. Corrupt input yields a
// status, never a crash.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPY_H
#define MS_RUNTIME_NPY_H

#include "ms/runtime/Runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ms::rt {
/// An array read from a .npy file.
struct NpyArray {
  /// The element type.
  ms_dtype_t dtype = MS_DTYPE_INVALID;
  /// The shape (empty for a 0-d array).
  std::vector<int64_t> shape;
  /// The elements in C order, little-endian (empty for strings).
  std::vector<uint8_t> data;
  /// The elements of a string array in C order, as UTF-8.
  std::vector<std::string> strings;
};

/// Parses the .npy file image `bytes[0..size)`; `name` starts error messages.
Status parseNpy(const void *bytes, size_t size, const std::string &name,
                NpyArray &out);
/// Reads the .npy file at `path`.
Status readNpy(const std::string &path, NpyArray &out);
/// Encodes an array as a version 1.0 .npy file image into `out`. `size` must
/// equal the dtype size times the element count. A string array
/// (ms_string_t elements holding UTF-8) is written as '<U' with the width of
/// its longest element.
Status encodeNpy(ms_dtype_t dtype, const int64_t *shape, size_t rank,
                 const void *data, size_t size, std::vector<uint8_t> &out);
/// Writes an array to the .npy file at `path` (replacing it).
Status writeNpy(const std::string &path, ms_dtype_t dtype, const int64_t *shape,
                size_t rank, const void *data, size_t size);
} // namespace ms::rt

#endif // MS_RUNTIME_NPY_H
