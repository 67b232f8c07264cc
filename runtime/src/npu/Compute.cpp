//===- Compute.cpp - what the NPU's units compute -------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Values travel in one of two domains: fp32 (every float type, and the
// integers a float operation reads) or wrapping int32 (integer operations).
// loadRow and storeRow convert a strided row of any element type into and
// out of a domain; the operations work on plain arrays in between.
//
//===----------------------------------------------------------------------===//

#include "npu/Compute.h"
#include "npu/Float16.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

using namespace ms::rt::impl::npu;

namespace {
//===----------------------------------------------------------------------===//
// Element conversions
//===----------------------------------------------------------------------===//

/// Reads a `T` at `p` (any alignment).
template <typename T>
T load(const uint8_t *p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

/// Writes `value` at `p` (any alignment).
template <typename T>
void store(uint8_t *p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

/// Rounds `value` to the nearest integer (ties to even) and saturates it to
/// `Int`; NaN becomes 0.
template <typename Int>
Int roundToInt(double value) {
  if (std::isnan(value))
    return 0;
  double rounded = std::nearbyint(value);
  if (rounded <= double(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  if (rounded >= double(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  return Int(rounded);
}

/// Saturates `value` to `Int`.
template <typename Int>
Int saturate(int32_t value) {
  return Int(std::clamp<int32_t>(value, std::numeric_limits<Int>::min(),
                                 std::numeric_limits<Int>::max()));
}

/// Converts a domain value `V` (float or int32_t) to the integer type `Int`.
template <typename Int, typename V>
Int toInteger(V value) {
  if constexpr (std::is_same_v<V, float>)
    return roundToInt<Int>(value);
  else
    return saturate<Int>(value);
}

/// Converts a float into domain `V`.
template <typename V>
V fromFloat(float value) {
  if constexpr (std::is_same_v<V, float>)
    return value;
  else
    return roundToInt<int32_t>(value);
}

/// Converts an integer into domain `V`.
template <typename V>
V fromInt(int32_t value) {
  if constexpr (std::is_same_v<V, float>)
    return float(value);
  else
    return value;
}

/// Converts a domain value to float.
template <typename V>
float toFloat(V value) {
  return float(value);
}

/// Adds in domain `V` (int32 wraps).
template <typename V>
V addValues(V a, V b) {
  if constexpr (std::is_same_v<V, float>)
    return a + b;
  else
    return int32_t(uint32_t(a) + uint32_t(b));
}

/// Reads `n` elements of type `Raw`, `stride` elements apart, through
/// `convert` into `out`.
template <typename Raw, typename V, typename Convert>
void loadLoop(const uint8_t *p, int64_t stride, int64_t n, V *out,
              Convert convert) {
  int64_t step = stride * int64_t(sizeof(Raw));
  for (int64_t i = 0; i < n; ++i)
    out[i] = convert(load<Raw>(p + i * step));
}

/// Reads a row of `n` elements of `dtype` into domain `V`.
template <typename V>
void loadRow(DType dtype, const uint8_t *p, int64_t stride, int64_t n, V *out) {
  switch (dtype) {
  case DType::F32:
    return loadLoop<float>(p, stride, n, out, fromFloat<V>);
  case DType::F16:
    return loadLoop<uint16_t>(p, stride, n, out, [](uint16_t h) {
      return fromFloat<V>(halfToFloat(h));
    });
  case DType::BF16:
    return loadLoop<uint16_t>(p, stride, n, out, [](uint16_t h) {
      return fromFloat<V>(bf16ToFloat(h));
    });
  case DType::S32:
    return loadLoop<int32_t>(p, stride, n, out, fromInt<V>);
  case DType::S8:
    return loadLoop<int8_t>(p, stride, n, out,
                            [](int8_t x) { return fromInt<V>(x); });
  case DType::U8:
    return loadLoop<uint8_t>(p, stride, n, out,
                             [](uint8_t x) { return fromInt<V>(x); });
  }
}

/// Writes `n` domain values through `encode` as `Raw` elements, `stride`
/// elements apart; with `acc`, adds what is there first (read through
/// `decode`).
template <typename Raw, typename V, typename Decode, typename Encode>
void storeLoop(uint8_t *p, int64_t stride, int64_t n, const V *values, bool acc,
               Decode decode, Encode encode) {
  int64_t step = stride * int64_t(sizeof(Raw));
  if (!acc) {
    for (int64_t i = 0; i < n; ++i)
      store<Raw>(p + i * step, encode(values[i]));
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    uint8_t *q = p + i * step;
    store<Raw>(q, encode(addValues<V>(decode(load<Raw>(q)), values[i])));
  }
}

/// Writes a row of `n` domain values as elements of `dtype`, rounding to
/// nearest even; with `acc`, adds them to what the row holds.
template <typename V>
void storeRow(DType dtype, uint8_t *p, int64_t stride, int64_t n,
              const V *values, bool acc) {
  switch (dtype) {
  case DType::F32:
    return storeLoop<float>(p, stride, n, values, acc, fromFloat<V>,
                            toFloat<V>);
  case DType::F16:
    return storeLoop<uint16_t>(
        p, stride, n, values, acc,
        [](uint16_t h) { return fromFloat<V>(halfToFloat(h)); },
        [](V v) { return floatToHalf(toFloat(v)); });
  case DType::BF16:
    return storeLoop<uint16_t>(
        p, stride, n, values, acc,
        [](uint16_t h) { return fromFloat<V>(bf16ToFloat(h)); },
        [](V v) { return floatToBf16(toFloat(v)); });
  case DType::S32:
    return storeLoop<int32_t>(p, stride, n, values, acc, fromInt<V>,
                              toInteger<int32_t, V>);
  case DType::S8:
    return storeLoop<int8_t>(
        p, stride, n, values, acc, [](int8_t x) { return fromInt<V>(x); },
        toInteger<int8_t, V>);
  case DType::U8:
    return storeLoop<uint8_t>(
        p, stride, n, values, acc, [](uint8_t x) { return fromInt<V>(x); },
        toInteger<uint8_t, V>);
  }
}

/// Returns the byte offset of element offset `elements` of `operand`.
uint8_t *at(const Operand &operand, int64_t elements) {
  return operand.data + elements * dtypeSize(operand.dtype);
}

//===----------------------------------------------------------------------===//
// Copies and fills
//===----------------------------------------------------------------------===//

/// Copies `n` raw elements of `T`, strides in elements.
template <typename T>
void copyRaw(const uint8_t *src, int64_t srcStride, uint8_t *dst,
             int64_t dstStride, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    store<T>(dst + i * dstStride * int64_t(sizeof(T)),
             load<T>(src + i * srcStride * int64_t(sizeof(T))));
}

/// Copies a row of same-typed elements.
void copyRow(int64_t size, const uint8_t *src, int64_t srcStride, uint8_t *dst,
             int64_t dstStride, int64_t n) {
  if (srcStride == 1 && dstStride == 1) {
    std::memmove(dst, src, size_t(n * size));
    return;
  }
  switch (size) {
  case 1:
    return copyRaw<uint8_t>(src, srcStride, dst, dstStride, n);
  case 2:
    return copyRaw<uint16_t>(src, srcStride, dst, dstStride, n);
  default:
    return copyRaw<uint32_t>(src, srcStride, dst, dstStride, n);
  }
}

/// Writes the `T` at `pattern` to `n` elements.
template <typename T>
void fillRaw(uint8_t *dst, int64_t stride, int64_t n, const uint8_t *pattern) {
  T value = load<T>(pattern);
  for (int64_t i = 0; i < n; ++i)
    store<T>(dst + i * stride * int64_t(sizeof(T)), value);
}

//===----------------------------------------------------------------------===//
// Vector functions
//===----------------------------------------------------------------------===//

/// out[i] = f(x[i]).
template <typename V, typename F>
void map1(const V *x, V *out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = f(x[i]);
}

/// out[i] = f(x[i], y[i]).
template <typename V, typename F>
void map2(const V *x, const V *y, V *out, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = f(x[i], y[i]);
}

/// Applies float function `fn` to `n` values.
void applyFloat(VecFn fn, const float *x, const float *y, float *out,
                int64_t n) {
  switch (fn) {
  case VecFn::Copy:
  case VecFn::Cast:
  case VecFn::Dup:
    return map1(x, out, n, [](float v) { return v; });
  case VecFn::Exp:
    return map1(x, out, n, [](float v) { return std::exp(v); });
  case VecFn::Log:
    return map1(x, out, n, [](float v) { return std::log(v); });
  case VecFn::Sqrt:
    return map1(x, out, n, [](float v) { return std::sqrt(v); });
  case VecFn::Rsqrt:
    return map1(x, out, n, [](float v) { return 1.0f / std::sqrt(v); });
  case VecFn::Recip:
    return map1(x, out, n, [](float v) { return 1.0f / v; });
  case VecFn::Abs:
    return map1(x, out, n, [](float v) { return std::fabs(v); });
  case VecFn::Neg:
    return map1(x, out, n, [](float v) { return -v; });
  case VecFn::Relu:
    return map1(x, out, n, [](float v) { return v > 0.0f ? v : 0.0f; });
  case VecFn::Tanh:
    return map1(x, out, n, [](float v) { return std::tanh(v); });
  case VecFn::Erf:
    return map1(x, out, n, [](float v) { return std::erf(v); });
  case VecFn::Sigmoid:
    return map1(x, out, n,
                [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  case VecFn::Add:
    return map2(x, y, out, n, [](float a, float b) { return a + b; });
  case VecFn::Sub:
    return map2(x, y, out, n, [](float a, float b) { return a - b; });
  case VecFn::Mul:
    return map2(x, y, out, n, [](float a, float b) { return a * b; });
  case VecFn::Div:
    return map2(x, y, out, n, [](float a, float b) { return a / b; });
  case VecFn::Max:
    return map2(x, y, out, n, [](float a, float b) { return std::fmax(a, b); });
  case VecFn::Min:
    return map2(x, y, out, n, [](float a, float b) { return std::fmin(a, b); });
  case VecFn::Pow:
    return map2(x, y, out, n, [](float a, float b) { return std::pow(a, b); });
  case VecFn::Lt:
    return map2(x, y, out, n, [](float a, float b) { return float(a < b); });
  case VecFn::Le:
    return map2(x, y, out, n, [](float a, float b) { return float(a <= b); });
  case VecFn::Gt:
    return map2(x, y, out, n, [](float a, float b) { return float(a > b); });
  case VecFn::Ge:
    return map2(x, y, out, n, [](float a, float b) { return float(a >= b); });
  case VecFn::Eq:
    return map2(x, y, out, n, [](float a, float b) { return float(a == b); });
  case VecFn::Ne:
    return map2(x, y, out, n, [](float a, float b) { return float(a != b); });
  case VecFn::Sel: // (selectRow)
    return;
  }
}

/// Applies integer function `fn` to `n` values (wrapping int32; the parser
/// admits only the functions below).
void applyInt(VecFn fn, const int32_t *x, const int32_t *y, int32_t *out,
              int64_t n) {
  auto wrap = [](uint32_t v) { return int32_t(v); };
  switch (fn) {
  case VecFn::Abs:
    return map1(x, out, n,
                [&](int32_t v) { return v < 0 ? wrap(0u - uint32_t(v)) : v; });
  case VecFn::Neg:
    return map1(x, out, n, [&](int32_t v) { return wrap(0u - uint32_t(v)); });
  case VecFn::Relu:
    return map1(x, out, n, [](int32_t v) { return std::max(v, 0); });
  case VecFn::Add:
    return map2(x, y, out, n, [&](int32_t a, int32_t b) {
      return wrap(uint32_t(a) + uint32_t(b));
    });
  case VecFn::Sub:
    return map2(x, y, out, n, [&](int32_t a, int32_t b) {
      return wrap(uint32_t(a) - uint32_t(b));
    });
  case VecFn::Mul:
    return map2(x, y, out, n, [&](int32_t a, int32_t b) {
      return wrap(uint32_t(a) * uint32_t(b));
    });
  case VecFn::Max:
    return map2(x, y, out, n,
                [](int32_t a, int32_t b) { return std::max(a, b); });
  case VecFn::Min:
    return map2(x, y, out, n,
                [](int32_t a, int32_t b) { return std::min(a, b); });
  case VecFn::Lt:
    return map2(x, y, out, n, [](int32_t a, int32_t b) { return int(a < b); });
  case VecFn::Le:
    return map2(x, y, out, n, [](int32_t a, int32_t b) { return int(a <= b); });
  case VecFn::Gt:
    return map2(x, y, out, n, [](int32_t a, int32_t b) { return int(a > b); });
  case VecFn::Ge:
    return map2(x, y, out, n, [](int32_t a, int32_t b) { return int(a >= b); });
  case VecFn::Eq:
    return map2(x, y, out, n, [](int32_t a, int32_t b) { return int(a == b); });
  case VecFn::Ne:
    return map2(x, y, out, n, [](int32_t a, int32_t b) { return int(a != b); });
  default:
    return map1(x, out, n, [](int32_t v) { return v; });
  }
}

/// Applies `fn` in domain `V`.
void apply(VecFn fn, const float *x, const float *y, float *out, int64_t n) {
  applyFloat(fn, x, y, out, n);
}
void apply(VecFn fn, const int32_t *x, const int32_t *y, int32_t *out,
           int64_t n) {
  applyInt(fn, x, y, out, n);
}

/// A program's scalar operand in domain `V`: an integer exactly (a float
/// would round integers beyond 2^24), clamped to int32.
template <typename V>
V scalarIn(double value) {
  if constexpr (std::is_same_v<V, int32_t>) {
    if (std::isnan(value))
      return 0;
    double clamped =
        std::min<double>(std::max<double>(std::nearbyint(value),
                                          std::numeric_limits<int32_t>::min()),
                         std::numeric_limits<int32_t>::max());
    return int32_t(clamped);
  } else {
    return fromFloat<V>(float(value));
  }
}

/// Runs a vec operation in domain `V`, one row at a time.
template <typename V>
void vectorRows(const VecOp &op, int64_t rows, int64_t cols, const Operand &dst,
                const Operand &a, const Operand &b, const Operand &c) {
  std::vector<V> x(static_cast<size_t>(cols)), y(static_cast<size_t>(cols)),
      z(static_cast<size_t>(cols)), out(static_cast<size_t>(cols));
  if (!op.hasB)
    std::fill(y.begin(), y.end(), scalarIn<V>(op.scalar));
  Dims dims = {1, 1, rows, cols};
  bool select = op.fn == VecFn::Sel;
  forEachRow<4>(
      dims, {&dst.strides, &a.strides, &b.strides, &c.strides},
      [&](const std::array<int64_t, 4> &row) {
        loadRow<V>(a.dtype, at(a, row[1]), a.strides[3], cols, x.data());
        if (op.hasB)
          loadRow<V>(b.dtype, at(b, row[2]), b.strides[3], cols, y.data());
        if (select) {
          loadRow<V>(c.dtype, at(c, row[3]), c.strides[3], cols, z.data());
          for (int64_t i = 0; i < cols; ++i)
            out[i] = z[i] != V(0) ? x[i] : y[i];
        } else {
          apply(op.fn, x.data(), y.data(), out.data(), cols);
        }
        storeRow<V>(dst.dtype, at(dst, row[0]), dst.strides[3], cols,
                    out.data(), false);
      });
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// Combines two values with `fn`.
template <typename V>
V combine(ReduceFn fn, V a, V b) {
  switch (fn) {
  case ReduceFn::Sum:
    return addValues<V>(a, b);
  case ReduceFn::Max:
    return b > a ? b : a;
  case ReduceFn::Min:
    return b < a ? b : a;
  }
  return a;
}

/// Returns the identity of `fn` in domain `V`.
template <typename V>
V identity(ReduceFn fn) {
  if (fn == ReduceFn::Sum)
    return V(0);
  if constexpr (std::is_same_v<V, float>)
    return fn == ReduceFn::Max ? -INFINITY : INFINITY;
  else
    return fn == ReduceFn::Max ? std::numeric_limits<int32_t>::min()
                               : std::numeric_limits<int32_t>::max();
}

/// Folds `n` values with `f`, in order.
template <typename V, typename F>
V fold(const V *x, int64_t n, V init, F f) {
  for (int64_t i = 0; i < n; ++i)
    init = f(init, x[i]);
  return init;
}

/// Reduces every row of `src` in domain `V`.
template <typename V>
void reduceIn(ReduceFn fn, int64_t rows, int64_t cols, const Operand &src,
              const Operand &dst, bool acc) {
  std::vector<V> x(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    loadRow<V>(src.dtype, at(src, r * src.strides[2]), src.strides[3], cols,
               x.data());
    V value = identity<V>(fn);
    switch (fn) {
    case ReduceFn::Sum:
      value = fold(x.data(), cols, value, addValues<V>);
      break;
    case ReduceFn::Max:
      value =
          fold(x.data(), cols, value, [](V a, V b) { return b > a ? b : a; });
      break;
    case ReduceFn::Min:
      value =
          fold(x.data(), cols, value, [](V a, V b) { return b < a ? b : a; });
      break;
    }
    uint8_t *out = at(dst, r * dst.strides[3]);
    if (acc) {
      V old = V(0);
      loadRow<V>(dst.dtype, out, 1, 1, &old);
      value = combine(fn, old, value);
    }
    storeRow<V>(dst.dtype, out, 1, 1, &value, false);
  }
}

//===----------------------------------------------------------------------===//
// The cube
//===----------------------------------------------------------------------===//

/// Multiplies fractals of `V` (float, or uint32 for wrapping int32): `a` is
/// [m16][kFractals] fractals of 16 x K0, `b` [kFractals][n16] of K0 x 16,
/// `c` [m16][n16] of 16 x 16 32-bit accumulators.
template <typename V, int K0>
void multiplyFractals(const V *a, const V *b, uint8_t *c, int64_t m16,
                      int64_t kFractals, int64_t n16, bool init) {
  V acc[256];
  for (int64_t mi = 0; mi < m16; ++mi)
    for (int64_t ni = 0; ni < n16; ++ni) {
      uint8_t *cf = c + (mi * n16 + ni) * 256 * 4;
      if (init)
        std::fill(acc, acc + 256, V(0));
      else
        std::memcpy(acc, cf, sizeof(acc));
      for (int64_t ki = 0; ki < kFractals; ++ki) {
        const V *af = a + (mi * kFractals + ki) * 16 * K0;
        const V *bf = b + (ki * n16 + ni) * K0 * 16;
        for (int r = 0; r < 16; ++r) {
          V *accRow = acc + r * 16;
          for (int kk = 0; kk < K0; ++kk) {
            V x = af[r * K0 + kk];
            const V *bRow = bf + kk * 16;
            for (int col = 0; col < 16; ++col)
              accRow[col] += x * bRow[col];
          }
        }
      }
      std::memcpy(cf, acc, sizeof(acc));
    }
}

/// Widens `count` elements at `p` with `convert`.
template <typename Raw, typename V, typename Convert>
std::vector<V> widen(const uint8_t *p, int64_t count, Convert convert) {
  std::vector<V> out(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i)
    out[size_t(i)] = convert(load<Raw>(p + i * int64_t(sizeof(Raw))));
  return out;
}
} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

void ms::rt::impl::npu::copyElements(const Dims &dims, const Operand &src,
                                     const Operand &dst) {
  int64_t n = dims[3];
  if (src.dtype == dst.dtype) {
    int64_t size = dtypeSize(src.dtype);
    forEachRow<2>(dims, {&src.strides, &dst.strides},
                  [&](const std::array<int64_t, 2> &row) {
                    copyRow(size, at(src, row[0]), src.strides[3],
                            at(dst, row[1]), dst.strides[3], n);
                  });
    return;
  }
  // A converting copy goes through fp32.
  std::vector<float> values(static_cast<size_t>(n));
  forEachRow<2>(dims, {&src.strides, &dst.strides},
                [&](const std::array<int64_t, 2> &row) {
                  loadRow<float>(src.dtype, at(src, row[0]), src.strides[3], n,
                                 values.data());
                  storeRow<float>(dst.dtype, at(dst, row[1]), dst.strides[3], n,
                                  values.data(), false);
                });
}

void ms::rt::impl::npu::fillElements(const Dims &dims, const Operand &dst,
                                     double value) {
  // Encode one element, then repeat its bytes.
  uint8_t pattern[4] = {};
  if (isFloat(dst.dtype)) {
    float single = float(value);
    storeRow<float>(dst.dtype, pattern, 1, 1, &single, false);
  } else {
    int32_t single = roundToInt<int32_t>(value);
    storeRow<int32_t>(dst.dtype, pattern, 1, 1, &single, false);
  }
  int64_t n = dims[3];
  int64_t size = dtypeSize(dst.dtype);
  forEachRow<1>(dims, {&dst.strides}, [&](const std::array<int64_t, 1> &row) {
    uint8_t *p = at(dst, row[0]);
    if (size == 1)
      fillRaw<uint8_t>(p, dst.strides[3], n, pattern);
    else if (size == 2)
      fillRaw<uint16_t>(p, dst.strides[3], n, pattern);
    else
      fillRaw<uint32_t>(p, dst.strides[3], n, pattern);
  });
}

void ms::rt::impl::npu::matmul(DType dtype, const uint8_t *a, const uint8_t *b,
                               uint8_t *c, int64_t m, int64_t k, int64_t n,
                               bool init) {
  if (dtype == DType::S8) {
    // int32 accumulation wraps: compute in uint32.
    auto widenS8 = [](int8_t x) { return uint32_t(int32_t(x)); };
    std::vector<uint32_t> wa = widen<int8_t, uint32_t>(a, m * k, widenS8);
    std::vector<uint32_t> wb = widen<int8_t, uint32_t>(b, k * n, widenS8);
    multiplyFractals<uint32_t, 32>(wa.data(), wb.data(), c, m / 16, k / 32,
                                   n / 16, init);
    return;
  }
  if (dtype == DType::F32) {
    // fp32 products round to fp32 before they are summed.
    auto same = [](float x) { return x; };
    std::vector<float> wa = widen<float, float>(a, m * k, same);
    std::vector<float> wb = widen<float, float>(b, k * n, same);
    multiplyFractals<float, 8>(wa.data(), wb.data(), c, m / 16, k / 8, n / 16,
                               init);
    return;
  }
  // fp16 and bf16 products are exact in fp32; only the sums round.
  auto toFloat = dtype == DType::BF16 ? bf16ToFloat : halfToFloat;
  std::vector<float> wa = widen<uint16_t, float>(a, m * k, toFloat);
  std::vector<float> wb = widen<uint16_t, float>(b, k * n, toFloat);
  multiplyFractals<float, 16>(wa.data(), wb.data(), c, m / 16, k / 16, n / 16,
                              init);
}

void ms::rt::impl::npu::fixpipe(const uint8_t *c, int64_t n, int64_t rows,
                                int64_t cols, const Operand &dst, bool relu,
                                bool acc) {
  auto run = [&](auto zero) {
    using V = decltype(zero);
    std::vector<V> row(static_cast<size_t>(cols));
    int64_t n16 = n / 16;
    for (int64_t i = 0; i < rows; ++i) {
      // Row i of the fractal matrix: 16 contiguous values per fractal.
      const uint8_t *base = c + ((i / 16) * n16 * 256 + (i % 16) * 16) * 4;
      for (int64_t j = 0; j < cols; j += 16)
        std::memcpy(&row[size_t(j)], base + (j / 16) * 256 * 4,
                    size_t(std::min<int64_t>(16, cols - j)) * 4);
      if (relu)
        for (V &value : row)
          value = value > V(0) ? value : V(0);
      storeRow<V>(dst.dtype, at(dst, i * dst.strides[2]), dst.strides[3], cols,
                  row.data(), acc);
    }
  };
  if (dst.dtype == DType::S32)
    run(int32_t(0));
  else
    run(0.0f);
}

void ms::rt::impl::npu::vectorOp(const VecOp &op, int64_t rows, int64_t cols,
                                 const Operand &dst, const Operand &a,
                                 const Operand &b, const Operand &c) {
  Dims dims = {1, 1, rows, cols};
  if (op.fn == VecFn::Copy)
    return copyElements(dims, a, dst);
  if (op.fn == VecFn::Dup)
    return fillElements(dims, dst, op.scalar);
  // Integers stay integers unless a float is read or written.
  bool ints = !isFloat(dst.dtype) && !isFloat(a.dtype);
  if (ints)
    vectorRows<int32_t>(op, rows, cols, dst, a, b, c);
  else
    vectorRows<float>(op, rows, cols, dst, a, b, c);
}

void ms::rt::impl::npu::reduceRows(ReduceFn fn, int64_t rows, int64_t cols,
                                   const Operand &src, const Operand &dst,
                                   bool acc) {
  if (isFloat(src.dtype))
    reduceIn<float>(fn, rows, cols, src, dst, acc);
  else
    reduceIn<int32_t>(fn, rows, cols, src, dst, acc);
}
