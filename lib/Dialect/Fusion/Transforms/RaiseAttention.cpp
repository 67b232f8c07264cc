//===- RaiseAttention.cpp - op-by-op attention to msgraph.attention -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Exporters write attention as matmul, scale, mask, softmax, matmul; each
// step is a kernel with a batch x heads x S x T intermediate. This pass
// rewrites the chain into one msgraph.attention, whose kernel keeps only
// tiles of the scores (rules in docs/spec/msfusion.md, "Patterns").
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Fusion/Transforms/Passes.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::ms::fusion {
#define GEN_PASS_DEF_RAISEATTENTIONPASS
#include "ms/Dialect/Fusion/Transforms/Passes.h.inc"
} // namespace mlir::ms::fusion

using namespace mlir;
using namespace mlir::ms;
namespace graph = mlir::ms::graph;

namespace {

/// The splat value of a constant float tensor `v`, if it is one.
std::optional<double> splatFloat(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

bool isNegInf(Value v) {
  std::optional<double> x = splatFloat(v);
  return x && std::isinf(*x) && *x < 0;
}

/// The causal offset `o` if `hidden` (the hidden keys of a constant mask
/// of shape `shape`: rank 2, or with leading 1s, over S x T) is exactly
/// `j > i + o` with o >= 0.
std::optional<int64_t> causalOffset(ArrayRef<bool> hidden,
                                    ArrayRef<int64_t> shape, int64_t seq,
                                    int64_t keys) {
  if (shape.size() < 2 || shape[shape.size() - 2] != seq ||
      shape.back() != keys ||
      llvm::any_of(shape.drop_back(2), [](int64_t d) { return d != 1; }) ||
      static_cast<int64_t>(hidden.size()) != seq * keys)
    return std::nullopt;
  // Row 0 sees keys 0..o.
  int64_t offset = keys - 1;
  for (int64_t j = 0; j < keys; ++j)
    if (hidden[j]) {
      offset = j - 1;
      break;
    }
  if (offset < 0)
    return std::nullopt;
  for (int64_t i = 0; i < seq; ++i)
    for (int64_t j = 0; j < keys; ++j)
      if (hidden[i * keys + j] != (j > i + offset))
        return std::nullopt;
  return offset;
}

/// The causal offset of a constant boolean condition `hidden` (negated
/// when `negate`), as `causalOffset`.
std::optional<int64_t> causalOffsetOfCondition(Value hidden, bool negate,
                                               int64_t seq, int64_t keys) {
  DenseElementsAttr attr;
  if (!matchPattern(hidden, m_Constant(&attr)) ||
      !attr.getElementType().isInteger(1))
    return std::nullopt;
  SmallVector<bool> values;
  for (bool v : attr.getValues<bool>())
    values.push_back(v != negate);
  return causalOffset(values, attr.getType().getShape(), seq, keys);
}

/// The causal offset of a constant additive mask of 0 and -inf (the -inf
/// triangle LLaMA's reference code adds), as `causalOffset`.
std::optional<int64_t> causalOffsetOfAdditive(Value mask, int64_t seq,
                                              int64_t keys) {
  Attribute value;
  if (!matchPattern(mask, m_Constant(&value)))
    return std::nullopt;
  // (A large mask read from the model is mapped: its values are copied.)
  DenseElementsAttr attr = graph::getDenseElements(value);
  if (!attr || !isa<FloatType>(attr.getElementType()) || attr.isSplat())
    return std::nullopt;
  SmallVector<bool> hidden;
  for (const APFloat &v : attr.getValues<APFloat>()) {
    if (v.isInfinity() && v.isNegative())
      hidden.push_back(true);
    else if (v.isZero())
      hidden.push_back(false);
    else
      return std::nullopt;
  }
  return causalOffset(hidden, attr.getType().getShape(), seq, keys);
}

/// `matmul(softmax(mask(scale(matmul(Q, K^T)))), V)` -> msgraph.attention.
struct RaiseAttention final : OpRewritePattern<graph::MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(graph::MatMulOp out,
                                PatternRewriter &rewriter) const override {
    auto softmax = out.getLhs().getDefiningOp<graph::SoftmaxOp>();
    if (!softmax || !softmax->hasOneUse())
      return rewriter.notifyMatchFailure(out, "lhs is not a softmax");
    // Rank 4 (batch x heads x S x D), or rank 3 with batch and heads
    // folded together (PyTorch's MultiheadAttention).
    auto probsType = cast<RankedTensorType>(softmax.getType());
    int64_t rank = probsType.getRank();
    // I64Attr reads as uint64_t.
    auto axis = static_cast<int64_t>(softmax.getAxis());
    if ((rank != 3 && rank != 4) || !probsType.hasStaticShape() ||
        (axis != -1 && axis != rank - 1))
      return rewriter.notifyMatchFailure(out, "not a last-axis softmax");
    Value value = out.getRhs();
    auto valueType = cast<RankedTensorType>(value.getType());
    if (valueType.getRank() != rank)
      return failure();

    // Walk down from the softmax input: masks (add, where), then a scale,
    // then the scores matmul; each step used once.
    Value current = softmax.getInput();
    Value addMask, hidden;
    bool negateHidden = false;
    double scale = 1.0;
    bool scaled = false;
    graph::MatMulOp scores;
    while (!scores) {
      Operation *def = current.getDefiningOp();
      if (!def || !current.hasOneUse())
        return rewriter.notifyMatchFailure(out, "no single-use score chain");
      if (auto mm = dyn_cast<graph::MatMulOp>(def)) {
        scores = mm;
      } else if (isa<graph::MulOp, graph::DivOp>(def) && !scaled) {
        Value lhs = def->getOperand(0), rhs = def->getOperand(1);
        std::optional<double> c = splatFloat(rhs);
        bool isDiv = isa<graph::DivOp>(def);
        if (!c && !isDiv && (c = splatFloat(lhs)))
          std::swap(lhs, rhs);
        if (!c || *c == 0 || !std::isfinite(*c) ||
            cast<RankedTensorType>(rhs.getType()).getNumElements() != 1)
          return rewriter.notifyMatchFailure(out, "not a scalar scale");
        scale = isDiv ? 1.0 / *c : *c;
        scaled = true;
        current = lhs;
      } else if (auto add = dyn_cast<graph::AddOp>(def);
                 add && !addMask && !scaled) {
        // The scores side comes from the chain (same type as the scores);
        // the other side is the mask.
        Value lhs = add.getLhs(), rhs = add.getRhs();
        auto fromChain = [](Value v) {
          return isa_and_nonnull<graph::MatMulOp, graph::MulOp, graph::DivOp,
                                 graph::WhereOp>(v.getDefiningOp());
        };
        if (!fromChain(lhs) && fromChain(rhs))
          std::swap(lhs, rhs);
        if (lhs.getType() != add.getType())
          return rewriter.notifyMatchFailure(out, "mask broadcasts the scores");
        addMask = rhs;
        current = lhs;
      } else if (auto where = dyn_cast<graph::WhereOp>(def);
                 where && !hidden && !scaled) {
        Value chain;
        if (isNegInf(where.getOnTrue())) {
          hidden = where.getCondition();
          chain = where.getOnFalse();
        } else if (isNegInf(where.getOnFalse())) {
          // Keys where the condition holds attend: hide its negation.
          hidden = where.getCondition();
          negateHidden = true;
          chain = where.getOnTrue();
        } else {
          return rewriter.notifyMatchFailure(out, "where without -inf");
        }
        if (chain.getType() != where.getType())
          return rewriter.notifyMatchFailure(out, "where broadcasts the scores");
        current = chain;
      } else {
        return rewriter.notifyMatchFailure(out, "unexpected op in the chain");
      }
    }

    Value query = scores.getLhs(), keyT = scores.getRhs();
    // A scale applied to the query instead of the scores.
    if (auto def = query.getDefiningOp(); !scaled && def &&
                                          query.hasOneUse() &&
                                          isa<graph::MulOp, graph::DivOp>(def)) {
      std::optional<double> c = splatFloat(def->getOperand(1));
      if (c && *c != 0 && std::isfinite(*c) &&
          def->getOperand(0).getType() == query.getType()) {
        scale = isa<graph::DivOp>(def) ? 1.0 / *c : *c;
        scaled = true;
        query = def->getOperand(0);
      }
    }
    auto qType = cast<RankedTensorType>(query.getType());
    auto ktType = cast<RankedTensorType>(keyT.getType());
    int64_t batchDims = rank - 2;
    if (qType.getRank() != rank || ktType.getRank() != rank ||
        !isa<FloatType>(qType.getElementType()) ||
        scores.getType() != softmax.getType() ||
        qType.getShape().take_front(batchDims) !=
            ktType.getShape().take_front(batchDims) ||
        qType.getShape().take_front(batchDims) !=
            valueType.getShape().take_front(batchDims) ||
        ktType.getDimSize(rank - 1) != valueType.getDimSize(rank - 2))
      return rewriter.notifyMatchFailure(out, "not attention operands");
    int64_t seq = qType.getDimSize(rank - 2), keys = ktType.getDimSize(rank - 1);

    // The additive mask: the add's operand plus -inf where hidden, unless
    // the hidden keys are exactly the causal ones. Both must broadcast to
    // the scores (checked before anything is built).
    ArrayRef<int64_t> full = probsType.getShape();
    // A mask shape as rank 4 (leading 1s).
    auto padded = [](RankedTensorType t) {
      SmallVector<int64_t> shape(4 - std::min<int64_t>(t.getRank(), 4), 1);
      llvm::append_range(shape, t.getShape());
      return shape;
    };
    SmallVector<int64_t> full4(4 - rank, 1);
    llvm::append_range(full4, full);
    auto broadcasts = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() > rank)
        return false;
      SmallVector<int64_t> shape = padded(t);
      for (int64_t i = 0; i < 4; ++i)
        if (shape[i] != 1 && shape[i] != full4[i])
          return false;
      return true;
    };
    Type elem = qType.getElementType();
    bool causal = false, hiddenIsCausal = false;
    int64_t offset = 0;
    if (hidden)
      if (std::optional<int64_t> o =
              causalOffsetOfCondition(hidden, negateHidden, seq, keys)) {
        causal = hiddenIsCausal = true;
        offset = *o;
      }
    // An additive -inf triangle is causal too (or repeats the condition's).
    if (addMask)
      if (std::optional<int64_t> o = causalOffsetOfAdditive(addMask, seq, keys);
          o && (!causal || *o == offset)) {
        causal = true;
        offset = *o;
        addMask = nullptr;
      }
    if ((addMask && (!broadcasts(addMask) ||
                     cast<RankedTensorType>(addMask.getType())
                             .getElementType() != elem)) ||
        (hidden && !hiddenIsCausal && !broadcasts(hidden)))
      return rewriter.notifyMatchFailure(out, "mask does not broadcast");
    Location loc = out.getLoc();
    Value mask = addMask;
    if (hidden && !hiddenIsCausal) {
      auto scalar = [&](double v) -> Value {
        auto type = RankedTensorType::get({}, elem);
        return graph::ConstantOp::create(
            rewriter, loc, type,
            DenseElementsAttr::get(type, rewriter.getFloatAttr(elem, v)));
      };
      Value bias = graph::WhereOp::create(
          rewriter, loc, hidden, scalar(negateHidden ? 0 : -INFINITY),
          scalar(negateHidden ? -INFINITY : 0));
      mask = mask ? Value(graph::AddOp::create(rewriter, loc, mask, bias))
                  : bias;
    }
    if (mask) {
      auto maskType = cast<RankedTensorType>(mask.getType());
      if (maskType.getRank() != 4)
        mask = graph::ReshapeOp::create(
            rewriter, loc, RankedTensorType::get(padded(maskType), elem),
            mask, Value());
    }
    // K from K^T: swap a transpose's last two permutation entries.
    Value key;
    if (auto t = keyT.getDefiningOp<graph::TransposeOp>()) {
      SmallVector<int64_t> perm(t.getPermutation());
      std::swap(perm[rank - 2], perm[rank - 1]);
      key = graph::TransposeOp::create(rewriter, loc, t.getInput(),
                                       rewriter.getDenseI64ArrayAttr(perm));
    } else {
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
      std::swap(perm[rank - 2], perm[rank - 1]);
      key = graph::TransposeOp::create(rewriter, loc, keyT,
                                       rewriter.getDenseI64ArrayAttr(perm));
    }
    // Rank 3: one batch of batch * heads heads.
    auto to4d = [&](Value v) -> Value {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() == 4)
        return v;
      SmallVector<int64_t> shape = {1};
      llvm::append_range(shape, t.getShape());
      return graph::ReshapeOp::create(rewriter, loc, t.clone(shape), v,
                                      Value());
    };
    query = to4d(query);
    key = to4d(key);
    value = to4d(value);

    auto outType = cast<RankedTensorType>(out.getType());
    SmallVector<int64_t> out4(4 - rank, 1);
    llvm::append_range(out4, outType.getShape());
    Value result = graph::AttentionOp::create(
        rewriter, loc, outType.clone(out4), query, key, value, mask,
        rewriter.getF64FloatAttr(scale), rewriter.getBoolAttr(causal),
        rewriter.getI64IntegerAttr(offset), rewriter.getF64FloatAttr(0.0));
    if (rank == 3)
      result = graph::ReshapeOp::create(rewriter, loc, outType, result,
                                        Value());
    rewriter.replaceOp(out, result);
    return success();
  }
};

struct RaiseAttentionPass final
    : fusion::impl::RaiseAttentionPassBase<RaiseAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    fusion::populateRaiseAttentionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace

void mlir::ms::fusion::populateRaiseAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RaiseAttention>(patterns.getContext());
}
