//===- Attention.cpp - msgraph.attention as a tiled online softmax --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// msgraph.attention lowers to one loop nest in the style of flash attention:
// an scf.forall over (batch, query head, query tile) whose body walks the
// keys tile by tile with an scf.for, carrying each query row's running
// maximum `m`, normalizer `l` and unnormalized output `acc`:
//
//   s    = (q k^T) * scale, softcapped, + mask, causal positions -> -inf
//   m'   = max(m, rowmax(s))
//   p    = exp(s - m')                  (0 where m' = -inf: nothing seen)
//   c    = exp(m - m')                  (1 where m' = -inf)
//   l'   = l * c + rowsum(p)
//   acc' = acc * c + p v
//
// and writes `acc / l` (0 for a row that saw no key). Only a
// query-tile x key-tile block of scores exists at a time; f16/bf16 inputs
// accumulate in f32. Causal attention walks only the key tiles that some
// row of the query tile sees.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::detail;
namespace graph = mlir::ms::graph;

namespace {

/// A tile size for an extent `n`: its largest divisor up to `cap`, or `n`
/// itself when that divisor is below `small` and `n` is at most `whole`
/// (a prime length is better done in one tile than one row at a time).
int64_t tileFor(int64_t n, int64_t cap, int64_t small, int64_t whole) {
  int64_t best = 1;
  for (int64_t t = std::min(n, cap); t >= 1; --t)
    if (n % t == 0) {
      best = t;
      break;
    }
  return best < small && n <= whole ? n : best;
}

struct AttentionToLinalg final : OpConversionPattern<graph::AttentionOp> {
  AttentionToLinalg(const TypeConverter &converter, MLIRContext *ctx,
                    bool tensorCoreLayout)
      : OpConversionPattern(converter, ctx),
        tensorCoreLayout(tensorCoreLayout) {}

  /// Whether half attention keeps K as given and transposes V (both
  /// products' terms innermost) rather than transposing K.
  bool tensorCoreLayout;

  LogicalResult
  matchAndRewrite(graph::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value query = adaptor.getQuery(), key = adaptor.getKey(),
          value = adaptor.getValue(), mask = adaptor.getMask();
    ArrayRef<int64_t> qShape = shapeOf(query), kShape = shapeOf(key),
                      vShape = shapeOf(value);
    int64_t batch = qShape[0], heads = qShape[1], seq = qShape[2],
            headSize = qShape[3], kvHeads = kShape[1], kvSeq = kShape[2],
            valueSize = vShape[3];
    Type elem = elementTypeOf(query);
    Type acc = elem.isF64() ? elem : rewriter.getF32Type();
    int64_t group = heads / kvHeads;
    int64_t qTile = tileFor(seq, 32, 4, 256);
    int64_t kTile = tileFor(kvSeq, 128, 16, 1024);
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(double(headSize));
    double softcap = op.getSoftcap().convertToDouble();
    bool causal = op.getIsCausal();
    int64_t causalOffset = op.getCausalOffset();
    SmallVector<int64_t> maskShape =
        mask ? llvm::to_vector(shapeOf(mask)) : SmallVector<int64_t>();

    auto idx = [&](OpBuilder &b, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    auto cst = [&](OpBuilder &b, double v) {
      return scalarConstant(b, loc, acc, v);
    };
    auto ext = [&](OpBuilder &b, Location l, Value v) -> Value {
      return v.getType() == acc ? v : Value(arith::ExtFOp::create(b, l, acc, v));
    };
    auto map = [&](unsigned dims, ArrayRef<int64_t> results) {
      SmallVector<AffineExpr> exprs;
      for (int64_t r : results)
        exprs.push_back(r < 0 ? getAffineConstantExpr(0, ctx)
                              : getAffineDimExpr(r, ctx));
      return AffineMap::get(dims, 0, exprs, ctx);
    };
    auto generic = [&](OpBuilder &b, ValueRange ins, Value init,
                       ArrayRef<AffineMap> maps, unsigned parallel,
                       unsigned reduction, auto body) -> Value {
      return linalg::GenericOp::create(
                 b, loc, TypeRange{init.getType()}, ins, ValueRange{init},
                 maps, iterators(parallel, reduction),
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   linalg::YieldOp::create(nb, l, body(nb, l, args));
                 })
          .getResult(0);
    };
    auto slice2d = [&](OpBuilder &b, Value source, ArrayRef<Value> offsets,
                       int64_t rows, int64_t cols) -> Value {
      SmallVector<OpFoldResult> offs(offsets.begin(), offsets.end());
      SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                         b.getIndexAttr(rows),
                                         b.getIndexAttr(cols)};
      SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
      auto type = RankedTensorType::get({rows, cols}, elementTypeOf(source));
      return tensor::ExtractSliceOp::create(b, loc, type, source, offs, sizes,
                                            strides);
    };

    // One of K and V transposed once (to B x Hkv x D x T). K, by default:
    // the score product then walks a key row contiguously in its innermost
    // loop, as a matmul does. V, for tensor cores: each product then sums
    // over its operands' innermost dimension (the head's for the scores,
    // the keys' for p v), where a lane reads two adjacent terms at once.
    bool termsInnermost =
        tensorCoreLayout && isa<Float16Type, BFloat16Type>(elem);
    auto transposed = [&](Value t, int64_t rows) {
      return generic(
          rewriter, {t},
          emptyTensor(rewriter, loc, {batch, kvHeads, rows, kvSeq}, elem),
          {map(4, {0, 1, 3, 2}), map(4, {0, 1, 2, 3})}, 4, 0,
          [](OpBuilder &, Location, ValueRange a) -> Value { return a[0]; });
    };
    Value keyT = termsInnermost ? Value() : transposed(key, headSize);
    Value valueT = termsInnermost ? transposed(value, valueSize) : Value();
    // The products' loop dimensions (0 rows, 1 columns, 2 terms) that
    // index their rhs (K's or V's slice): terms innermost, or columns.
    SmallVector<int64_t> rhsDims = termsInnermost ? SmallVector<int64_t>{1, 2}
                                                  : SmallVector<int64_t>{2, 1};
    Value init = emptyTensor(rewriter, loc, {batch, heads, seq, valueSize},
                             elem);
    SmallVector<OpFoldResult> bounds = {rewriter.getIndexAttr(batch),
                                        rewriter.getIndexAttr(heads),
                                        rewriter.getIndexAttr(seq / qTile)};
    auto forall = scf::ForallOp::create(rewriter, loc, bounds,
                                        ValueRange{init}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    OpBuilder &b = rewriter;
    Value bi = forall.getInductionVar(0), hi = forall.getInductionVar(1);
    Value q0 = arith::MulIOp::create(b, loc, forall.getInductionVar(2),
                                     idx(b, qTile));
    Value kvHead = arith::DivUIOp::create(b, loc, hi, idx(b, group));
    Value zero = idx(b, 0);
    Value qSlice = slice2d(b, query, {bi, hi, q0, zero}, qTile, headSize);

    Value negInf = cst(b, -INFINITY);
    Value m0 = filledTensor(b, loc, {qTile}, acc, negInf);
    Value l0 = filledTensor(b, loc, {qTile}, acc, cst(b, 0));
    Value acc0 = filledTensor(b, loc, {qTile, valueSize}, acc, cst(b, 0));

    // Causal attention skips the key tiles wholly past the query tile's
    // last row (where j > i + causal_offset for every row and column): its
    // key loop stops after the tile of key q0 + qTile - 1 + causal_offset.
    int64_t keyTiles = kvSeq / kTile;
    Value keyEnd = idx(b, keyTiles);
    if (causal && llvm::divideCeil(qTile + causalOffset, kTile) < keyTiles) {
      Value last = arith::AddIOp::create(
          b, loc, q0, idx(b, qTile + causalOffset + kTile - 1));
      keyEnd = arith::MinUIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, last, idx(b, kTile)), keyEnd);
    }
    auto loop = scf::ForOp::create(
        b, loc, zero, keyEnd, idx(b, 1), ValueRange{m0, l0, acc0},
        [&](OpBuilder &b, Location, Value kj, ValueRange carried) {
          Value m = carried[0], l = carried[1], accIn = carried[2];
          Value k0 = arith::MulIOp::create(b, loc, kj, idx(b, kTile));
          Value kSlice =
              termsInnermost
                  ? slice2d(b, key, {bi, kvHead, k0, zero}, kTile, headSize)
                  : slice2d(b, keyT, {bi, kvHead, zero, k0}, headSize, kTile);
          Value vSlice =
              termsInnermost
                  ? slice2d(b, valueT, {bi, kvHead, zero, k0}, valueSize, kTile)
                  : slice2d(b, value, {bi, kvHead, k0, zero}, kTile, valueSize);
          // s[i, j] = sum_d q[i, d] kT[d, j], summed into a tile filled
          // here with -0.0 (the sum's identity): filled once before the
          // loop, or merged by CSE with acc's zeros there, the tile would
          // be a buffer copied into a second one at every step.
          Value scoresInit =
              filledTensor(b, loc, {qTile, kTile}, acc, cst(b, -0.0));
          Value dots = generic(
              b, {qSlice, kSlice}, scoresInit,
              {map(3, {0, 2}), map(3, rhsDims), map(3, {0, 1})}, 2, 1,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::AddFOp::create(
                    nb, l, a[2],
                    arith::MulFOp::create(nb, l, ext(nb, l, a[0]),
                                          ext(nb, l, a[1])));
              });
          // Scale, softcap, mask, causal.
          SmallVector<Value> ins = {dots};
          SmallVector<AffineMap> maps = {map(2, {0, 1})};
          if (mask) {
            bool rowsBroadcast = maskShape[2] == 1,
                 colsBroadcast = maskShape[3] == 1;
            Value maskSlice = slice2d(
                b, mask,
                {maskShape[0] == 1 ? idx(b, 0) : bi,
                 maskShape[1] == 1 ? idx(b, 0) : hi,
                 rowsBroadcast ? idx(b, 0) : q0,
                 colsBroadcast ? idx(b, 0) : k0},
                rowsBroadcast ? 1 : qTile, colsBroadcast ? 1 : kTile);
            ins.push_back(maskSlice);
            maps.push_back(
                map(2, {rowsBroadcast ? -1 : 0, colsBroadcast ? -1 : 1}));
          }
          maps.push_back(map(2, {0, 1}));
          Value scores = generic(
              b, ins, emptyTensor(b, loc, {qTile, kTile}, acc), maps, 2, 0,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                Value s = arith::MulFOp::create(nb, l, a[0], cst(nb, scale));
                if (softcap > 0) {
                  Value c = cst(nb, softcap);
                  s = arith::MulFOp::create(
                      nb, l, c,
                      math::TanhOp::create(
                          nb, l, arith::DivFOp::create(nb, l, s, c)));
                }
                if (mask)
                  s = arith::AddFOp::create(nb, l, s, ext(nb, l, a[1]));
                if (causal) {
                  Value i = linalg::IndexOp::create(nb, l, 0);
                  Value j = linalg::IndexOp::create(nb, l, 1);
                  Value row = arith::AddIOp::create(
                      nb, l, arith::AddIOp::create(nb, l, q0, i),
                      idx(nb, causalOffset));
                  Value col = arith::AddIOp::create(nb, l, k0, j);
                  Value hidden = arith::CmpIOp::create(
                      nb, l, arith::CmpIPredicate::ugt, col, row);
                  s = arith::SelectOp::create(nb, l, hidden, cst(nb, -INFINITY),
                                              s);
                }
                return s;
              });
          // Each carried value is updated in place (its generic writes the
          // loop-carried tensor after its last read), so the loop needs no
          // copies: rowmax, c and p first, then l, acc and m.
          Value rowMax = generic(
              b, {scores}, filledTensor(b, loc, {qTile}, acc, cst(b, -INFINITY)),
              {map(2, {0, 1}), map(2, {0})}, 1, 1,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::MaximumFOp::create(nb, l, a[0], a[1]);
              });
          auto isNegInf = [&](OpBuilder &nb, Location l, Value v) -> Value {
            return arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ, v,
                                         cst(nb, -INFINITY));
          };
          // exp(x - m') with m' = max(m, rowmax), or `none` where m' = -inf
          // (nothing seen yet).
          auto shiftedExp = [&](OpBuilder &nb, Location l, Value x, Value mOld,
                                Value max, double none) -> Value {
            Value mNew = arith::MaximumFOp::create(nb, l, mOld, max);
            Value e = math::ExpOp::create(
                nb, l, arith::SubFOp::create(nb, l, x, mNew));
            return arith::SelectOp::create(nb, l, isNegInf(nb, l, mNew),
                                           cst(nb, none), e);
          };
          // c = exp(m - m'), 1 where nothing was seen yet.
          Value corr = generic(
              b, {m, rowMax}, emptyTensor(b, loc, {qTile}, acc),
              {map(1, {0}), map(1, {0}), map(1, {0})}, 1, 0,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return shiftedExp(nb, l, a[0], a[0], a[1], 1);
              });
          // p = exp(s - m'), 0 where nothing was seen yet.
          Value probs = generic(
              b, {scores, m, rowMax}, emptyTensor(b, loc, {qTile, kTile}, acc),
              {map(2, {0, 1}), map(2, {0}), map(2, {0}), map(2, {0, 1})}, 2, 0,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return shiftedExp(nb, l, a[0], a[1], a[2], 0);
              });
          // l' = l * c + rowsum(p)
          Value lScaled = generic(
              b, {corr}, l, {map(1, {0}), map(1, {0})}, 1, 0,
              [&](OpBuilder &nb, Location loc2, ValueRange a) -> Value {
                return arith::MulFOp::create(nb, loc2, a[1], a[0]);
              });
          Value lNew = generic(
              b, {probs}, lScaled, {map(2, {0, 1}), map(2, {0})}, 1, 1,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::AddFOp::create(nb, l, a[1], a[0]);
              });
          // acc' = acc * c + p v
          Value accScaled = generic(
              b, {corr}, accIn, {map(2, {0}), map(2, {0, 1})}, 2, 0,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::MulFOp::create(nb, l, a[1], a[0]);
              });
          Value accNew = generic(
              b, {probs, vSlice}, accScaled,
              {map(3, {0, 2}), map(3, rhsDims), map(3, {0, 1})}, 2, 1,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::AddFOp::create(
                    nb, l, a[2],
                    arith::MulFOp::create(nb, l, a[0], ext(nb, l, a[1])));
              });
          accNew.getDefiningOp()->setAttr(kProbabilitiesAttrName,
                                          b.getUnitAttr());
          // m' = max(m, rowmax), last.
          Value mNew = generic(
              b, {rowMax}, m, {map(1, {0}), map(1, {0})}, 1, 0,
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::MaximumFOp::create(nb, l, a[1], a[0]);
              });
          scf::YieldOp::create(b, loc, ValueRange{mNew, lNew, accNew});
        });

    // out = acc / l, 0 for a row that saw no key.
    Value tile = generic(
        b, {loop.getResult(2), loop.getResult(1)},
        emptyTensor(b, loc, {qTile, valueSize}, elem),
        {map(2, {0, 1}), map(2, {0}), map(2, {0, 1})}, 2, 0,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value empty = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OEQ,
                                              a[1], cst(nb, 0));
          Value out = arith::SelectOp::create(
              nb, l, empty, cst(nb, 0), arith::DivFOp::create(nb, l, a[0], a[1]));
          return out.getType() == elem
                     ? out
                     : Value(arith::TruncFOp::create(nb, l, elem, out));
        });
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    SmallVector<OpFoldResult> offsets = {bi, hi, q0, b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                       b.getIndexAttr(qTile),
                                       b.getIndexAttr(valueSize)};
    SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
    tensor::ParallelInsertSliceOp::create(b, loc, tile,
                                          forall.getRegionIterArgs()[0],
                                          offsets, sizes, strides);
    rewriter.setInsertionPointAfter(forall);
    rewriter.replaceOp(op, forall.getResult(0));
    return success();
  }
};

} // namespace

void mlir::ms::populateGraphAttentionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    bool tensorCoreLayout) {
  patterns.add<AttentionToLinalg>(converter, patterns.getContext(),
                                  tensorCoreLayout);
}
