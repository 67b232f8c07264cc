//===- Relayout.h - a weight's elements in another layout -------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A weight's elements in the layout a kernel reads: the source reshaped to
// `shape`, transposed by `permutation` (result dim i is dim permutation[i]
// of `shape`) and, optionally, rounded from f32 to bf16 or to IEEE binary16
// (to nearest, ties to even; a NaN stays a NaN). The compiler computes it as it
// writes a module (`#msgraph.relayout`), the runtime as it loads a module whose
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

/// Rounds the f32 with bits `bits` to IEEE binary16, to nearest, ties to
/// even: 65520 and up overflow to infinity, results below 2^-14 are
/// subnormal, a NaN stays a NaN (made quiet, keeping its top payload bits).
inline uint16_t roundToF16(uint32_t bits) {
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u)
    return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u)
    return static_cast<uint16_t>(sign | 0x7c00u);
  // Normal results: round at bit 13, then rebias the exponent (127 -> 15);
  // a carry out of the mantissa correctly bumps the exponent.
  if (magnitude >= 0x38800000u) {
    uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
  }
  // Subnormal results: units of 2^-24. Below 2^-25 (exponent 102) rounds
  // to zero, 2^-25 itself to even zero.
  uint32_t exponent = magnitude >> 23;
  if (exponent < 102)
    return static_cast<uint16_t>(sign);
  uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - exponent;
  uint32_t half = mantissa >> shift;
  uint32_t rest = mantissa & ((1u << shift) - 1);
  uint32_t midpoint = 1u << (shift - 1);
  if (rest > midpoint || (rest == midpoint && (half & 1u)))
    ++half; // Rounding up to 0x400 gives the smallest normal: correct.
  return static_cast<uint16_t>(sign | half);
}

/// What a relayout rounds f32 elements to, if anything.
enum class Narrowing { None, BF16, F16 };

/// A relayout of a source of elements of `elementBytes` bytes each.
struct RelayoutShape {
  /// The source's shape before the transposition.
  std::vector<int64_t> shape;
  /// Result dim i is dim permutation[i] of `shape`.
  std::vector<int64_t> permutation;
  /// The source's element size: 1, 2, 4 or 8 bytes.
  unsigned elementBytes = 4;
  /// Round f32 (elementBytes 4) to bf16 or f16.
  Narrowing narrowing = Narrowing::None;
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
  unsigned resultBytes() const {
    return narrowing == Narrowing::None ? elementBytes : 2;
  }
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
    bool narrows = relayout.narrowing != Narrowing::None;
    if (!narrows && innerStep == 1) {
      std::memcpy(to, source + from * in, inner * in);
    } else if (!narrows) {
      for (int64_t j = 0; j < inner; ++j)
        std::memcpy(to + j * in, source + (from + j * innerStep) * in, in);
    } else {
      bool bf16 = relayout.narrowing == Narrowing::BF16;
      for (int64_t j = 0; j < inner; ++j) {
        uint32_t bits;
        std::memcpy(&bits, source + (from + j * innerStep) * in, 4);
        uint16_t half = bf16 ? roundToBF16(bits) : roundToF16(bits);
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
