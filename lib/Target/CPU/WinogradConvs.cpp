//===- WinogradConvs.cpp - 3x3 convolutions as Winograd F(2x2, 3x3) -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites each 3x3 stride-1 NCHW convolution whose weight
// ms-cpu-pack-weights stored as its Winograd transform (`U = G g G^T`,
// `[16, M, C]`, the kernel argument marked `ms.winograd_filter`) into
// Winograd's F(2x2, 3x3) algorithm (Lavin and Gray, 2015): each 2x2 block
// of outputs (a tile) is `A^T [U . (B^T d B)] A` of the 4x4 input patch d
// under it, so the 36 multiplications of a tile and channel pair become 16.
//
// One scf.forall over images and blocks of tile rows (chooseBlockRows: the
// block's two buffers stay in L2); each iteration:
// - Input transform: `V[a * 4 + b, c, t] = (B^T d B)[a][b]`, vectors of
//   tiles along each tile row: the patches' columns are the even and odd
//   elements of two input reads (vector.deinterleave), the transform adds
//   and subtracts.
// - The 16 matmuls `M[x, m, t] = sum_c U[x, m, c] * V[x, c, t]`: one
//   linalg.generic, which ms-cpu-contraction-kernels turns into its
//   register-tiled kernel (output channels as rows, tiles as columns).
// - Output transform: `out[n, m, 2 ty + i, 2 tx + j] += (A^T M A)[i][j]`;
//   the two output columns of each tile are interleaved back
//   (vector.interleave).
//
// A row's last vector of tiles is partial (masked at the tensors' ends;
// inside a block, the next row overwrites what it spilled).
//
// A filter transform too large to stay in L2 from one block to the next
// (kBlockedFilterBytes) is read once instead: the input transform runs as
// an scf.forall over input channels, the 16 matmuls on all tiles of all
// images, the output transform as an scf.forall over output channels.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "PairContraction.h"
#include "WindowIndexing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::ms {
#define GEN_PASS_DEF_CPUWINOGRADCONVSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Whether `op` is `out[n, 0, m, oh, ow] += in[n, c, oh + kh, ow + kw] *
/// w[m, c, kh, kw]` over loops (n, g, m, oh, ow, c, kh, kw) (the input and
/// the weight may have the unit group dim g after their first), a 3x3 f32
/// convolution of static shapes without groups, stride or dilation whose
/// output has even rows and columns.
static bool isWinogradConv(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || op.getNumLoops() != 8 ||
      op.getNumParallelLoops() != 5)
    return false;
  for (Type type : op->getOperandTypes())
    if (!cast<ShapedType>(type).getElementType().isF32())
      return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges) || ranges[1] != 1 ||
      ranges[3] % 2 != 0 || ranges[4] % 2 != 0 || ranges[6] != 3 ||
      ranges[7] != 3)
    return false;
  if (!isMultiplyAccumulate(op))
    return false;
  MLIRContext *ctx = op.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // (With the unit group dim in the input and the weight, or without.)
  auto isMap = [&](AffineMap map, ArrayRef<AffineExpr> exprs) {
    SmallVector<AffineExpr> grouped = {exprs[0], d(1)};
    llvm::append_range(grouped, exprs.drop_front());
    return map == AffineMap::get(8, 0, exprs, ctx) ||
           map == AffineMap::get(8, 0, grouped, ctx);
  };
  return isMap(maps[0], {d(0), d(5), d(3) + d(6), d(4) + d(7)}) &&
         (isMap(maps[1], {d(2), d(5), d(6), d(7)}) ||
          maps[1] ==
              AffineMap::get(8, 0, {d(1), d(2), d(5), d(6), d(7)}, ctx)) &&
         maps[2] == AffineMap::getMultiDimIdentityMap(8, ctx).getMajorSubMap(5);
}

/// The tile rows of one block (a divisor of `tileRows`): each block's
/// input transform, matmuls and output transform run in one iteration, so
/// that its V and M (`[16, C or M, columns]`, columns its tiles rounded up
/// to whole 32-wide register blocks) stay in L2, at most 256 KiB each; of
/// those, the one with the fewest matmul columns per thread of two (ties:
/// the larger block).
static int64_t chooseBlockRows(int64_t images, int64_t tileRows,
                               int64_t tileColumns, int64_t channels) {
  int64_t best = 1, bestCost = std::numeric_limits<int64_t>::max();
  for (int64_t rows = 1; rows <= tileRows; ++rows) {
    int64_t columns = llvm::alignTo(rows * tileColumns, 32);
    if (tileRows % rows != 0 || 16 * channels * columns * 4 > 256 * 1024)
      continue;
    int64_t blocks = images * (tileRows / rows);
    int64_t cost = (blocks + 1) / 2 * columns;
    if (cost <= bestCost) {
      best = rows;
      bestCost = cost;
    }
  }
  return best;
}

/// A filter transform over this many bytes does not stay in L2 from one
/// block of tiles to the next: such a conv runs each phase over all its
/// tiles at once (the filter read once; ResNet's 14x14 convs, 4 MiB of
/// filter, took 1.11 ms in blocks of 7 tiles against 0.49 direct).
static constexpr int64_t kBlockedFilterBytes = 1024 * 1024;

/// Rewrites conv `op` (isWinogradConv) with the transformed filter `u`
/// (`[16, M, C]`) into Winograd's algorithm, `lanes` tiles per vector: one
/// scf.forall over images and blocks of tile rows, each iteration the
/// block's input transform, 16 matmuls and output transform; or, with a
/// filter over kBlockedFilterBytes, the input transform as an scf.forall
/// over input channels, the 16 matmuls on all tiles, the output transform
/// as an scf.forall over output channels.
static void rewriteConv(RewriterBase &rewriter, linalg::GenericOp op, Value u,
                        int64_t lanes) {
  Location loc = op.getLoc();
  MLIRContext *ctx = op.getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t n = ranges[0], m = ranges[2], c = ranges[5];
  int64_t tileRows = ranges[3] / 2, tileColumns = ranges[4] / 2;
  int64_t height = ranges[3], width = ranges[4];
  // A bf16 filter: V in bf16 pairs of input channels `[16, C / 2, 2
  // columns]`, the matmuls in pair form (PairContraction.h).
  bool pairs = cast<RankedTensorType>(u.getType()).getElementType().isBF16();
  bool whole = 16 * m * c * (pairs ? 2 : 4) > kBlockedFilterBytes;
  int64_t blockRows =
      whole ? tileRows
            : chooseBlockRows(n, tileRows, tileColumns, std::max(c, m));
  // The tiles of one block (whole: of all images), whole register blocks.
  int64_t columns =
      llvm::alignTo((whole ? n : 1) * blockRows * tileColumns, 32);
  int64_t vRows = pairs ? c / 2 : c, vColumns = pairs ? 2 * columns : columns;
  Type vType =
      pairs ? Type(rewriter.getBF16Type()) : Type(rewriter.getF32Type());
  Value input = op.getDpsInputOperand(0)->get();
  // The input's unit group dim, if it has one, is its second.
  bool grouped = cast<RankedTensorType>(input.getType()).getRank() == 5;
  Type f32 = rewriter.getF32Type();
  auto vecType = VectorType::get({lanes}, f32);
  auto wideType = VectorType::get({2 * lanes}, f32);
  rewriter.setInsertionPoint(op);
  auto index = [&](OpBuilder &b, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto sub = [&](OpBuilder &b, Value x, Value y) -> Value {
    return arith::SubFOp::create(b, loc, x, y);
  };
  auto add = [&](OpBuilder &b, Value x, Value y) -> Value {
    return arith::AddFOp::create(b, loc, x, y);
  };
  auto mul = [&](OpBuilder &b, Value x, int64_t y) -> Value {
    return arith::MulIOp::create(b, loc, x, index(b, y));
  };
  auto addi = [&](OpBuilder &b, Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
  // Loops over `extents` (each from 0, the last by `lanes`), `value`
  // carried; `body` gets the ivs.
  auto forEach =
      [&](OpBuilder &b, ArrayRef<int64_t> extents, Value value,
          function_ref<Value(OpBuilder &, ArrayRef<Value>, Value)> body)
      -> Value {
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Value> ivs;
    SmallVector<scf::ForOp> loops;
    for (auto [i, extent] : llvm::enumerate(extents)) {
      auto loop = scf::ForOp::create(
          b, loc, index(b, 0), index(b, extent),
          index(b, i + 1 == extents.size() ? lanes : 1),
          ValueRange{loops.empty() ? value
                                   : loops.back().getRegionIterArgs()[0]});
      if (!loops.empty())
        scf::YieldOp::create(b, loc, loop.getResults());
      b.setInsertionPointToStart(loop.getBody());
      ivs.push_back(loop.getInductionVar());
      loops.push_back(loop);
    }
    scf::YieldOp::create(b, loc,
                         body(b, ivs, loops.back().getRegionIterArgs()[0]));
    return loops.front().getResult(0);
  };

  // (B^T d B)[a][e] of `lanes` tiles from tile (row, tx) of `image` in
  // input channel `channel`, at a * 4 + e.
  auto transformPatches = [&](OpBuilder &b, Value image, Value channel,
                              Value row, Value tx) {
    Value y0 = mul(b, row, 2);
    Value x0 = mul(b, tx, 2);
    Value columnsAt[2] = {x0, addi(b, x0, index(b, 2))};
    // d[i][j]: patch element (i, j) of `lanes` tiles: the even and odd
    // elements of the patch row's input from its first column and from two
    // on.
    Value d[4][4];
    for (int64_t i = 0; i < 4; ++i) {
      Value y = addi(b, y0, index(b, i));
      for (auto [j, x] : llvm::enumerate(columnsAt)) {
        SmallVector<Value> at = {image, channel, y, x};
        if (grouped)
          at.insert(at.begin() + 1, index(b, 0));
        Value wide = vector::TransferReadOp::create(
            b, loc, wideType, input, at, zero, ArrayRef<bool>{false});
        auto halves = vector::DeinterleaveOp::create(b, loc, wide);
        d[i][2 * j] = halves.getRes1();
        d[i][2 * j + 1] = halves.getRes2();
      }
    }
    // B^T x for a column x: (x0 - x2, x1 + x2, x2 - x1, x1 - x3).
    auto transform = [&](Value x0, Value x1, Value x2, Value x3) {
      return std::array<Value, 4>{sub(b, x0, x2), add(b, x1, x2),
                                  sub(b, x2, x1), sub(b, x1, x3)};
    };
    Value t[4][4];
    for (int64_t j = 0; j < 4; ++j) {
      std::array<Value, 4> col = transform(d[0][j], d[1][j], d[2][j], d[3][j]);
      for (int64_t a = 0; a < 4; ++a)
        t[a][j] = col[a];
    }
    std::array<Value, 16> patches;
    for (int64_t a = 0; a < 4; ++a) {
      std::array<Value, 4> r = transform(t[a][0], t[a][1], t[a][2], t[a][3]);
      for (int64_t e = 0; e < 4; ++e)
        patches[a * 4 + e] = r[e];
    }
    return patches;
  };
  // Input transform of `lanes` tiles from tile (row, tx) of `image` in
  // input channel `channel` (in pairs: pair `channel`, input channels
  // 2 channel and 2 channel + 1): V[vAt(x, column)] = (B^T d B)[a][e] for x
  // = a * 4 + e (in pairs: the two channels' values interleaved, rounded to
  // bf16, at column 2 column). A row's last vector spills into the next
  // row's first tiles, which are written after it (the last row's: into the
  // padding columns, or masked).
  auto inputTransform =
      [&](OpBuilder &b, Value v, Value image, Value channel, Value row,
          Value tx, Value column,
          function_ref<SmallVector<Value>(int64_t, Value)> vAt) -> Value {
    if (!pairs) {
      std::array<Value, 16> patches =
          transformPatches(b, image, channel, row, tx);
      for (int64_t x = 0; x < 16; ++x)
        v = vector::TransferWriteOp::create(
                b, loc, patches[x], v, vAt(x, column), ArrayRef<bool>{false})
                .getResult();
      return v;
    }
    Value first = mul(b, channel, 2);
    std::array<Value, 16> even = transformPatches(b, image, first, row, tx);
    std::array<Value, 16> odd =
        transformPatches(b, image, addi(b, first, index(b, 1)), row, tx);
    auto pairType = VectorType::get({2 * lanes}, b.getBF16Type());
    for (int64_t x = 0; x < 16; ++x) {
      Value interleaved = vector::InterleaveOp::create(b, loc, even[x], odd[x]);
      Value rounded = arith::TruncFOp::create(b, loc, pairType, interleaved);
      v = vector::TransferWriteOp::create(b, loc, rounded, v,
                                          vAt(x, mul(b, column, 2)),
                                          ArrayRef<bool>{false})
              .getResult();
    }
    return v;
  };

  // Output transform of `lanes` tiles from `column` of M (`mAt`) into
  // output rows 2 row, 2 row + 1 from column 2 tx (`outAt`) of `slice`:
  // added to the fill value `filled` (a broadcast) or to the elements.
  auto outputTransform =
      [&](OpBuilder &b, Value slice, Value products, Value row, Value tx,
          Value column, Value filled,
          function_ref<SmallVector<Value>(int64_t, Value)> mAt,
          function_ref<SmallVector<Value>(Value, Value)> outAt) -> Value {
    Value x0 = mul(b, tx, 2);
    Value p[4][4];
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t e = 0; e < 4; ++e)
        p[a][e] = vector::TransferReadOp::create(b, loc, vecType, products,
                                                 mAt(a * 4 + e, column), zero,
                                                 ArrayRef<bool>{false});
    // A^T x for a column x: (x0 + x1 + x2, x1 - x2 - x3).
    auto transform = [&](Value x0, Value x1, Value x2, Value x3) {
      return std::array<Value, 2>{add(b, add(b, x0, x1), x2),
                                  sub(b, sub(b, x1, x2), x3)};
    };
    Value s[2][4];
    for (int64_t e = 0; e < 4; ++e) {
      std::array<Value, 2> col = transform(p[0][e], p[1][e], p[2][e], p[3][e]);
      s[0][e] = col[0];
      s[1][e] = col[1];
    }
    for (int64_t i = 0; i < 2; ++i) {
      std::array<Value, 2> r = transform(s[i][0], s[i][1], s[i][2], s[i][3]);
      Value out = vector::InterleaveOp::create(b, loc, r[0], r[1]);
      SmallVector<Value> at = outAt(addi(b, mul(b, row, 2), index(b, i)), x0);
      Value acc =
          filled ? filled
                 : vector::TransferReadOp::create(b, loc, wideType, slice, at,
                                                  zero, ArrayRef<bool>{false})
                       .getResult();
      slice = vector::TransferWriteOp::create(b, loc, add(b, acc, out), slice,
                                              at, ArrayRef<bool>{false})
                  .getResult();
    }
    return slice;
  };

  // The 16 matmuls: M[x, m, t] = sum_c U[x, m, c] * V[x, c, t] (in pairs:
  // in pair form, sum_c2 sum_p U[x, m, c2, p] * V[x, c2, t, p]).
  auto matmuls = [&](OpBuilder &b, Value v) -> Value {
    auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
    Value products =
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{16, m, columns}, f32);
    products = linalg::FillOp::create(b, loc, zero, products).getResult(0);
    if (pairs) {
      using utils::IteratorType;
      Value uPairs = splitIntoPairs(b, loc, u, 2);
      Value vPairs = splitIntoPairs(b, loc, v, 2);
      return createPairContraction(
                 b, loc, uPairs, vPairs, products,
                 ArrayRef<AffineMap>{
                     AffineMap::get(5, 0, {d(0), d(1), d(3), d(4)}, ctx),
                     AffineMap::get(5, 0, {d(0), d(3), d(2), d(4)}, ctx),
                     AffineMap::get(5, 0, {d(0), d(1), d(2)}, ctx)},
                 ArrayRef<IteratorType>{
                     IteratorType::parallel, IteratorType::parallel,
                     IteratorType::parallel, IteratorType::reduction,
                     IteratorType::reduction})
          .getResult(0);
    }
    return linalg::GenericOp::create(
               b, loc, TypeRange{products.getType()}, ValueRange{u, v},
               ValueRange{products},
               ArrayRef<AffineMap>{
                   AffineMap::get(4, 0, {d(0), d(1), d(3)}, ctx),
                   AffineMap::get(4, 0, {d(0), d(3), d(2)}, ctx),
                   AffineMap::get(4, 0, {d(0), d(1), d(2)}, ctx)},
               ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                             utils::IteratorType::parallel,
                                             utils::IteratorType::parallel,
                                             utils::IteratorType::reduction},
               [](OpBuilder &b, Location l, ValueRange args) {
                 Value product = arith::MulFOp::create(b, l, args[0], args[1]);
                 linalg::YieldOp::create(
                     b, l,
                     Value(arith::AddFOp::create(b, l, args[2], product)));
               })
        .getResult(0);
  };

  // The conv's initial value: a fill's value (its elements not read), or
  // the elements.
  Value init = op.getDpsInitOperand(0)->get();
  Value fillValue;
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    fillValue = fill.getInputs()[0];
    init = fill.getOutputs()[0];
  }
  OpBuilder &b = rewriter;
  auto filledIn = [&](OpBuilder &b) -> Value {
    return fillValue ? vector::BroadcastOp::create(b, loc, wideType, fillValue)
                     : Value();
  };
  // Tile (row, tx) of `image`: its column of V and M.
  auto columnOf = [&](OpBuilder &b, Value image, Value row, Value tx) {
    Value rows = image ? addi(b, mul(b, image, tileRows), row) : row;
    return addi(b, mul(b, rows, tileColumns), tx);
  };
  auto one = [&](OpBuilder &b) { return b.getIndexAttr(1); };
  auto attr = [&](OpBuilder &b, int64_t v) -> OpFoldResult {
    return b.getIndexAttr(v);
  };

  if (whole) {
    // Input transform per input channel (pair): V[:, channel, :].
    Value v = tensor::EmptyOp::create(
        b, loc, ArrayRef<int64_t>{16, vRows, vColumns}, vType);
    auto inputs = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{attr(b, 0)},
        ArrayRef<OpFoldResult>{attr(b, vRows)}, ArrayRef<OpFoldResult>{one(b)},
        ValueRange{v}, std::nullopt);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(inputs.getBody());
      Value channel = inputs.getInductionVars()[0];
      SmallVector<OpFoldResult> offsets = {attr(b, 0), channel, attr(b, 0)};
      SmallVector<OpFoldResult> sizes = {attr(b, 16), one(b),
                                         attr(b, vColumns)};
      SmallVector<OpFoldResult> strides(3, one(b));
      Value slice = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({16, 1, vColumns}, vType),
          inputs.getRegionOutArgs()[0], offsets, sizes, strides);
      Value c0 = index(b, 0);
      slice = forEach(b, {n, tileRows, tileColumns}, slice,
                      [&](OpBuilder &b, ArrayRef<Value> ivs, Value slice) {
                        return inputTransform(
                            b, slice, ivs[0], channel, ivs[1], ivs[2],
                            columnOf(b, ivs[0], ivs[1], ivs[2]),
                            [&](int64_t x, Value column) -> SmallVector<Value> {
                              return {index(b, x), c0, column};
                            });
                      });
      b.setInsertionPointToEnd(inputs.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(
          b, loc, slice, inputs.getRegionOutArgs()[0], offsets, sizes, strides);
    }
    Value products = matmuls(b, inputs.getResult(0));
    // Output transform per output channel: out[:, 0, channel].
    auto outputs = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{attr(b, 0)},
        ArrayRef<OpFoldResult>{attr(b, m)}, ArrayRef<OpFoldResult>{one(b)},
        ValueRange{init}, std::nullopt);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(outputs.getBody());
      Value channel = outputs.getInductionVars()[0];
      SmallVector<OpFoldResult> offsets = {attr(b, 0), attr(b, 0), channel,
                                           attr(b, 0), attr(b, 0)};
      SmallVector<OpFoldResult> sizes = {attr(b, n), one(b), one(b),
                                         attr(b, height), attr(b, width)};
      SmallVector<OpFoldResult> strides(5, one(b));
      Value slice = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({n, height, width}, f32),
          outputs.getRegionOutArgs()[0], offsets, sizes, strides);
      Value filled = filledIn(b);
      slice = forEach(b, {n, tileRows, tileColumns}, slice,
                      [&](OpBuilder &b, ArrayRef<Value> ivs, Value slice) {
                        Value image = ivs[0];
                        return outputTransform(
                            b, slice, products, ivs[1], ivs[2],
                            columnOf(b, image, ivs[1], ivs[2]), filled,
                            [&](int64_t x, Value column) -> SmallVector<Value> {
                              return {index(b, x), channel, column};
                            },
                            [&](Value y, Value x) -> SmallVector<Value> {
                              return {image, y, x};
                            });
                      });
      b.setInsertionPointToEnd(outputs.getTerminator().getBody());
      tensor::ParallelInsertSliceOp::create(b, loc, slice,
                                            outputs.getRegionOutArgs()[0],
                                            offsets, sizes, strides);
    }
    rewriter.replaceOp(op, outputs.getResult(0));
    return;
  }

  // Blocked: one forall over images and blocks of tile rows.
  SmallVector<OpFoldResult> lbs(2, attr(b, 0)), steps(2, one(b));
  SmallVector<OpFoldResult> ubs = {attr(b, n), attr(b, tileRows / blockRows)};
  auto forall = scf::ForallOp::create(b, loc, lbs, ubs, steps, ValueRange{init},
                                      std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value image = forall.getInductionVars()[0];
  Value firstRow = mul(b, forall.getInductionVars()[1], blockRows);

  // Input transform: V[a * 4 + e, c, r * tile columns + tx] = (B^T d B)[a][e]
  // of tile (first row + r, tx).
  Value v = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{16, vRows, vColumns}, vType);
  v = forEach(b, {vRows, blockRows, tileColumns}, v,
              [&](OpBuilder &b, ArrayRef<Value> ivs, Value v) {
                Value channel = ivs[0];
                return inputTransform(
                    b, v, image, channel, addi(b, firstRow, ivs[1]), ivs[2],
                    columnOf(b, Value(), ivs[1], ivs[2]),
                    [&](int64_t x, Value column) -> SmallVector<Value> {
                      return {index(b, x), channel, column};
                    });
              });
  Value products = matmuls(b, v);

  // Output transform: out[image, 0, m, 2 (first row + r) + i, 2 tx + j] +=
  // (A^T M A)[i][j].
  Value dest = forall.getRegionOutArgs()[0];
  SmallVector<OpFoldResult> offsets = {image, attr(b, 0), attr(b, 0),
                                       mul(b, firstRow, 2), attr(b, 0)};
  SmallVector<OpFoldResult> sizes = {one(b), one(b), attr(b, m),
                                     attr(b, 2 * blockRows), attr(b, width)};
  SmallVector<OpFoldResult> strides(5, one(b));
  auto sliceType = RankedTensorType::get({m, 2 * blockRows, width}, f32);
  Value slice = tensor::ExtractSliceOp::create(b, loc, sliceType, dest, offsets,
                                               sizes, strides);
  Value filled = filledIn(b);
  slice = forEach(b, {m, blockRows, tileColumns}, slice,
                  [&](OpBuilder &b, ArrayRef<Value> ivs, Value slice) {
                    Value channel = ivs[0];
                    return outputTransform(
                        b, slice, products, ivs[1], ivs[2],
                        columnOf(b, Value(), ivs[1], ivs[2]), filled,
                        [&](int64_t x, Value column) -> SmallVector<Value> {
                          return {index(b, x), channel, column};
                        },
                        [&](Value y, Value x) -> SmallVector<Value> {
                          return {channel, y, x};
                        });
                  });
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, slice, dest, offsets, sizes,
                                        strides);
  rewriter.replaceOp(op, forall.getResult(0));
}

namespace {
struct CPUWinogradConvsPass final
    : ms::impl::CPUWinogradConvsPassBase<CPUWinogradConvsPass> {
  using CPUWinogradConvsPassBase::CPUWinogradConvsPassBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (kernel.isExternal())
      return;
    SmallVector<std::pair<linalg::GenericOp, BlockArgument>> convs;
    kernel.walk([&](linalg::GenericOp op) {
      if (!isWinogradConv(op))
        return;
      BlockArgument u = findMarkedArgument(
          kernel, op.getDpsInputOperand(1)->get(), kWinogradFilterAttrName);
      auto type = u ? dyn_cast<RankedTensorType>(u.getType()) : nullptr;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (type &&
          type.getShape() == ArrayRef<int64_t>{16, ranges[2], ranges[5]})
        convs.emplace_back(op, u);
    });
    IRRewriter rewriter(&getContext());
    for (auto [op, u] : convs)
      rewriteConv(rewriter, op, u, lanes);
  }
};
} // namespace
