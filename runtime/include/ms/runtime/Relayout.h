//===- Relayout.h - a weight's elements in another layout -------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A weight's elements in the layout a kernel reads: the source reshaped to
// `shape`, transposed by `permutation` (result dim i is dim permutation[i]
// of `shape`) and, optionally, rounded from f32 to bf16 (to nearest, ties
// to even; a NaN stays a NaN). The compiler computes it as it writes a
// module (`#msgraph.relayout`), the runtime as it loads a module whose
// weight lies in an external-data file (the meta's "relayout"). Shared by
// both; plain C++17, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_RELAYOUT_H
#define MS_RUNTIME_RELAYOUT_H

#include <cstdint>
#include <cstring>
#include <vector>

namespace ms::format {
/// Rounds the f32 with bits `bits` to bf16, to nearest, ties to even (a
/// NaN stays a NaN, made quiet).
inline uint16_t roundToBF16(uint32_t bits) {
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

/// A relayout of a source of elements of `elementBytes` bytes each.
struct RelayoutShape {
  /// The source's shape before the transposition.
  std::vector<int64_t> shape;
  /// Result dim i is dim permutation[i] of `shape`.
  std::vector<int64_t> permutation;
  /// The source's element size: 1, 2, 4 or 8 bytes.
  unsigned elementBytes = 4;
  /// Round f32 (elementBytes 4) to bf16.
  bool toBF16 = false;
  /// The source is one element repeated.
  bool splat = false;

  /// The number of elements.
  int64_t elements() const {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }
  /// The result's innermost extent (elements per row) and its rows.
  int64_t rowElements() const { return shape[permutation.back()]; }
  int64_t rows() const {
    int64_t inner = rowElements();
    return inner == 0 ? 0 : elements() / inner;
  }
  /// The bytes of one result element.
  unsigned resultBytes() const { return toBF16 ? 2 : elementBytes; }
};

/// Writes rows [first, last) of the relayout of `source` to `out`, row r at
/// out + (r - first) * rowElements() * resultBytes().
inline void relayoutRows(const char *source, const RelayoutShape &relayout,
                         int64_t first, int64_t last, char *out) {
  if (relayout.shape.empty() || first >= last || last > relayout.rows())
    return;
  const std::vector<int64_t> &shape = relayout.shape;
  size_t rank = shape.size();
  // The result's dims and the source element step along each (0 for a
  // splat: its one element everywhere).
  std::vector<int64_t> strides(rank, 1), sizes, steps;
  for (size_t d = rank - 1; d-- > 0;)
    strides[d] = strides[d + 1] * shape[d + 1];
  for (int64_t d : relayout.permutation) {
    sizes.push_back(shape[d]);
    steps.push_back(relayout.splat ? 0 : strides[d]);
  }
  int64_t inner = sizes.back(), innerStep = steps.back();
  unsigned in = relayout.elementBytes, outBytes = relayout.resultBytes();
  // Row `first`'s outer index and source element.
  std::vector<int64_t> index(rank - 1, 0);
  int64_t from = 0;
  for (int64_t rest = first, d = int64_t(rank) - 2; d >= 0; --d) {
    index[d] = rest % sizes[d];
    rest /= sizes[d];
    from += index[d] * steps[d];
  }
  for (int64_t row = first; row < last; ++row) {
    char *to = out + (row - first) * inner * outBytes;
    if (!relayout.toBF16 && innerStep == 1) {
      std::memcpy(to, source + from * in, inner * in);
    } else if (!relayout.toBF16) {
      for (int64_t j = 0; j < inner; ++j)
        std::memcpy(to + j * in, source + (from + j * innerStep) * in, in);
    } else {
      for (int64_t j = 0; j < inner; ++j) {
        uint32_t bits;
        std::memcpy(&bits, source + (from + j * innerStep) * in, 4);
        uint16_t half = roundToBF16(bits);
        std::memcpy(to + j * 2, &half, 2);
      }
    }
    // The next row: the outer dims counted like an odometer.
    for (int64_t d = int64_t(rank) - 2; d >= 0; --d) {
      from += steps[d];
      if (++index[d] < sizes[d])
        break;
      from -= steps[d] * sizes[d];
      index[d] = 0;
    }
  }
}
} // namespace ms::format

#endif // MS_RUNTIME_RELAYOUT_H
