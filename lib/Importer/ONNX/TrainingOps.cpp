//===- TrainingOps.cpp - ONNX training ops (Gradient) ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ai.onnx.preview.training's Gradient: the partial derivatives of a value
// `y` with respect to values `xs`, seeded with dY = 1. The importer
// differentiates the msgraph ops it has already built for the graph in
// reverse mode, emitting the backward ops next to the forward ones.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;

bool mlir::ms::onnx_importer::isGradientOp(const onnx::NodeProto &node) {
  return node.domain() == "ai.onnx.preview.training" &&
         node.op_type() == "Gradient";
}

namespace {
/// Reverse-mode differentiation over the msgraph ops of one block.
class Differentiator {
public:
  explicit Differentiator(NodeContext &c) : c(c) {}

  /// The gradients of `y` (seeded with ones) with respect to `xs`.
  FailureOr<SmallVector<Value>> run(Value y, ArrayRef<Value> xs);

private:
  /// Adds `g` to the gradient of `v`, summed back to `v`'s shape over the
  /// broadcast dimensions.
  LogicalResult accumulate(Value v, Value g);
  /// The gradients of `op`'s operands from the gradient `g` of its result.
  LogicalResult backward(Operation *op, Value g);

  FailureOr<Value> splatLike(Value v, double value) {
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.hasStaticShape())
      return c.error() << "Gradient needs static shapes, but found " << type;
    return c.constant(DenseElementsAttr::get(
        type, c.b.getFloatAttr(type.getElementType(), value)));
  }

  NodeContext &c;
  /// Values that depend on some x (only their gradients are needed).
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> grads;
};
} // namespace

LogicalResult Differentiator::accumulate(Value v, Value g) {
  if (!active.contains(v))
    return success();
  auto target = cast<RankedTensorType>(v.getType());
  auto have = cast<RankedTensorType>(g.getType());
  if (target.getShape() != have.getShape()) {
    if (!target.hasStaticShape() || !have.hasStaticShape())
      return c.error() << "Gradient needs static shapes, but found " << target
                       << " and " << have;
    int64_t lead = have.getRank() - target.getRank();
    SmallVector<int64_t> axes;
    for (int64_t i = 0; i < have.getRank(); ++i)
      if (i < lead || (target.getDimSize(i - lead) == 1 &&
                       have.getDimSize(i) != 1))
        axes.push_back(i);
    auto summed = c.create<graph::ReduceSumOp>(
        Type(), g, c.b.getDenseI64ArrayAttr(axes), c.b.getBoolAttr(true));
    if (failed(summed))
      return failure();
    auto shaped = reshape(c, *summed, target.getShape());
    if (failed(shaped))
      return failure();
    g = *shaped;
  }
  auto it = grads.find(v);
  if (it == grads.end()) {
    grads[v] = g;
    return success();
  }
  auto sum = c.create<graph::AddOp>(Type(), it->second, g);
  if (failed(sum))
    return failure();
  it->second = *sum;
  return success();
}

LogicalResult Differentiator::backward(Operation *op, Value g) {
  auto mul = [&](Value a, Value b) {
    return c.create<graph::MulOp>(Type(), a, b);
  };
  auto div = [&](Value a, Value b) {
    return c.create<graph::DivOp>(Type(), a, b);
  };
  auto sub = [&](Value a, Value b) {
    return c.create<graph::SubOp>(Type(), a, b);
  };
  auto neg = [&](Value a) -> FailureOr<Value> {
    return c.create<graph::NegOp>(a.getType(), a);
  };
  auto then = [&](Value v, FailureOr<Value> grad) -> LogicalResult {
    return failed(grad) ? failure() : accumulate(v, *grad);
  };
  Value r = op->getNumResults() == 1 ? op->getResult(0) : Value();

  if (auto add = dyn_cast<graph::AddOp>(op))
    return failure(failed(accumulate(add.getLhs(), g)) ||
                   failed(accumulate(add.getRhs(), g)));
  if (auto s = dyn_cast<graph::SubOp>(op))
    return failure(failed(accumulate(s.getLhs(), g)) ||
                   failed(then(s.getRhs(), neg(g))));
  if (auto m = dyn_cast<graph::MulOp>(op))
    return failure(failed(then(m.getLhs(), mul(g, m.getRhs()))) ||
                   failed(then(m.getRhs(), mul(g, m.getLhs()))));
  if (auto d = dyn_cast<graph::DivOp>(op)) {
    // d(a / b) = g / b, -g * r / b.
    if (failed(then(d.getLhs(), div(g, d.getRhs()))))
      return failure();
    if (!active.contains(d.getRhs()))
      return success();
    auto q = div(g, d.getRhs());
    if (failed(q))
      return failure();
    auto qr = mul(*q, r);
    return failed(qr) ? failure() : then(d.getRhs(), neg(*qr));
  }
  if (auto n = dyn_cast<graph::NegOp>(op))
    return then(n.getInput(), neg(g));
  if (auto id = dyn_cast<graph::IdentityOp>(op))
    return accumulate(id.getInput(), g);
  if (auto e = dyn_cast<graph::ExpOp>(op))
    return then(e.getInput(), mul(g, r));
  if (auto l = dyn_cast<graph::LogOp>(op))
    return then(l.getInput(), div(g, l.getInput()));
  if (auto s = dyn_cast<graph::SqrtOp>(op)) {
    auto two = splatLike(r, 2.0);
    if (failed(two))
      return failure();
    auto twice = mul(*two, r);
    return failed(twice) ? failure() : then(s.getInput(), div(g, *twice));
  }
  if (isa<graph::TanhOp, graph::SigmoidOp>(op)) {
    // tanh' = 1 - r^2; sigmoid' = r (1 - r).
    auto one = splatLike(r, 1.0);
    if (failed(one))
      return failure();
    bool tanh = isa<graph::TanhOp>(op);
    auto square = mul(r, r);
    auto slope = tanh ? (failed(square) ? square : sub(*one, *square))
                      : sub(*one, r);
    if (failed(slope))
      return failure();
    if (!tanh) {
      slope = mul(r, *slope);
      if (failed(slope))
        return failure();
    }
    return then(op->getOperand(0), mul(g, *slope));
  }
  if (auto relu = dyn_cast<graph::ReluOp>(op)) {
    auto zero = splatLike(r, 0.0);
    if (failed(zero))
      return failure();
    auto positive = c.create<graph::GreaterOp>(Type(), relu.getInput(), *zero);
    if (failed(positive))
      return failure();
    return then(relu.getInput(),
                c.create<graph::WhereOp>(Type(), *positive, g, *zero));
  }
  if (auto mm = dyn_cast<graph::MatMulOp>(op)) {
    auto a = cast<RankedTensorType>(mm.getLhs().getType());
    auto b = cast<RankedTensorType>(mm.getRhs().getType());
    if (a.getRank() != 2 || b.getRank() != 2)
      return c.error() << "Gradient through matmul supports 2-d operands, but "
                          "found "
                       << a << " and " << b;
    auto t = [&](Value v) {
      return c.create<graph::TransposeOp>(Type(), v,
                                          c.b.getDenseI64ArrayAttr({1, 0}));
    };
    auto bt = t(mm.getRhs()), at = t(mm.getLhs());
    if (failed(bt) || failed(at))
      return failure();
    return failure(
        failed(then(mm.getLhs(), c.create<graph::MatMulOp>(Type(), g, *bt))) ||
        failed(then(mm.getRhs(), c.create<graph::MatMulOp>(Type(), *at, g))));
  }
  return c.error() << "Gradient through '" << op->getName()
                   << "' is not supported (supported: add, sub, mul, div, "
                      "neg, identity, exp, log, sqrt, tanh, sigmoid, relu, "
                      "2-d matmul)";
}

FailureOr<SmallVector<Value>> Differentiator::run(Value y,
                                                  ArrayRef<Value> xs) {
  auto yType = cast<RankedTensorType>(y.getType());
  if (!isa<FloatType>(yType.getElementType()))
    return c.error() << "Gradient expects a floating-point y, but found "
                     << yType;
  // Forward: which values depend on an x.
  active.insert(xs.begin(), xs.end());
  Block *block = c.b.getInsertionBlock();
  SmallVector<Operation *> ops;
  for (Operation &op : *block) {
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); })) {
      active.insert(op.getResults().begin(), op.getResults().end());
      ops.push_back(&op);
    }
  }
  auto seed = splatLike(y, 1.0);
  if (failed(seed))
    return failure();
  if (failed(accumulate(y, *seed)))
    return failure();
  // Backward, in reverse program order.
  for (Operation *op : llvm::reverse(ops)) {
    if (op->getNumResults() != 1)
      continue;
    auto it = grads.find(op->getResult(0));
    if (it == grads.end())
      continue;
    if (failed(backward(op, it->second)))
      return failure();
  }
  SmallVector<Value> results;
  for (Value x : xs) {
    auto it = grads.find(x);
    if (it != grads.end()) {
      results.push_back(it->second);
      continue;
    }
    // y does not depend on x.
    auto zero = splatLike(x, 0.0);
    if (failed(zero))
      return failure();
    results.push_back(*zero);
  }
  return results;
}

FailureOr<SmallVector<Value>> mlir::ms::onnx_importer::importGradient(
    NodeContext &c, const llvm::StringMap<Value> &values) {
  const onnx::AttributeProto *yAttr = c.attr("y");
  const onnx::AttributeProto *xsAttr = c.attr("xs");
  if (!yAttr || !xsAttr)
    return c.error() << "expected attributes 'xs' and 'y'";
  if (c.attr("zs") && c.attr("zs")->strings_size() > 0)
    return c.error() << "attribute 'zs' is not supported";
  auto y = values.find(yAttr->s());
  if (y == values.end())
    return c.error() << "y names '" << yAttr->s()
                     << "', which no node, input or initializer defines";
  if (xsAttr->strings_size() != c.node.output_size())
    return c.error() << "expected one output per name in 'xs' ("
                     << xsAttr->strings_size() << "), but found "
                     << c.node.output_size();
  SmallVector<Value> xs;
  for (const std::string &name : xsAttr->strings()) {
    auto x = values.find(name);
    if (x == values.end())
      return c.error() << "xs names '" << name
                       << "', which no node, input or initializer defines";
    xs.push_back(x->second);
  }
  Differentiator d(c);
  return d.run(y->second, xs);
}
