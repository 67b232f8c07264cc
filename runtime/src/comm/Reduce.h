//===- Reduce.h - element-wise reductions of the collectives ---*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The arithmetic of all_reduce and reduce_scatter, shared by the
// communicator plugins (header-only: a plugin links no more of the runtime
// than its C API). Floats reduce in their own type, except f16 and bf16,
// which compute each step in f32 and round back (to nearest even); integers
// wrap as C++ unsigned arithmetic does; bool is one byte whose sum and max
// are a logical or, prod and min a logical and (the result stays 0 or 1).
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_COMM_REDUCE_H
#define MS_RUNTIME_COMM_REDUCE_H

#include "core/Communicator.h"
#include "npu/Float16.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace ms::rt::impl::comm {
/// Finds the group of `partition` that holds `rank`: its index in
/// `group` and the rank's position in it in `position`. Returns false when
/// no group holds the rank.
inline bool findGroup(const std::vector<std::vector<int32_t>> &partition,
                      int32_t rank, size_t &group, size_t &position) {
  for (size_t i = 0; i < partition.size(); ++i)
    for (size_t j = 0; j < partition[i].size(); ++j)
      if (partition[i][j] == rank) {
        group = i;
        position = j;
        return true;
      }
  return false;
}

/// Combines `a` and `b` as `reduction` says.
template <typename T>
inline T combine(T a, T b, Reduction reduction) {
  if constexpr (std::is_integral_v<T>) {
    // Integer sums and products wrap rather than overflow (undefined).
    using U = std::make_unsigned_t<T>;
    switch (reduction) {
    case Reduction::Sum:
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    case Reduction::Prod:
      return static_cast<T>(
          static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    case Reduction::Max:
      return std::max(a, b);
    case Reduction::Min:
      return std::min(a, b);
    }
  } else {
    switch (reduction) {
    case Reduction::Sum:
      return a + b;
    case Reduction::Prod:
      return a * b;
    // NaN propagates, as in numpy's maximum and minimum.
    case Reduction::Max:
      return a != a ? a : b != b ? b : std::max(a, b);
    case Reduction::Min:
      return a != a ? a : b != b ? b : std::min(a, b);
    }
  }
  return a;
}

/// Sets `out[k] = a[k] op b[k]` for `count` elements of type T (any of the
/// pointers may be equal; none needs to be aligned).
template <typename T>
inline void reduceAs(void *out, const void *a, const void *b, size_t count,
                     Reduction reduction) {
  auto *o = static_cast<uint8_t *>(out);
  const auto *x = static_cast<const uint8_t *>(a);
  const auto *y = static_cast<const uint8_t *>(b);
  for (size_t k = 0; k < count; ++k) {
    T left, right;
    std::memcpy(&left, x + k * sizeof(T), sizeof(T));
    std::memcpy(&right, y + k * sizeof(T), sizeof(T));
    T value = combine(left, right, reduction);
    std::memcpy(o + k * sizeof(T), &value, sizeof(T));
  }
}

/// The same for 16-bit floats stored as uint16_t bits: each step widens to
/// f32 with `widen`, combines, and rounds back with `narrow`.
template <float (*Widen)(uint16_t), uint16_t (*Narrow)(float)>
inline void reduceHalf(void *out, const void *a, const void *b, size_t count,
                       Reduction reduction) {
  auto *o = static_cast<uint8_t *>(out);
  const auto *x = static_cast<const uint8_t *>(a);
  const auto *y = static_cast<const uint8_t *>(b);
  for (size_t k = 0; k < count; ++k) {
    uint16_t left, right;
    std::memcpy(&left, x + 2 * k, 2);
    std::memcpy(&right, y + 2 * k, 2);
    uint16_t value = Narrow(combine(Widen(left), Widen(right), reduction));
    std::memcpy(o + 2 * k, &value, 2);
  }
}

/// Sets `out[k] = a[k] op b[k]` for `count` elements of `dtype`. Returns
/// false for a dtype that cannot be reduced (string, invalid).
inline bool reduceElements(ms_dtype_t dtype, Reduction reduction, void *out,
                           const void *a, const void *b, size_t count) {
  switch (dtype) {
  case MS_DTYPE_F16:
    reduceHalf<npu::halfToFloat, npu::floatToHalf>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_BF16:
    reduceHalf<npu::bf16ToFloat, npu::floatToBf16>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_F32:
    reduceAs<float>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_F64:
    reduceAs<double>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_BOOL: {
    // Logical or (sum, max) and and (prod, min) of bytes that are 0 or 1.
    bool any = reduction == Reduction::Sum || reduction == Reduction::Max;
    auto *o = static_cast<uint8_t *>(out);
    const auto *x = static_cast<const uint8_t *>(a);
    const auto *y = static_cast<const uint8_t *>(b);
    for (size_t k = 0; k < count; ++k)
      o[k] = any ? uint8_t(x[k] || y[k]) : uint8_t(x[k] && y[k]);
    return true;
  }
  case MS_DTYPE_I8:
    reduceAs<int8_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_I16:
    reduceAs<int16_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_I32:
    reduceAs<int32_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_I64:
    reduceAs<int64_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_U8:
    reduceAs<uint8_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_U16:
    reduceAs<uint16_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_U32:
    reduceAs<uint32_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_U64:
    reduceAs<uint64_t>(out, a, b, count, reduction);
    return true;
  case MS_DTYPE_STRING:
  case MS_DTYPE_INVALID:
  case MS_DTYPE_MAX:
    break;
  }
  return false;
}
} // namespace ms::rt::impl::comm

#endif // MS_RUNTIME_COMM_REDUCE_H
