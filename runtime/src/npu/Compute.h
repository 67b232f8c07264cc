//===- Compute.h - what the NPU's units compute -----------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The functional half of the simulator: the data operations of dma, fill,
// mmad, fixpipe, vec and vreduce on resolved operands (host pointers,
// element types, element strides). No timing and no checks: the simulator
// bounds-checks every operand before it calls these. Element types are
// decoded once per row, never per element.
//
//===----------------------------------------------------------------------===//

#ifndef MS_RUNTIME_NPU_COMPUTE_H
#define MS_RUNTIME_NPU_COMPUTE_H

#include "npu/NpuProgram.h"

#include <array>
#include <cstdint>

namespace ms::rt::impl::npu {
/// The extents of an instruction, right-aligned in kMaxRank dimensions (the
/// leading ones are 1).
using Dims = std::array<int64_t, kMaxRank>;
/// The element strides of one operand, aligned like Dims (leading zeros).
using Strides = std::array<int64_t, kMaxRank>;

/// One operand of an operation: its first element, element type and
/// strides.
struct Operand {
  uint8_t *data = nullptr;
  DType dtype = DType::F32;
  Strides strides{};
};

/// Returns the number of elements of `dims`.
inline int64_t elementCount(const Dims &dims) {
  return dims[0] * dims[1] * dims[2] * dims[3];
}

/// Calls `row(at)` for every index of the outer three dimensions of `dims`,
/// where `at[v]` is the element offset of that row's first element in
/// operand `v` (whose strides are `*strides[v]`). A row is dims[3] elements,
/// strides[v][3] apart. This is the one walk over views that every
/// operation shares.
template <size_t N, typename Row>
void forEachRow(const Dims &dims, const std::array<const Strides *, N> &strides,
                Row &&row) {
  if (elementCount(dims) == 0)
    return;
  std::array<int64_t, N> at{};
  for (int64_t i = 0; i < dims[0]; ++i)
    for (int64_t j = 0; j < dims[1]; ++j)
      for (int64_t k = 0; k < dims[2]; ++k) {
        for (size_t v = 0; v < N; ++v) {
          const Strides &s = *strides[v];
          at[v] = i * s[0] + j * s[1] + k * s[2];
        }
        row(at);
      }
}

/// Copies every index of `dims` from `src` to `dst`, converting when the
/// element types differ (f32 to f16 rounds to nearest even).
void copyElements(const Dims &dims, const Operand &src, const Operand &dst);

/// Writes `value`, converted to `dst`'s element type, to every index.
void fillElements(const Dims &dims, const Operand &dst, double value);

/// C (+)= A B on the fractal layouts of docs/NPU.md: `a` holds m x k of
/// `dtype` (f16, bf16, f32 or s8) as [m/16][k/k0] fractals, `b` k x n as
/// [k/k0][n/16], `c` m x n fp32 (int32 for s8) as [m/16][n/16]. Products
/// accumulate in fp32 (int32, wrapping) in ascending k. `init` starts from
/// zero.
void matmul(DType dtype, const uint8_t *a, const uint8_t *b, uint8_t *c,
            int64_t m, int64_t k, int64_t n, bool init);

/// The fixpipe: `dst[i][j] (+)= cast(relu?(C[i][j]))` for i < rows,
/// j < cols, C being the m x n fractal matrix at `c` (`n` columns; int32
/// when `dst` is s32, fp32 otherwise). `dst`'s strides are 2-d.
void fixpipe(const uint8_t *c, int64_t n, int64_t rows, int64_t cols,
             const Operand &dst, bool relu, bool acc);

/// The vector unit: `dst = fn(a[, b or scalar])` (`sel`: `c != 0 ? a : b`)
/// over rows x cols (2-d strides). Float functions compute in fp32, integer
/// ones in wrapping int32; results are rounded to `dst`'s type.
void vectorOp(const VecOp &op, int64_t rows, int64_t cols, const Operand &dst,
              const Operand &a, const Operand &b, const Operand &c);

/// `dst[i] = fn_j src[i][j]` over rows x cols (`src` 2-d, `dst` 1-d in its
/// innermost stride), combined with `dst`'s value when `acc`.
void reduceRows(ReduceFn fn, int64_t rows, int64_t cols, const Operand &src,
                const Operand &dst, bool acc);
} // namespace ms::rt::impl::npu

#endif // MS_RUNTIME_NPU_COMPUTE_H
