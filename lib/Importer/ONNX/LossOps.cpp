//===- LossOps.cpp - ONNX loss functions to msgraph -----------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss as compositions of
// gather_elements, gather, where and reductions, in the order of ONNX's
// reference implementations.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;

/// The loss of `logProb` [N, C, d...] (log-probabilities) at the classes
/// `target` [N, d...]: -logProb[n, target, d...], times the class weight
/// when `weight` is given, 0 where the target is `ignore_index`; then
/// reduced per `reduction` (none, sum, or mean: divided by the summed
/// weights, or by the count of positions).
static Results negativeLogLikelihood(NodeContext &c, Value logProb,
                                     Value target, Value weight) {
  auto type = cast<RankedTensorType>(logProb.getType());
  auto targetType = cast<RankedTensorType>(target.getType());
  if (type.getRank() < 2 || !type.hasStaticShape() ||
      !targetType.hasStaticShape())
    return c.error() << "expected a statically shaped input of rank at least "
                        "2 and target, but found "
                     << type << " and " << targetType;
  SmallVector<int64_t> expected = {type.getDimSize(0)};
  llvm::append_range(expected, type.getShape().drop_front(2));
  if (targetType.getShape() != ArrayRef(expected))
    return c.error() << "expected a target of shape [N, d...] matching "
                     << type << ", but found " << targetType;
  std::string reduction = c.getString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return c.error() << "expected reduction none, sum or mean, but found '"
                     << reduction << "'";

  Composer m(c);
  Type elem = type.getElementType();
  Value mask, safeTarget = target;
  if (c.attr("ignore_index")) {
    Value ignore = m.scalarLike(target, (double)c.getInt("ignore_index", 0));
    mask = m.unary<graph::NotOp>(m.binary<graph::EqualOp>(target, ignore));
    safeTarget = m.where(mask, target, m.scalarLike(target, 0));
  }
  // -logProb[n, target[n, d...], d...]
  SmallVector<int64_t> withClass = {type.getDimSize(0), 1};
  llvm::append_range(withClass, type.getShape().drop_front(2));
  Value classes;
  if (safeTarget) {
    auto reshaped = reshape(c, safeTarget, withClass);
    if (failed(reshaped))
      return failure();
    classes = *reshaped;
  }
  Value picked = m.op<graph::GatherElementsOp>(logProb, classes,
                                               c.b.getI64IntegerAttr(1));
  if (picked) {
    auto flat = reshape(c, picked, expected);
    if (failed(flat))
      return failure();
    picked = *flat;
  }
  Value loss = m.unary<graph::NegOp>(picked);
  Value zero = m.scalarLike(logProb, 0);
  if (mask)
    loss = m.where(mask, loss, zero);
  // The per-position weights: the class weights, or 1, zeroed where ignored.
  Value weights;
  if (weight) {
    weights = m.op<graph::GatherOp>(weight, safeTarget,
                                    c.b.getI64IntegerAttr(0));
    if (mask)
      weights = m.where(mask, weights, zero);
  } else if (mask) {
    weights = m.castTo(mask, elem);
  }
  if (weights)
    loss = m.binary<graph::MulOp>(weights, loss);
  if (reduction == "none")
    return m.result(loss);
  auto sumAll = [&](Value v) {
    return m.op<graph::ReduceSumOp>(v, i64s(c, {}), c.b.getBoolAttr(false));
  };
  if (reduction == "sum")
    return m.result(sumAll(loss));
  if (weights)
    return m.result(m.binary<graph::DivOp>(sumAll(loss), sumAll(weights)));
  return m.result(
      m.op<graph::ReduceMeanOp>(loss, i64s(c, {}), c.b.getBoolAttr(false)));
}

/// NegativeLogLikelihoodLoss (opset 12): input, target, optional weight.
static Results convertNegativeLogLikelihoodLoss(NodeContext &c) {
  return negativeLogLikelihood(c, c.input(0), c.input(1), c.input(2));
}

/// SoftmaxCrossEntropyLoss (opset 12): the loss of log(softmax(scores)) over
/// axis 1, and optionally those log-probabilities.
static Results convertSoftmaxCrossEntropyLoss(NodeContext &c) {
  Value scores = c.input(0);
  auto softmax = c.create<graph::SoftmaxOp>(scores.getType(), scores,
                                            c.b.getI64IntegerAttr(1));
  if (failed(softmax))
    return failure();
  auto log = c.create<graph::LogOp>(scores.getType(), *softmax);
  if (failed(log))
    return failure();
  Value logProb = *log;
  Results loss = negativeLogLikelihood(c, logProb, c.input(1), c.input(2));
  if (failed(loss))
    return failure();
  if (c.node.output_size() > 1 && !c.node.output(1).empty())
    loss->push_back(logProb);
  return loss;
}

void mlir::ms::onnx_importer::populateLossOps(OpTable &t) {
  t.onOp("NegativeLogLikelihoodLoss", 12, convertNegativeLogLikelihoodLoss);
  t.onOp("SoftmaxCrossEntropyLoss", 12, convertSoftmaxCrossEntropyLoss);
}
