//===- ElementwiseOps.cpp - ONNX elementwise ops to msgraph ---------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include <limits>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;


template <typename OpTy>
static Handler unary() {
  return [](NodeContext &c) -> Results {
    return one(c.create<OpTy>(c.inputType(0), c.input(0)));
  };
}

template <typename OpTy>
static Handler binary() {
  return [](NodeContext &c) -> Results {
    return one(c.create<OpTy>(Type(), c.input(0), c.input(1)));
  };
}

/// Sum, Max, Min, Mean over any number of inputs, folded pairwise.
template <typename OpTy>
static Handler variadic(bool mean = false) {
  return [mean](NodeContext &c) -> Results {
    if (c.numInputs() == 0)
      return c.error() << "expected at least one input";
    Value acc = c.input(0);
    for (unsigned i = 1; i < c.numInputs(); ++i) {
      auto next = c.create<OpTy>(Type(), acc, c.input(i));
      if (failed(next))
        return failure();
      acc = *next;
    }
    if (mean && c.numInputs() > 1) {
      Type elem = cast<RankedTensorType>(acc.getType()).getElementType();
      auto n = DenseElementsAttr::get(
          RankedTensorType::get({}, elem),
          c.b.getFloatAttr(elem, (double)c.numInputs()));
      return one(c.create<graph::DivOp>(Type(), acc, c.constant(n)));
    }
    return SmallVector<Value>{acc};
  };
}

/// Casts `v` to element type `elem` when it differs.
/// Sign: where(x > 0, 1, where(x < 0, -1, x)); x itself keeps 0 and NaN.
static Results convertSign(NodeContext &c) {
  Value x = c.input(0);
  Type elem = c.inputType(0).getElementType();
  Value zero = scalar(c, elem, 0);
  auto positive = c.create<graph::GreaterOp>(Type(), x, zero);
  auto negative = c.create<graph::LessOp>(Type(), x, zero);
  if (failed(positive) || failed(negative))
    return failure();
  bool isUnsigned = elem.isUnsignedInteger();
  Value minusOne = isUnsigned ? zero : scalar(c, elem, -1);
  auto lower = c.create<graph::WhereOp>(Type(), *negative, minusOne, x);
  if (failed(lower))
    return failure();
  return one(c.create<graph::WhereOp>(Type(), *positive,
                                      scalar(c, elem, 1), *lower));
}

/// Shrink: x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
static Results convertShrink(NodeContext &c) {
  Value x = c.input(0);
  Type elem = c.inputType(0).getElementType();
  double lambd = c.getFloat("lambd", 0.5f);
  double bias = c.getFloat("bias", 0.0f);
  auto below = c.create<graph::LessOp>(Type(), x, scalar(c, elem, -lambd));
  auto above = c.create<graph::GreaterOp>(Type(), x, scalar(c, elem, lambd));
  auto plus = c.create<graph::AddOp>(Type(), x, scalar(c, elem, bias));
  auto minus = c.create<graph::SubOp>(Type(), x, scalar(c, elem, bias));
  if (failed(below) || failed(above) || failed(plus) || failed(minus))
    return failure();
  auto upper =
      c.create<graph::WhereOp>(Type(), *above, *minus, scalar(c, elem, 0));
  if (failed(upper))
    return failure();
  return one(c.create<graph::WhereOp>(Type(), *below, *plus, *upper));
}

/// Softsign: x / (1 + |x|).
static Results convertSoftsign(NodeContext &c) {
  Value x = c.input(0);
  Type elem = c.inputType(0).getElementType();
  auto magnitude = c.create<graph::AbsOp>(c.inputType(0), x);
  if (failed(magnitude))
    return failure();
  auto denominator =
      c.create<graph::AddOp>(Type(), *magnitude, scalar(c, elem, 1));
  if (failed(denominator))
    return failure();
  return one(c.create<graph::DivOp>(Type(), x, *denominator));
}

//===----------------------------------------------------------------------===//
// Activations as compositions, in the order of ONNX's reference
// implementations so that roundings match
//===----------------------------------------------------------------------===//

/// Elu: x > 0 ? x : alpha * (exp(x) - 1).
static Results convertElu(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  Value expm1 = m.binary<graph::SubOp>(m.unary<graph::ExpOp>(x),
                                       m.scalarLike(x, 1));
  Value negative = m.binary<graph::MulOp>(
      expm1, m.scalarLike(x, c.getFloat("alpha", 1.0f)));
  return m.result(m.where(
      m.binary<graph::GreaterOp>(x, m.scalarLike(x, 0)), x, negative));
}

/// Selu: max(x, 0) * gamma + (exp(min(x, 0)) - 1) * alpha * gamma.
static Results convertSelu(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  Value zero = m.scalarLike(x, 0);
  Value gamma = m.scalarLike(x, c.getFloat("gamma", 1.05070102214813232421875f));
  Value alpha = m.scalarLike(x, c.getFloat("alpha", 1.67326319217681884765625f));
  Value positive = m.binary<graph::MulOp>(m.binary<graph::MaxOp>(x, zero), gamma);
  Value expm1 = m.binary<graph::SubOp>(
      m.unary<graph::ExpOp>(m.binary<graph::MinOp>(x, zero)),
      m.scalarLike(x, 1));
  Value negative = m.binary<graph::MulOp>(m.binary<graph::MulOp>(expm1, alpha),
                                          gamma);
  return m.result(m.binary<graph::AddOp>(positive, negative));
}

/// Celu: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
static Results convertCelu(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  Value zero = m.scalarLike(x, 0);
  Value alpha = m.scalarLike(x, c.getFloat("alpha", 1.0f));
  Value expm1 = m.binary<graph::SubOp>(
      m.unary<graph::ExpOp>(m.binary<graph::DivOp>(x, alpha)),
      m.scalarLike(x, 1));
  return m.result(m.binary<graph::AddOp>(
      m.binary<graph::MaxOp>(x, zero),
      m.binary<graph::MinOp>(m.binary<graph::MulOp>(alpha, expm1), zero)));
}

/// Softplus: log(exp(x) + 1).
static Results convertSoftplus(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  return m.result(m.unary<graph::LogOp>(m.binary<graph::AddOp>(
      m.unary<graph::ExpOp>(x), m.scalarLike(x, 1))));
}

/// ThresholdedRelu: x > alpha ? x : 0.
static Results convertThresholdedRelu(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  Value above =
      m.binary<graph::GreaterOp>(x, m.scalarLike(x, c.getFloat("alpha", 1.0f)));
  return m.result(m.where(above, x, m.scalarLike(x, 0)));
}

/// Mish: x * tanh(log(1 + exp(x))).
static Results convertMish(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  Value softplus = m.unary<graph::LogOp>(
      m.binary<graph::AddOp>(m.unary<graph::ExpOp>(x), m.scalarLike(x, 1)));
  return m.result(
      m.binary<graph::MulOp>(x, m.unary<graph::TanhOp>(softplus)));
}

/// Swish: x * sigmoid(alpha * x).
static Results convertSwish(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  Value scaled =
      m.binary<graph::MulOp>(x, m.scalarLike(x, c.getFloat("alpha", 1.0f)));
  return m.result(
      m.binary<graph::MulOp>(x, m.unary<graph::SigmoidOp>(scaled)));
}

/// IsNaN: x != x.
static Results convertIsNaN(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  return m.result(m.unary<graph::NotOp>(m.binary<graph::EqualOp>(x, x)));
}

/// IsInf: x == +inf (detect_positive) or x == -inf (detect_negative).
static Results convertIsInf(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  bool positive = c.getInt("detect_positive", 1) != 0;
  bool negative = c.getInt("detect_negative", 1) != 0;
  double inf = std::numeric_limits<double>::infinity();
  Value isPositive = m.binary<graph::EqualOp>(x, m.scalarLike(x, inf));
  Value isNegative = m.binary<graph::EqualOp>(x, m.scalarLike(x, -inf));
  if (positive && negative)
    return m.result(m.binary<graph::OrOp>(isPositive, isNegative));
  if (positive)
    return m.result(isPositive);
  if (negative)
    return m.result(isNegative);
  // Neither: all false.
  return m.result(m.binary<graph::AndOp>(isPositive, isNegative));
}

/// BitShift: direction "LEFT" or "RIGHT" (on unsigned types, so logical).
static Results convertBitShift(NodeContext &c) {
  std::string direction = c.getString("direction", "");
  if (direction == "LEFT")
    return one(
        c.create<graph::ShiftLeftOp>(Type(), c.input(0), c.input(1)));
  if (direction == "RIGHT")
    return one(
        c.create<graph::ShiftRightOp>(Type(), c.input(0), c.input(1)));
  c.error() << "expected attribute 'direction' to be \"LEFT\" or \"RIGHT\", "
               "but found \""
            << direction << "\"";
  return failure();
}

void mlir::ms::onnx_importer::populateElementwiseOps(OpTable &t) {
  t.onOp("Elu", 6, convertElu);
  t.onOp("Selu", 6, convertSelu);
  t.onOp("Celu", 12, convertCelu);
  t.onOp("Softplus", 1, convertSoftplus);
  t.onOp("ThresholdedRelu", 10, convertThresholdedRelu);
  t.onOp("Mish", 18, convertMish);
  t.onOp("Swish", 24, convertSwish);
  t.onOp("IsNaN", 9, convertIsNaN);
  t.onOp("IsInf", 10, convertIsInf);
  t.onOp("Xor", 7, binary<graph::XorOp>());
  t.onOp("BitwiseAnd", 18, binary<graph::AndOp>());
  t.onOp("BitwiseOr", 18, binary<graph::OrOp>());
  t.onOp("BitwiseXor", 18, binary<graph::XorOp>());
  t.onOp("BitwiseNot", 18, unary<graph::NotOp>());
  t.onOp("BitShift", 11, convertBitShift);
  t.onOp("Sin", 7, unary<graph::SinOp>());
  t.onOp("Cos", 7, unary<graph::CosOp>());
  t.onOp("Tan", 7, unary<graph::TanOp>());
  t.onOp("Asin", 7, unary<graph::AsinOp>());
  t.onOp("Acos", 7, unary<graph::AcosOp>());
  t.onOp("Atan", 7, unary<graph::AtanOp>());
  t.onOp("Sinh", 9, unary<graph::SinhOp>());
  t.onOp("Cosh", 9, unary<graph::CoshOp>());
  t.onOp("Asinh", 9, unary<graph::AsinhOp>());
  t.onOp("Acosh", 9, unary<graph::AcoshOp>());
  t.onOp("Atanh", 9, unary<graph::AtanhOp>());
  t.onOp("Floor", 6, unary<graph::FloorOp>());
  t.onOp("Ceil", 6, unary<graph::CeilOp>());
  t.onOp("Round", 11, unary<graph::RoundOp>());
  t.onOp("Abs", 6, unary<graph::AbsOp>());
  t.onOp("Neg", 6, unary<graph::NegOp>());
  t.onOp("Sqrt", 6, unary<graph::SqrtOp>());
  t.onOp("Reciprocal", 6, unary<graph::ReciprocalOp>());
  t.onOp("Exp", 6, unary<graph::ExpOp>());
  t.onOp("Log", 6, unary<graph::LogOp>());
  t.onOp("Erf", 9, unary<graph::ErfOp>());
  t.onOp("Tanh", 6, unary<graph::TanhOp>());
  t.onOp("Sigmoid", 6, unary<graph::SigmoidOp>());
  t.onOp("Relu", 6, unary<graph::ReluOp>());
  t.onOp("Not", 1, unary<graph::NotOp>());
  t.onOp("HardSwish", 14, unary<graph::HardSwishOp>());
  t.onOp("Identity", 1, [](NodeContext &c) -> Results {
    // A string tensor passes through: no kernel can copy one.
    if (isStringTensor(c.input(0)))
      return SmallVector<Value>{c.input(0)};
    return one(c.create<graph::IdentityOp>(c.inputType(0), c.input(0)));
  });

  t.onOp("Add", 7, binary<graph::AddOp>());
  t.onOp("Sub", 7, binary<graph::SubOp>());
  t.onOp("Mul", 7, binary<graph::MulOp>());
  t.onOp("Div", 7, binary<graph::DivOp>());
  t.onOp("PRelu", 7, binary<graph::PReluOp>());
  t.onOp("And", 7, binary<graph::AndOp>());
  t.onOp("Or", 7, binary<graph::OrOp>());
  t.onOp("Equal", 7, [](NodeContext &c) -> Results {
    if (isStringTensor(c.input(0)) || isStringTensor(c.input(1)))
      return one(
          c.create<graph::StringEqualOp>(Type(), c.input(0), c.input(1)));
    return binary<graph::EqualOp>()(c);
  });
  t.onOp("Less", 7, binary<graph::LessOp>());
  t.onOp("LessOrEqual", 12, binary<graph::LessEqualOp>());
  t.onOp("Greater", 7, binary<graph::GreaterOp>());
  t.onOp("GreaterOrEqual", 12, binary<graph::GreaterEqualOp>());
  t.onOp("Mod", 10, [](NodeContext &c) -> Results {
    if (c.getInt("fmod", 0) != 0)
      return one(c.create<graph::FModOp>(Type(), c.input(0), c.input(1)));
    return one(c.create<graph::ModOp>(Type(), c.input(0), c.input(1)));
  });
  t.onOp("Sum", 6, variadic<graph::AddOp>());
  t.onOp("Mean", 6, variadic<graph::AddOp>(/*mean=*/true));
  t.onOp("Max", 6, variadic<graph::MaxOp>());
  t.onOp("Min", 6, variadic<graph::MinOp>());
  t.onOp("Sign", 9, convertSign);
  t.onOp("Shrink", 9, convertShrink);
  t.onOp("Softsign", 1, convertSoftsign);
  t.onOp("Where", 9, [](NodeContext &c) -> Results {
    return one(
        c.create<graph::WhereOp>(Type(), c.input(0), c.input(1), c.input(2)));
  });
  // The exponent may have another numeric type than the base.
  t.onOp("Pow", 7, [](NodeContext &c) -> Results {
    auto exponent =
        castTo(c, c.input(1), c.inputType(0).getElementType());
    if (failed(exponent))
      return failure();
    Type elem = c.inputType(0).getElementType();
    if (isa<FloatType>(elem))
      return one(c.create<graph::PowOp>(Type(), c.input(0), *exponent));
    // Integer powers are computed in f64 and converted back.
    auto base = castTo(c, c.input(0), c.b.getF64Type());
    auto exp64 = castTo(c, *exponent, c.b.getF64Type());
    if (failed(base) || failed(exp64))
      return failure();
    auto power = c.create<graph::PowOp>(Type(), *base, *exp64);
    if (failed(power))
      return failure();
    return one(castTo(c, *power, elem));
  });

  t.onOp("Cast", 6, [](NodeContext &c) -> Results {
    Type elem = convertElementType(c.b.getContext(), c.getInt("to", 0), c.loc);
    if (!elem)
      return failure();
    return one(castTo(c, c.input(0), elem));
  });
  t.onOp("CastLike", 15, [](NodeContext &c) -> Results {
    return one(castTo(c, c.input(0), c.inputType(1).getElementType()));
  });

  t.onOp("LeakyRelu", 6, [](NodeContext &c) -> Results {
    return one(c.create<graph::LeakyReluOp>(
        c.inputType(0), c.input(0),
        c.b.getF32FloatAttr(c.getFloat("alpha", 0.01f))));
  });
  t.onOp("HardSigmoid", 6, [](NodeContext &c) -> Results {
    return one(c.create<graph::HardSigmoidOp>(
        c.inputType(0), c.input(0),
        c.b.getF32FloatAttr(c.getFloat("alpha", 0.2f)),
        c.b.getF32FloatAttr(c.getFloat("beta", 0.5f))));
  });
  t.onOp("Gelu", 20, [](NodeContext &c) -> Results {
    std::string approximate = c.getString("approximate", "none");
    return one(c.create<graph::GeluOp>(c.inputType(0), c.input(0),
                                       c.b.getStringAttr(approximate)));
  });
  // Clip: attributes before opset 11, optional inputs after. Constant bounds
  // become attributes; runtime bounds become max/min.
  t.onOp("Clip", 6, [](NodeContext &c) -> Results {
    return one(c.create<graph::ClipOp>(
        c.inputType(0), c.input(0),
        c.b.getF64FloatAttr(c.getFloat("min", -3.402823e38f)),
        c.b.getF64FloatAttr(c.getFloat("max", 3.402823e38f))));
  });
  t.onOp("Clip", 11, [](NodeContext &c) -> Results {
    Value x = c.input(0);
    auto bound = [&](unsigned i) -> std::optional<double> {
      DenseElementsAttr a = c.constantInput(i);
      if (!a || a.getNumElements() != 1)
        return std::nullopt;
      if (isa<FloatType>(a.getElementType()))
        return (*a.getValues<APFloat>().begin()).convertToDouble();
      return (double)(*a.getValues<APInt>().begin()).getSExtValue();
    };
    bool runtimeBound = (c.hasInput(1) && !bound(1)) ||
                        (c.hasInput(2) && !bound(2));
    if (!runtimeBound) {
      FloatAttr lo = c.hasInput(1) ? c.b.getF64FloatAttr(*bound(1)) : nullptr;
      FloatAttr hi = c.hasInput(2) ? c.b.getF64FloatAttr(*bound(2)) : nullptr;
      return one(c.create<graph::ClipOp>(c.inputType(0), x, lo, hi));
    }
    if (c.hasInput(1)) {
      auto r = c.create<graph::MaxOp>(Type(), x, c.input(1));
      if (failed(r))
        return failure();
      x = *r;
    }
    if (c.hasInput(2))
      return one(c.create<graph::MinOp>(Type(), x, c.input(2)));
    return SmallVector<Value>{x};
  });
}
