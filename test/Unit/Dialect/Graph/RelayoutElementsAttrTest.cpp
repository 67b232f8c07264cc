//===- RelayoutElementsAttrTest.cpp - msgraph.relayout bytes tests --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The bytes a #msgraph.relayout stands for (the module writer writes them)
// against the layouts computed element by element here.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace mlir;
using namespace mlir::ms;

namespace {
class RelayoutElementsAttrTest : public ::testing::Test {
protected:
  RelayoutElementsAttrTest() { context.loadDialect<graph::GraphDialect>(); }

  /// A dense f32 constant of `shape` holding `values`.
  DenseElementsAttr floats(ArrayRef<int64_t> shape, ArrayRef<float> values) {
    auto type = RankedTensorType::get(shape, Float32Type::get(&context));
    return DenseElementsAttr::get(type, values);
  }

  /// All bytes writeBytes passes, and the number of pieces.
  static std::vector<char> bytesOf(graph::RelayoutElementsAttr attr,
                                   int *pieces = nullptr) {
    std::vector<char> bytes;
    int count = 0;
    attr.writeBytes([&](ArrayRef<char> piece) {
      EXPECT_LE(piece.size(), size_t(2) << 20);
      bytes.insert(bytes.end(), piece.begin(), piece.end());
      ++count;
    });
    if (pieces)
      *pieces = count;
    EXPECT_EQ(bytes.size(), attr.getNumBytes());
    return bytes;
  }

  static std::vector<float> asFloats(const std::vector<char> &bytes) {
    std::vector<float> values(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
    return values;
  }

  MLIRContext context;
};
} // namespace

TEST_F(RelayoutElementsAttrTest, MatmulPanels) {
  // [K, N] = [3, 64] as panels [N / 32, K, 32]: element [p, k, j] is
  // B[k, p * 32 + j].
  const int64_t k = 3, n = 64, c = 32;
  std::vector<float> b(k * n);
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = static_cast<float>(i);
  auto type = RankedTensorType::get({n / c, k, c}, Float32Type::get(&context));
  auto attr = graph::RelayoutElementsAttr::get(
      &context, type, floats({k, n}, b), {k, n / c, c}, {1, 0, 2});
  std::vector<float> got = asFloats(bytesOf(attr));
  ASSERT_EQ(got.size(), size_t(k * n));
  for (int64_t p = 0; p < n / c; ++p)
    for (int64_t row = 0; row < k; ++row)
      for (int64_t j = 0; j < c; ++j)
        EXPECT_EQ(got[(p * k + row) * c + j], b[row * n + p * c + j]);
  // materialize() holds the same elements.
  DenseElementsAttr dense = attr.materialize();
  EXPECT_EQ(dense.getType(), type);
  EXPECT_EQ(std::vector<float>(dense.getValues<float>().begin(),
                               dense.getValues<float>().end()),
            got);
}

TEST_F(RelayoutElementsAttrTest, TransposedPanels) {
  // A conv weight [M, C * KH * KW] = [64, 5] as [M / 32, C * KH * KW, 32]:
  // element [p, r, j] is W[p * 32 + j, r] (a gather along the source).
  const int64_t m = 64, r = 5, c = 32;
  std::vector<float> w(m * r);
  for (int64_t i = 0; i < m * r; ++i)
    w[i] = static_cast<float>(i) * 0.5f;
  auto type = RankedTensorType::get({m / c, r, c}, Float32Type::get(&context));
  auto attr = graph::RelayoutElementsAttr::get(
      &context, type, floats({m, r, 1, 1}, w), {m / c, c, r}, {0, 2, 1});
  std::vector<float> got = asFloats(bytesOf(attr));
  for (int64_t p = 0; p < m / c; ++p)
    for (int64_t row = 0; row < r; ++row)
      for (int64_t j = 0; j < c; ++j)
        EXPECT_EQ(got[(p * r + row) * c + j], w[(p * c + j) * r + row]);
}

TEST_F(RelayoutElementsAttrTest, BF16PairsRoundToNearestEven) {
  // [K, N] = [4, 64] as bf16 pairs [N / 32, K / 2, 64]: element [p, i, 2j
  // + t] is B[2i + t, p * 32 + j] rounded to nearest, ties to even.
  const int64_t k = 4, n = 64, c = 32;
  std::vector<float> b(k * n);
  for (int64_t i = 0; i < k * n; ++i)
    b[i] = 1.0f + static_cast<float>(i) / 1024.0f;
  // Ties: 1 + 2^-8 lies halfway between bf16 1 and 1 + 2^-7 (to even: 1);
  // 1 + 3 * 2^-8 halfway between 1 + 2^-7 and 1 + 2^-6 (to even: up).
  b[0] = 1.0f + std::ldexp(1.0f, -8);
  b[1] = 1.0f + 3 * std::ldexp(1.0f, -8);
  b[2] = std::numeric_limits<float>::infinity();
  b[3] = std::numeric_limits<float>::quiet_NaN();
  b[4] = std::numeric_limits<float>::max(); // rounds up to infinity
  auto type =
      RankedTensorType::get({n / c, k / 2, 2 * c}, BFloat16Type::get(&context));
  auto attr = graph::RelayoutElementsAttr::get(
      &context, type, floats({k, n}, b), {k / 2, 2, n / c, c}, {2, 0, 3, 1});
  std::vector<char> bytes = bytesOf(attr);
  ASSERT_EQ(bytes.size(), size_t(k * n * 2));
  auto at = [&](int64_t p, int64_t i, int64_t j, int64_t t) {
    uint16_t half;
    std::memcpy(&half, bytes.data() + (((p * k / 2 + i) * c + j) * 2 + t) * 2,
                2);
    return half;
  };
  auto expected = [](float value) {
    // bf16 by APFloat, the reference.
    APFloat rounded(value);
    bool lost;
    rounded.convert(APFloat::BFloat(), APFloat::rmNearestTiesToEven, &lost);
    return static_cast<uint16_t>(rounded.bitcastToAPInt().getZExtValue());
  };
  for (int64_t p = 0; p < n / c; ++p)
    for (int64_t i = 0; i < k / 2; ++i)
      for (int64_t j = 0; j < c; ++j)
        for (int64_t t = 0; t < 2; ++t) {
          float value = b[(2 * i + t) * n + p * c + j];
          if (std::isnan(value))
            EXPECT_EQ(at(p, i, j, t) & 0x7fc0, 0x7fc0);
          else
            EXPECT_EQ(at(p, i, j, t), expected(value));
        }
  EXPECT_EQ(at(0, 0, 0, 0), 0x3f80);
  EXPECT_EQ(at(0, 0, 1, 0), 0x3f82);
  EXPECT_EQ(at(0, 0, 2, 0), 0x7f80);
  EXPECT_EQ(at(0, 0, 4, 0), 0x7f80);
}

TEST_F(RelayoutElementsAttrTest, F16RoundsToNearestEven) {
  // A [2, 8] matrix transposed to f16 [8, 2]: ties to even, overflow to
  // infinity, subnormals, NaN; APFloat is the reference.
  std::vector<float> w = {1.0f + std::ldexp(1.0f, -11),     // tie: to 1
                          1.0f + 3 * std::ldexp(1.0f, -11), // tie: up
                          65504.0f,
                          65520.0f, // rounds to infinity
                          -std::numeric_limits<float>::infinity(),
                          std::ldexp(1.0f, -20), // subnormal
                          std::ldexp(1.0f, -25), // tie with zero: to zero
                          std::ldexp(3.0f, -26), // rounds up to 2^-24
                          std::numeric_limits<float>::quiet_NaN(),
                          -0.0f,
                          0.1f,
                          -2.5f,
                          std::ldexp(1.0f, -14) *
                              (1.0f - std::ldexp(1.0f, -12)),
                          1e-8f,
                          3.14159265f,
                          -65519.0f};
  auto type = RankedTensorType::get({8, 2}, Float16Type::get(&context));
  auto attr = graph::RelayoutElementsAttr::get(
      &context, type, floats({2, 8}, w), {2, 8}, {1, 0});
  std::vector<char> bytes = bytesOf(attr);
  ASSERT_EQ(bytes.size(), size_t(16 * 2));
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      uint16_t half;
      std::memcpy(&half, bytes.data() + (i * 2 + j) * 2, 2);
      float value = w[j * 8 + i];
      if (std::isnan(value)) {
        EXPECT_EQ(half & 0x7e00, 0x7e00);
        continue;
      }
      APFloat rounded(value);
      bool lost;
      rounded.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
      EXPECT_EQ(half, rounded.bitcastToAPInt().getZExtValue())
          << "element " << j * 8 + i << " = " << value;
    }
}

TEST_F(RelayoutElementsAttrTest, SplatSourceAndPieces) {
  // A splat source is its element everywhere; 3 MiB come in pieces.
  const int64_t rows = 768, columns = 1024;
  auto source = DenseElementsAttr::get(
      RankedTensorType::get({rows, columns}, Float32Type::get(&context)), 2.5f);
  auto type = RankedTensorType::get({columns / 32, rows, 32},
                                    Float32Type::get(&context));
  auto attr = graph::RelayoutElementsAttr::get(
      &context, type, source, {rows, columns / 32, 32}, {1, 0, 2});
  int pieces = 0;
  std::vector<float> got = asFloats(bytesOf(attr, &pieces));
  EXPECT_GE(pieces, 3);
  ASSERT_EQ(got.size(), size_t(rows * columns));
  for (float value : got)
    ASSERT_EQ(value, 2.5f);
}

TEST_F(RelayoutElementsAttrTest, VerifierRejectsMismatches) {
  auto source = floats({2, 3}, {0, 1, 2, 3, 4, 5});
  Type f32 = Float32Type::get(&context);
  auto emit = [&] { return emitError(UnknownLoc::get(&context)); };
  context.getDiagEngine().registerHandler([](Diagnostic &) {});
  auto type = RankedTensorType::get({3, 2}, f32);
  EXPECT_TRUE(succeeded(
      graph::RelayoutElementsAttr::verify(emit, type, source, {2, 3}, {1, 0})));
  // Not a permutation; wrong element count; wrong type.
  EXPECT_TRUE(failed(
      graph::RelayoutElementsAttr::verify(emit, type, source, {2, 3}, {1, 1})));
  EXPECT_TRUE(failed(
      graph::RelayoutElementsAttr::verify(emit, type, source, {2, 2}, {1, 0})));
  EXPECT_TRUE(failed(graph::RelayoutElementsAttr::verify(
      emit, RankedTensorType::get({3, 2}, IntegerType::get(&context, 32)),
      source, {2, 3}, {1, 0})));
}
