//===- DecomposeAttention.cpp - attention as matmuls and a softmax --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::ms::graph {
#define GEN_PASS_DEF_DECOMPOSEATTENTIONPASS
#include "ms/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlir::ms::graph

using namespace mlir;
using namespace mlir::ms::graph;

namespace {
/// Rewrites one static-shape `msgraph.attention` (docs of the op: Q is
/// B x H x S x D, K B x Hk x T x D, V B x Hk x T x Dv).
struct DecomposeAttention final : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto kType = cast<RankedTensorType>(op.getKey().getType());
    auto vType = cast<RankedTensorType>(op.getValue().getType());
    auto outType = cast<RankedTensorType>(op.getType());
    if (!qType.hasStaticShape() || !kType.hasStaticShape() ||
        !vType.hasStaticShape() || qType.getRank() != 4)
      return rewriter.notifyMatchFailure(op, "needs static rank-4 shapes");
    Location loc = op.getLoc();
    Type elem = qType.getElementType();
    int64_t b = qType.getDimSize(0), h = qType.getDimSize(1),
            s = qType.getDimSize(2), d = qType.getDimSize(3);
    int64_t hk = kType.getDimSize(1), t = kType.getDimSize(2),
            dv = vType.getDimSize(3);
    int64_t g = h / hk;
    auto tensor = [&](ArrayRef<int64_t> shape) {
      return RankedTensorType::get(shape, elem);
    };
    auto reshape = [&](Value v, ArrayRef<int64_t> shape) -> Value {
      return ReshapeOp::create(rewriter, loc, tensor(shape), v, Value());
    };
    auto scalar = [&](double v) -> Value {
      RankedTensorType type = tensor({});
      return ConstantOp::create(
          rewriter, loc, type,
          DenseElementsAttr::get(type, rewriter.getFloatAttr(elem, v)));
    };

    // The g query heads of one key head are the rows of one matmul.
    Value query = op.getQuery();
    if (g > 1)
      query = reshape(query, {b, hk, g * s, d});
    Value keyT =
        TransposeOp::create(rewriter, loc, op.getKey(),
                            rewriter.getDenseI64ArrayAttr({0, 1, 3, 2}));
    Value scores =
        MatMulOp::create(rewriter, loc, tensor({b, hk, g * s, t}), query, keyT);
    double scale = op.getScale() ? op.getScale()->convertToDouble()
                                 : 1.0 / std::sqrt(double(d));
    scores = MulOp::create(rewriter, loc, scores, scalar(scale));
    if (double cap = op.getSoftcap().convertToDouble(); cap > 0) {
      scores = MulOp::create(rewriter, loc, scores, scalar(1.0 / cap));
      scores = TanhOp::create(rewriter, loc, scores);
      scores = MulOp::create(rewriter, loc, scores, scalar(cap));
    }
    if (Value mask = op.getMask()) {
      // In 5-d (B, Hk, g, S, T) a mask over all H heads splits like the
      // queries; one over a single head broadcasts over all g.
      auto maskType = cast<RankedTensorType>(mask.getType());
      ArrayRef<int64_t> m = maskType.getShape();
      Value split = reshape(scores, {b, hk, g, s, t});
      Value mask5 = reshape(
          mask, {m[0], m[1] == 1 ? 1 : hk, m[1] == 1 ? 1 : g, m[2], m[3]});
      split = AddOp::create(rewriter, loc, split, mask5);
      scores = reshape(split, {b, hk, g * s, t});
    }
    if (op.getIsCausal()) {
      // Row r is query r % S; key j is hidden when j > r % S + offset.
      int64_t offset = op.getCausalOffset();
      SmallVector<APFloat> bias;
      for (int64_t r = 0; r < g * s; ++r)
        for (int64_t j = 0; j < t; ++j)
          bias.push_back(APFloat(j > r % s + offset ? -INFINITY : 0.0f));
      RankedTensorType biasType = tensor({g * s, t});
      Value causal = ConstantOp::create(
          rewriter, loc, biasType,
          DenseElementsAttr::get(biasType, convertFloats(bias, elem)));
      scores = AddOp::create(rewriter, loc, scores, causal);
    }
    // The softmax over keys, written out so that a query that sees no key
    // gets zeros: its maximum is clamped to a finite value (the exponentials
    // are then all 0) and its sum to the smallest normal number.
    auto keep = [&](auto opTag, Value v) -> Value {
      using Op = decltype(opTag);
      return Op::create(rewriter, loc, tensor({b, hk, g * s, 1}), v,
                        rewriter.getDenseI64ArrayAttr({3}),
                        rewriter.getBoolAttr(true));
    };
    const llvm::fltSemantics &semantics =
        cast<FloatType>(elem).getFloatSemantics();
    Value rowMax =
        MaxOp::create(rewriter, loc, keep(ReduceMaxOp(), scores),
                      scalar(APFloat::getLargest(semantics, /*Negative=*/true)
                                 .convertToDouble()));
    Value exps = ExpOp::create(rewriter, loc,
                               SubOp::create(rewriter, loc, scores, rowMax));
    Value rowSum = MaxOp::create(
        rewriter, loc, keep(ReduceSumOp(), exps),
        scalar(APFloat::getSmallestNormalized(semantics).convertToDouble()));
    Value probs = DivOp::create(rewriter, loc, exps, rowSum);
    Value out = MatMulOp::create(rewriter, loc, tensor({b, hk, g * s, dv}),
                                 probs, op.getValue());
    if (g > 1)
      out = reshape(out, outType.getShape());
    rewriter.replaceOp(op, out);
    return success();
  }

  /// `values` (f32) as elements of `elem` (f32, f16 or bf16).
  static SmallVector<APFloat> convertFloats(ArrayRef<APFloat> values,
                                            Type elem) {
    SmallVector<APFloat> result;
    auto &semantics = cast<FloatType>(elem).getFloatSemantics();
    for (APFloat v : values) {
      bool lost;
      v.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      result.push_back(v);
    }
    return result;
  }
};

struct DecomposeAttentionPass final
    : ms::graph::impl::DecomposeAttentionPassBase<DecomposeAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeAttention>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
