//===- PackWeights.cpp - constant weights in the kernels' layouts ---------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Stores constant weights once, at compile time, in the layout the
// contraction kernels read fastest; each kernel turns its argument back
// into the op's layout with msgraph ops that the kernel code generation
// folds into its reads.
//
// - A matmul's `[K, N]` weight is stored as `[N / 32, K, 32]` panels: the
//   kernel reads a block of 32 columns over k, and the 32 columns of a row
//   of the panel are then the next 128 bytes, not 4*N bytes (8 KiB for
//   N = 2048) on from the last row's; each panel streams from memory in
//   order (ONNX Runtime packs its constant weights so when it loads a
//   model).
// - A convolution with fewer output positions than output channels runs
//   faster vectorized along the channels (ResNet's 7x7 outputs fill blocks
//   of 32 positions to 77%; their 512 channels fill them all), as does one
//   of stride 1 whose positions are no multiple of 32, which needs
//   its weight `[M, C, K...]` as `[C, K..., M]` (a `[C * K..., M]` matrix):
//   stored in panels like a matmul's, `[M / 32, C * K..., 32]`, when M is
//   a multiple of 32 (else as `[C, K..., M]`). In place, a block of 32
//   channels would read 128 bytes every 4*M bytes: with M = 512, all 4608
//   rows of a panel in 4 of L1's 64 sets and 64 of L2's 1024.
//
// - A 3x3 convolution of stride 1 on an even number of output rows and
//   columns with enough channels runs as Winograd's F(2x2, 3x3)
//   (`ms-cpu-winograd-convs`: 2.25x fewer multiplications), which needs
//   its weight `[M, C, 3, 3]` as the 16 matrices `G g G^T` of each 3x3
//   filter g, `[16, M, C]`: computed here, once. The kernel argument is
//   marked `ms.winograd_filter`; its unpacking (`Gp U Gp^T`, Gp G = I)
//   gives the weight back for any other reader.
//
// A moved weight is a `#msgraph.relayout` of the original constant, which
// the module writer computes as it writes it: the compiler holds each
// weight once. A weight that lies in an external-data file is packed too:
// a relayout of it stays in the file (the runtime computes the layout as it
// loads the module; ms-build-plan), a computed one (a Winograd filter) is
// stored in the module, as any constant computed from a weight is.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/PackWeights.h"
#include "ms/Target/CPU/CPUTarget.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "ms/runtime/Relayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <cstring>

namespace mlir::ms {
#define GEN_PASS_DEF_CPUPACKWEIGHTSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Whether `conv` runs faster with its weight stored [C, K..., M]: a plain
/// (ungrouped) f32 convolution of static shapes with a multiple of 8 output
/// channels (whole vectors of AVX2 and AVX-512) and fewer output positions
/// than channels, or of stride 1 with a number of positions that is not a
/// multiple of 32 (vectorized along its positions, the kernel's last block
/// of each tile would be partial: ResNet's 28x28 convs, 2 rows of 28 per
/// tile, ran 10% faster vectorized along their 128 channels; its stride-2
/// conv to 28x28 8% slower, and those on 56x56 positions 7% slower).
static bool prefersChannelsInnermost(graph::ConvOp conv) {
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  if (!weightType || !resultType || !weightType.hasStaticShape() ||
      !resultType.hasStaticShape() || !weightType.getElementType().isF32() ||
      conv.getGroup() != 1 || weightType.getRank() < 3)
    return false;
  int64_t positions = 1;
  for (int64_t size : resultType.getShape().drop_front(2))
    positions *= size;
  int64_t channels = resultType.getDimSize(1);
  bool unitStrides = !conv.getStrides() ||
                     llvm::all_of(*conv.getStrides(),
                                  [](int64_t stride) { return stride == 1; });
  return channels % 8 == 0 &&
         (positions < channels || (unitStrides && positions % 32 != 0));
}

/// Whether `conv` runs as Winograd's F(2x2, 3x3) (ms-cpu-winograd-convs):
/// a plain f32 2-D convolution of static shapes with a 3x3 kernel, unit
/// strides and dilations, an even number of output rows and columns, at
/// least 32 input and output channels (the batched matmul's reduction and
/// rows), a transformed filter (64 bytes per channel pair) within 4 MiB
/// and at least 14x14 output positions. ResNet's 56x56 and 28x28 convs ran
/// 30% faster so (blocks of tiles, the filter read from L2 by each), its
/// 14x14 ones (4 MiB of filter, read once for all tiles) 2x faster on AVX2.
static bool prefersWinograd(graph::ConvOp conv) {
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto inputType = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  auto isOne = [](std::optional<ArrayRef<int64_t>> values) {
    return !values || llvm::all_of(*values, [](int64_t v) { return v == 1; });
  };
  if (!weightType || !inputType || !resultType ||
      !weightType.hasStaticShape() || !inputType.hasStaticShape() ||
      !resultType.hasStaticShape() || !weightType.getElementType().isF32() ||
      weightType.getRank() != 4 || conv.getGroup() != 1 ||
      !isOne(conv.getStrides()) || !isOne(conv.getDilations()))
    return false;
  ArrayRef<int64_t> w = weightType.getShape(), out = resultType.getShape();
  return w[2] == 3 && w[3] == 3 && w[0] >= 32 && w[1] >= 32 &&
         w[0] * w[1] * 64 <= 4 * 1024 * 1024 && out[2] % 2 == 0 &&
         out[3] % 2 == 0 && out[2] * out[3] >= 14 * 14;
}

/// The Winograd F(2x2, 3x3) filter transform G (4x3) and Gp (3x4), a left
/// inverse of it (Gp G = I).
static constexpr double kWinogradG[4][3] = {
    {1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static constexpr float kWinogradGp[3][4] = {
    {1, 0, 0, 0}, {0, 1, -1, 0}, {0, 0, 0, 1}};

/// A bf16 constant of `type` holding `values` rounded to nearest, ties to
/// even (the module writer's and the runtime's rounding).
static Value bf16Constant(OpBuilder &b, Location loc, RankedTensorType type,
                          ArrayRef<float> values) {
  std::vector<uint16_t> halves(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &values[i], sizeof(bits));
    halves[i] = ::ms::format::roundToBF16(bits);
  }
  return graph::ConstantOp::create(
      b, loc,
      DenseElementsAttr::getFromRawBuffer(
          type, ArrayRef<char>(reinterpret_cast<const char *>(halves.data()),
                               halves.size() * sizeof(uint16_t))));
}

/// `weight`, a constant holding `rows` rows of f32, as the bf16 rows of
/// `rowsType` (`[rows, K + 1]` for K odd: each ending in a zero); `weight`
/// itself if it holds no dense elements.
static Value storePaddedRows(OpBuilder &b, Location loc, Value weight,
                             RankedTensorType rowsType) {
  DenseElementsAttr dense = graph::getDenseElements(
      weight.getDefiningOp<graph::ConstantOp>().getValue());
  if (!dense)
    return weight;
  int64_t rows = rowsType.getDimSize(0), padded = rowsType.getDimSize(1);
  int64_t k = dense.getNumElements() / rows;
  std::vector<float> values(rows * padded, 0.0f);
  auto elements = dense.value_begin<float>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t i = 0; i < k; ++i)
      values[r * padded + i] = elements[r * k + i];
  return bf16Constant(b, loc, rowsType, values);
}

/// `weight`, a constant `[M, C, 3, 3]`, as its Winograd transform `[16, M,
/// C]` (element `[a * 4 + b, m, c]` = `(G g G^T)[a][b]` of the filter g =
/// `weight[m, c]`, in double and rounded once to f32, then to bf16 if that
/// is packedType's element type); `weight` itself if it holds no dense
/// elements.
static Value storeWinogradFilter(OpBuilder &b, Location loc, Value weight,
                                 RankedTensorType packedType) {
  DenseElementsAttr dense = graph::getDenseElements(
      weight.getDefiningOp<graph::ConstantOp>().getValue());
  if (!dense)
    return weight;
  int64_t m = packedType.getDimSize(1), c = packedType.getDimSize(2);
  std::vector<float> u(16 * m * c);
  auto values = dense.value_begin<float>();
  for (int64_t i = 0; i < m * c; ++i) {
    double g[3][3], t[4][3];
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t s = 0; s < 3; ++s)
        g[r][s] = values[i * 9 + r * 3 + s];
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t s = 0; s < 3; ++s)
        t[a][s] = kWinogradG[a][0] * g[0][s] + kWinogradG[a][1] * g[1][s] +
                  kWinogradG[a][2] * g[2][s];
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t e = 0; e < 4; ++e)
        u[(a * 4 + e) * m * c + i] = static_cast<float>(
            t[a][0] * kWinogradG[e][0] + t[a][1] * kWinogradG[e][1] +
            t[a][2] * kWinogradG[e][2]);
  }
  if (packedType.getElementType().isBF16())
    return bf16Constant(b, loc, packedType, u);
  return graph::ConstantOp::create(
      b, loc, DenseElementsAttr::get(packedType, ArrayRef<float>(u)));
}

/// Whether `matmul`'s rhs is a weight to store in panels of
/// kMatmulWeightPanel columns: a static f32 `[K, N]` matrix with at least
/// two whole panels, multiplied by a static f32 lhs of rank 2 or more (the
/// rows the contraction kernel blocks).
static bool prefersPanels(graph::MatMulOp matmul) {
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhsType = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  if (!lhsType || !rhsType || !lhsType.hasStaticShape() ||
      !rhsType.hasStaticShape() || !lhsType.getElementType().isF32() ||
      !rhsType.getElementType().isF32() || lhsType.getRank() < 2 ||
      rhsType.getRank() != 2)
    return false;
  int64_t columns = rhsType.getDimSize(1);
  return columns % kMatmulWeightPanel == 0 && columns > kMatmulWeightPanel;
}

/// `weight`, a constant holding the `[K, N]` matrix B (row-major, or with
/// `transposed` its transpose `[N, K]`), stored as panels `[N / c, K, c]`
/// of packedType (c its last dim).
static Value storeInPanels(OpBuilder &b, Location loc, Value weight,
                           RankedTensorType packedType, bool transposed) {
  int64_t panels = packedType.getDimSize(0), k = packedType.getDimSize(1),
          c = packedType.getDimSize(2);
  if (transposed)
    return relayoutWeight(b, loc, weight, packedType, {panels, c, k},
                          {0, 2, 1});
  return relayoutWeight(b, loc, weight, packedType, {k, panels, c}, {1, 0, 2});
}

/// `weight`, a constant holding the f32 `[K, N]` matrix B, stored as
/// bfloat16 pairs of rows `[N / c, K / 2, 2c]` of pairsType: element `[p,
/// i, 2j + t]` is B[2i + t, p * c + j] rounded to nearest, ties to even.
static Value storeInPairPanels(OpBuilder &b, Location loc, Value weight,
                               RankedTensorType pairsType) {
  int64_t panels = pairsType.getDimSize(0), pairs = pairsType.getDimSize(1),
          c = pairsType.getDimSize(2) / 2;
  // [K, N] = [K/2, 2, N/c, c] -> [N/c, K/2, c, 2].
  return relayoutWeight(b, loc, weight, pairsType, {pairs, 2, panels, c},
                        {2, 0, 3, 1});
}

namespace {
struct CPUPackWeightsPass final
    : mlir::ms::impl::CPUPackWeightsPassBase<CPUPackWeightsPass> {
  using CPUPackWeightsPassBase::CPUPackWeightsPassBase;

  void runOnOperation() override {
    if (precision != "f32" && precision != "bf16") {
      getOperation().emitError("expected precision f32 or bf16, found '")
          << precision << "'";
      return signalPassFailure();
    }
    ModuleOp module = getOperation();
    DenseMap<Operation *, SmallVector<func::CallOp>> calls =
        KernelWeightPacker::getKernelCalls(module);
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr("ms.kernel") || kernel.isExternal())
        continue;
      auto callers = calls.find(kernel);
      if (callers == calls.end())
        continue;
      auto kernelArg = [&](Value v) {
        auto arg = dyn_cast<BlockArgument>(v);
        return arg && arg.getOwner() == &kernel.front() && arg.hasOneUse()
                   ? arg
                   : BlockArgument();
      };
      kernel.walk([&](graph::ConvOp conv) {
        BlockArgument arg = kernelArg(conv.getWeight());
        if (!arg)
          return;
        // (In bf16, a conv whose weight has no pair layout in its own
        // form, an odd number of input channels or no whole panels of
        // output channels, takes bf16 rows and an im2col copy.)
        auto weightType = dyn_cast<RankedTensorType>(arg.getType());
        if (!weightType || !weightType.hasStaticShape() ||
            weightType.getRank() < 3)
          return;
        bool pairs = weightType.getDimSize(1) % 2 == 0;
        bool bf16 = precision == "bf16";
        if (prefersWinograd(conv) && (!bf16 || pairs))
          packWinogradWeight(kernel, callers->second, conv, arg);
        else if (prefersChannelsInnermost(conv) &&
                 (!bf16 ||
                  (pairs &&
                   weightType.getDimSize(0) % kMatmulWeightPanel == 0)))
          packConvWeight(kernel, callers->second, conv, arg);
        else if (bf16)
          packConvRows(kernel, callers->second, conv, arg);
      });
      kernel.walk([&](graph::MatMulOp matmul) {
        BlockArgument arg = kernelArg(matmul.getRhs());
        if (arg && prefersPanels(matmul))
          packMatmulWeight(kernel, callers->second, matmul, arg);
      });
    }
    // Constants only their packed copies replaced are weights no more.
    packer.eraseReplaced();
  }

  /// Stores `conv`'s weight `arg` as [C, K..., M], in panels of
  /// kMatmulWeightPanel channels if M is a multiple of it.
  void packConvWeight(func::FuncOp kernel, ArrayRef<func::CallOp> callers,
                      graph::ConvOp conv, BlockArgument arg) {
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t rank = type.getRank();
    Type elem = type.getElementType();
    // [M, C, K...] -> [C, K..., M] and back.
    SmallVector<int64_t> toPacked, fromPacked = {rank - 1};
    for (int64_t i = 1; i < rank; ++i)
      toPacked.push_back(i);
    toPacked.push_back(0);
    for (int64_t i = 0; i + 1 < rank; ++i)
      fromPacked.push_back(i);
    SmallVector<int64_t> shape;
    for (int64_t i : toPacked)
      shape.push_back(type.getDimSize(i));
    auto innermostType = RankedTensorType::get(shape, elem);
    auto back = [&](OpBuilder &b, Location loc, Value innermost) -> Value {
      return graph::TransposeOp::create(b, loc, type, innermost,
                                        b.getDenseI64ArrayAttr(fromPacked));
    };
    Value unpacked;
    const int64_t w = kMatmulWeightPanel;
    int64_t m = type.getDimSize(0), k = type.getNumElements() / m;
    int64_t channels = type.getDimSize(1);
    if (precision == "bf16" && m % w == 0 && channels % 2 == 0) {
      // [M, C, K...] = [M/w, w, C/2, 2, K...] <-> [M/w, C/2, K..., w, 2] =
      // [M/w, (C/2) K..., 2w], in bf16.
      SmallVector<int64_t> split = {m / w, w, channels / 2, 2};
      SmallVector<int64_t> toPairs = {0, 2};
      for (int64_t i = 2; i < rank; ++i) {
        split.push_back(type.getDimSize(i));
        toPairs.push_back(i + 2);
      }
      toPairs.append({1, 3});
      SmallVector<int64_t> fromPairs(toPairs.size()), pairShape;
      for (auto [i, dim] : llvm::enumerate(toPairs)) {
        fromPairs[dim] = i;
        pairShape.push_back(split[dim]);
      }
      Type bf16 = BFloat16Type::get(type.getContext());
      auto pairsType = RankedTensorType::get({m / w, k / 2, 2 * w}, bf16);
      unpacked = packer.packArgument(
          kernel, callers, arg, pairsType,
          [&](OpBuilder &b, Location loc, Value weight) {
            return relayoutWeight(b, loc, weight, pairsType, split, toPairs);
          },
          [&](OpBuilder &b, Location loc, Value pairs) -> Value {
            Value wide = graph::CastOp::create(
                b, loc, RankedTensorType::get(pairsType.getShape(), elem),
                pairs);
            Value pairsSplit = graph::ReshapeOp::create(
                b, loc, RankedTensorType::get(pairShape, elem), wide, Value());
            Value weightSplit = graph::TransposeOp::create(
                b, loc, RankedTensorType::get(split, elem), pairsSplit,
                b.getDenseI64ArrayAttr(fromPairs));
            return graph::ReshapeOp::create(b, loc, type, weightSplit, Value());
          });
      if (unpacked) {
        conv.getWeightMutable().assign(unpacked);
        kernel.setArgAttr(arg.getArgNumber(), kConvPairsAttrName,
                          UnitAttr::get(kernel.getContext()));
      }
      return;
    }
    if (m % w == 0 && m > w) {
      // [C * K..., M] = [C * K..., M/w, w] <-> [M/w, C * K..., w].
      auto splitType = RankedTensorType::get({k, m / w, w}, elem);
      auto packedType = RankedTensorType::get({m / w, k, w}, elem);
      unpacked = packer.packArgument(
          kernel, callers, arg, packedType,
          [&](OpBuilder &b, Location loc, Value weight) {
            return storeInPanels(b, loc, weight, packedType,
                                 /*transposed=*/true);
          },
          [&](OpBuilder &b, Location loc, Value packed) {
            Value split = graph::TransposeOp::create(
                b, loc, splitType, packed, b.getDenseI64ArrayAttr({1, 0, 2}));
            return back(b, loc,
                        graph::ReshapeOp::create(b, loc, innermostType, split,
                                                 Value()));
          });
    } else {
      unpacked = packer.packArgument(
          kernel, callers, arg, innermostType,
          [&](OpBuilder &b, Location loc, Value weight) -> Value {
            return relayoutWeight(b, loc, weight, innermostType,
                                  type.getShape(), toPacked);
          },
          back);
    }
    if (unpacked)
      conv.getWeightMutable().assign(unpacked);
  }

  /// Stores `conv`'s weight `arg` (`[M, C, K...]`, ungrouped), which its
  /// kernel reads through an im2col copy, as bf16 rows `[M, C K...]`, or
  /// with C K... odd (3 input channels) `[M, C K... + 1]`, each row ending
  /// in a zero, and marks the argument kConvPairsAttrName.
  void packConvRows(func::FuncOp kernel, ArrayRef<func::CallOp> callers,
                    graph::ConvOp conv, BlockArgument arg) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32() ||
        type.getRank() < 3 || conv.getGroup() != 1)
      return;
    int64_t m = type.getDimSize(0), k = type.getNumElements() / m;
    auto rowsType = RankedTensorType::get({m, k + k % 2},
                                          BFloat16Type::get(type.getContext()));
    Value unpacked = packer.packArgument(
        kernel, callers, arg, rowsType,
        [&](OpBuilder &b, Location loc, Value weight) {
          if (k % 2 != 0)
            return storePaddedRows(b, loc, weight, rowsType);
          return relayoutWeight(b, loc, weight, rowsType, {m, k}, {0, 1});
        },
        [&](OpBuilder &b, Location loc, Value rows) -> Value {
          auto f32Rows = RankedTensorType::get({m, k}, type.getElementType());
          Value wide = graph::CastOp::create(
              b, loc,
              RankedTensorType::get(rowsType.getShape(), type.getElementType()),
              rows);
          if (k % 2 != 0)
            wide = graph::SliceOp::create(
                b, loc, f32Rows, wide, b.getDenseI64ArrayAttr({0, 0}),
                b.getDenseI64ArrayAttr({m, k}), b.getDenseI64ArrayAttr({1, 1}));
          return graph::ReshapeOp::create(b, loc, type, wide, Value());
        });
    if (!unpacked)
      return;
    conv.getWeightMutable().assign(unpacked);
    kernel.setArgAttr(arg.getArgNumber(), kConvPairsAttrName,
                      UnitAttr::get(kernel.getContext()));
  }

  /// Stores `conv`'s 3x3 weight `arg` as its Winograd transform `[16, M,
  /// C]` and marks the argument kWinogradFilterAttrName.
  void packWinogradWeight(func::FuncOp kernel, ArrayRef<func::CallOp> callers,
                          graph::ConvOp conv, BlockArgument arg) {
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t m = type.getDimSize(0), c = type.getDimSize(1);
    Type elem = type.getElementType();
    // (bf16: the 16 matmuls run in pairs of input channels.)
    Type stored = precision == "bf16" && c % 2 == 0
                      ? Type(BFloat16Type::get(type.getContext()))
                      : elem;
    auto packedType = RankedTensorType::get({16, m, c}, stored);
    Value unpacked = packer.packArgument(
        kernel, callers, arg, packedType,
        [&](OpBuilder &b, Location loc, Value weight) {
          return storeWinogradFilter(b, loc, weight, packedType);
        },
        [&](OpBuilder &b, Location loc, Value packed) -> Value {
          if (stored != elem)
            packed = graph::CastOp::create(
                b, loc, RankedTensorType::get({16, m, c}, elem), packed);
          // [16, M, C] -> [4, 4, M, C] -> [M, C, 4, 4], then Gp U Gp^T.
          Value u = graph::ReshapeOp::create(
              b, loc, RankedTensorType::get({4, 4, m, c}, elem), packed,
              Value());
          u = graph::TransposeOp::create(
              b, loc, RankedTensorType::get({m, c, 4, 4}, elem), u,
              b.getDenseI64ArrayAttr({2, 3, 0, 1}));
          auto gpType = RankedTensorType::get({3, 4}, elem);
          auto gptType = RankedTensorType::get({4, 3}, elem);
          SmallVector<float> gp, gpt;
          for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 4; ++j)
              gp.push_back(kWinogradGp[i][j]);
          for (int64_t j = 0; j < 4; ++j)
            for (int64_t i = 0; i < 3; ++i)
              gpt.push_back(kWinogradGp[i][j]);
          Value left = graph::ConstantOp::create(
              b, loc, DenseElementsAttr::get(gpType, ArrayRef<float>(gp)));
          Value right = graph::ConstantOp::create(
              b, loc, DenseElementsAttr::get(gptType, ArrayRef<float>(gpt)));
          Value rows = graph::MatMulOp::create(
              b, loc, RankedTensorType::get({m, c, 3, 4}, elem), left, u);
          return graph::MatMulOp::create(b, loc, type, rows, right);
        });
    if (!unpacked)
      return;
    conv.getWeightMutable().assign(unpacked);
    kernel.setArgAttr(arg.getArgNumber(), kWinogradFilterAttrName,
                      UnitAttr::get(kernel.getContext()));
  }

  /// Stores `matmul`'s weight `arg` ([K, N]) as [N / c, K, c] for c =
  /// kMatmulWeightPanel (at any size: a copy of rows of c columns).
  void packMatmulWeight(func::FuncOp kernel, ArrayRef<func::CallOp> callers,
                        graph::MatMulOp matmul, BlockArgument arg) {
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t k = type.getDimSize(0), n = type.getDimSize(1);
    const int64_t c = kMatmulWeightPanel;
    Type elem = type.getElementType();
    // [K, N] = [K, N/c, c] <-> [N/c, K, c].
    auto splitType = RankedTensorType::get({k, n / c, c}, elem);
    auto panelsType = RankedTensorType::get({n / c, k, c}, elem);
    auto fromPanels = [&](OpBuilder &b, Location loc, Value panels) -> Value {
      Value split = graph::TransposeOp::create(
          b, loc, splitType, panels, b.getDenseI64ArrayAttr({1, 0, 2}));
      return graph::ReshapeOp::create(b, loc, type, split, Value());
    };
    Value unpacked;
    if (precision == "bf16" && k % 2 == 0) {
      // [N/c, K, c] = [N/c, K/2, 2, c] <-> [N/c, K/2, c, 2] = [N/c, K/2,
      // 2c], in bf16.
      Type bf16 = BFloat16Type::get(type.getContext());
      auto pairsType = RankedTensorType::get({n / c, k / 2, 2 * c}, bf16);
      unpacked = packer.packArgument(
          kernel, callers, arg, pairsType,
          [&](OpBuilder &b, Location loc, Value weight) {
            return storeInPairPanels(b, loc, weight, pairsType);
          },
          [&](OpBuilder &b, Location loc, Value pairs) -> Value {
            Value split = graph::ReshapeOp::create(
                b, loc, RankedTensorType::get({n / c, k / 2, c, 2}, bf16),
                pairs, Value());
            Value rows = graph::TransposeOp::create(
                b, loc, RankedTensorType::get({n / c, k / 2, 2, c}, bf16),
                split, b.getDenseI64ArrayAttr({0, 1, 3, 2}));
            Value panels = graph::ReshapeOp::create(
                b, loc, RankedTensorType::get({n / c, k, c}, bf16), rows,
                Value());
            return fromPanels(
                b, loc, graph::CastOp::create(b, loc, panelsType, panels));
          });
    } else {
      unpacked = packer.packArgument(
          kernel, callers, arg, panelsType,
          [&](OpBuilder &b, Location loc, Value weight) {
            return storeInPanels(b, loc, weight, panelsType,
                                 /*transposed=*/false);
          },
          fromPanels);
    }
    if (unpacked)
      matmul.getRhsMutable().assign(unpacked);
  }

  KernelWeightPacker packer;
};
} // namespace
