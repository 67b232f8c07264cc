//===- Elementwise.cpp - elementwise msgraph ops to linalg ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Every elementwise op becomes one broadcasting `linalg.generic`; the scalar
// body is chosen per op and element type.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::detail;
namespace graph = mlir::ms::graph;

namespace {

/// Scalar helpers for float element types.
struct FloatMath {
  OpBuilder &b;
  Location loc;
  Type type;

  Value c(double v) const { return scalarConstant(b, loc, type, v); }
  Value add(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value div(Value x, Value y) const {
    return arith::DivFOp::create(b, loc, x, y);
  }
  Value max(Value x, Value y) const {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value min(Value x, Value y) const {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value select(Value c, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) const {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
};

/// Lowers a float-only unary op given its scalar function.
Value lowerFloatUnary(Operation *op, OpBuilder &b, Location loc, Value x) {
  FloatMath m{b, loc, x.getType()};
  if (isa<graph::SqrtOp>(op))
    return math::SqrtOp::create(b, loc, x);
  if (isa<graph::ReciprocalOp>(op))
    return m.div(m.c(1.0), x);
  if (isa<graph::ExpOp>(op))
    return math::ExpOp::create(b, loc, x);
  if (isa<graph::LogOp>(op))
    return math::LogOp::create(b, loc, x);
  if (isa<graph::ErfOp>(op))
    return math::ErfOp::create(b, loc, x);
  if (isa<graph::TanhOp>(op))
    return math::TanhOp::create(b, loc, x);
  if (isa<graph::SinOp>(op))
    return math::SinOp::create(b, loc, x);
  if (isa<graph::CosOp>(op))
    return math::CosOp::create(b, loc, x);
  if (isa<graph::TanOp>(op))
    return math::TanOp::create(b, loc, x);
  if (isa<graph::AsinOp>(op))
    return math::AsinOp::create(b, loc, x);
  if (isa<graph::AcosOp>(op))
    return math::AcosOp::create(b, loc, x);
  if (isa<graph::AtanOp>(op))
    return math::AtanOp::create(b, loc, x);
  if (isa<graph::SinhOp>(op))
    return math::SinhOp::create(b, loc, x);
  if (isa<graph::CoshOp>(op))
    return math::CoshOp::create(b, loc, x);
  if (isa<graph::AsinhOp>(op))
    return math::AsinhOp::create(b, loc, x);
  if (isa<graph::AcoshOp>(op))
    return math::AcoshOp::create(b, loc, x);
  if (isa<graph::AtanhOp>(op))
    return math::AtanhOp::create(b, loc, x);
  if (isa<graph::FloorOp>(op))
    return math::FloorOp::create(b, loc, x);
  if (isa<graph::CeilOp>(op))
    return math::CeilOp::create(b, loc, x);
  if (isa<graph::RoundOp>(op))
    return math::RoundEvenOp::create(b, loc, x);
  if (isa<graph::SigmoidOp>(op)) {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return m.div(m.c(1.0), m.add(m.c(1.0), e));
  }
  if (isa<graph::HardSwishOp>(op)) {
    Value t = m.add(m.mul(x, m.c(1.0 / 6.0)), m.c(0.5));
    return m.mul(x, m.max(m.c(0.0), m.min(m.c(1.0), t)));
  }
  if (auto gelu = dyn_cast<graph::GeluOp>(op)) {
    if (gelu.getApproximate() == "tanh") {
      Value x3 = m.mul(m.mul(x, x), x);
      Value inner = m.mul(m.c(std::sqrt(2.0 / M_PI)),
                          m.add(x, m.mul(m.c(0.044715), x3)));
      Value t = math::TanhOp::create(b, loc, inner);
      return m.mul(m.mul(m.c(0.5), x), m.add(m.c(1.0), t));
    }
    Value e = math::ErfOp::create(b, loc, m.mul(x, m.c(M_SQRT1_2)));
    return m.mul(m.mul(m.c(0.5), x), m.add(m.c(1.0), e));
  }
  if (auto leaky = dyn_cast<graph::LeakyReluOp>(op)) {
    Value neg = m.mul(x, m.c(leaky.getAlpha().convertToDouble()));
    return m.select(m.cmp(arith::CmpFPredicate::OGE, x, m.c(0.0)), x, neg);
  }
  if (auto hs = dyn_cast<graph::HardSigmoidOp>(op)) {
    Value t = m.add(m.mul(x, m.c(hs.getAlpha().convertToDouble())),
                    m.c(hs.getBeta().convertToDouble()));
    return m.max(m.c(0.0), m.min(m.c(1.0), t));
  }
  llvm_unreachable("not a float unary op");
}

/// Lowers a unary op that accepts integers too.
Value lowerNumericUnary(Operation *op, OpBuilder &b, Location loc, Value x,
                        bool isUnsigned) {
  Type type = x.getType();
  bool isFloat = isa<FloatType>(type);
  Value zero = scalarConstant(b, loc, type, 0.0);
  if (isa<graph::NegOp>(op))
    return isFloat ? Value(arith::NegFOp::create(b, loc, x))
                   : Value(arith::SubIOp::create(b, loc, zero, x));
  if (isa<graph::AbsOp>(op)) {
    if (isFloat)
      return math::AbsFOp::create(b, loc, x);
    return isUnsigned ? x : Value(math::AbsIOp::create(b, loc, x));
  }
  if (isa<graph::ReluOp>(op))
    return maxScalar(b, loc, x, zero, isUnsigned);
  if (isa<graph::NotOp>(op)) {
    auto allOnes = APInt::getAllOnes(type.getIntOrFloatBitWidth());
    return arith::XOrIOp::create(
        b, loc, x,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, allOnes)));
  }
  if (auto clip = dyn_cast<graph::ClipOp>(op)) {
    Value r = x;
    if (auto lo = clip.getMin())
      r = maxScalar(b, loc, r, scalarConstant(b, loc, type, lo->convertToDouble()),
                    isUnsigned);
    if (auto hi = clip.getMax())
      r = minScalar(b, loc, r, scalarConstant(b, loc, type, hi->convertToDouble()),
                    isUnsigned);
    return r;
  }
  return lowerFloatUnary(op, b, loc, x);
}

/// A shift whose amount, read as unsigned, may reach the bit width: such a
/// shift moves every bit out (0, or -1 for an arithmetic right shift of a
/// negative value) instead of arith's poison.
static Value shift(OpBuilder &b, Location loc, Value x, Value amount,
                   bool left, bool isUnsigned) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Value widthValue = scalarConstant(b, loc, type, width);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        amount, widthValue);
  Value shifted, allOut;
  if (left) {
    shifted = arith::ShLIOp::create(b, loc, x, amount);
    allOut = scalarConstant(b, loc, type, 0.0);
  } else if (isUnsigned) {
    shifted = arith::ShRUIOp::create(b, loc, x, amount);
    allOut = scalarConstant(b, loc, type, 0.0);
  } else {
    shifted = arith::ShRSIOp::create(b, loc, x, amount);
    allOut = arith::ShRSIOp::create(b, loc, x,
                                    scalarConstant(b, loc, type, width - 1));
  }
  return arith::SelectOp::create(b, loc, inRange, shifted, allOut);
}

/// Integer division that never traps: x / 0 is 0 (as NumPy gives) and, for
/// signed types, MIN / -1 is MIN (two's complement wrap-around). A plain
/// arith.divsi/divui would raise SIGFPE on x86 for either.
static Value integerDivide(OpBuilder &b, Location loc, Value x, Value y,
                           bool isUnsigned) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto constant = [&](const APInt &value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
  };
  Value zero = constant(APInt::getZero(width));
  Value one = constant(APInt(width, 1));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  Value unsafe = byZero;
  if (!isUnsigned) {
    Value min = constant(APInt::getSignedMinValue(width));
    Value minusOne = constant(APInt::getAllOnes(width));
    Value overflow = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, min),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, minusOne));
    unsafe = arith::OrIOp::create(b, loc, byZero, overflow);
  }
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, y);
  Value quotient =
      isUnsigned ? Value(arith::DivUIOp::create(b, loc, x, divisor))
                 : Value(arith::DivSIOp::create(b, loc, x, divisor));
  // x / 1 already gives MIN for the overflow case; only x / 0 needs fixing.
  return arith::SelectOp::create(b, loc, byZero, zero, quotient);
}

/// The remainder of x / y: truncating (C's fmod) or, with `floor`, with the
/// sign of y (NumPy's %). Integer x % 0 (and MIN % -1) is 0, never a trap.
static Value remainder(OpBuilder &b, Location loc, Value x, Value y,
                       bool isUnsigned, bool floor) {
  Type type = x.getType();
  Value zero = scalarConstant(b, loc, type, 0.0);
  Value r;
  if (isa<FloatType>(type)) {
    r = arith::RemFOp::create(b, loc, x, y);
    if (!floor)
      return r;
    Value nonZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE, r, zero);
    Value signsDiffer = arith::XOrIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, r, zero),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, y, zero));
    Value fix = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
    return arith::SelectOp::create(b, loc, fix,
                                   arith::AddFOp::create(b, loc, r, y), r);
  }
  unsigned width = cast<IntegerType>(type).getWidth();
  auto constant = [&](const APInt &v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  };
  Value one = constant(APInt(width, 1));
  Value unsafe =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y, zero);
  if (!isUnsigned)
    unsafe = arith::OrIOp::create(
        b, loc, unsafe,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, y,
                              constant(APInt::getAllOnes(width))));
  // x % 1 is 0, which is the answer for both unsafe cases.
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, y);
  r = isUnsigned ? Value(arith::RemUIOp::create(b, loc, x, divisor))
                 : Value(arith::RemSIOp::create(b, loc, x, divisor));
  if (isUnsigned || !floor)
    return r;
  Value nonZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r, zero);
  Value signsDiffer = arith::XOrIOp::create(
      b, loc, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, y, zero));
  Value fix = arith::AndIOp::create(b, loc, nonZero, signsDiffer);
  return arith::SelectOp::create(b, loc, fix,
                                 arith::AddIOp::create(b, loc, r, y), r);
}

/// Lowers a broadcasting binary op.
Value lowerBinary(Operation *op, OpBuilder &b, Location loc, Value x, Value y,
                  bool isUnsigned) {
  Type type = x.getType();
  bool isFloat = isa<FloatType>(type);
  if (isa<graph::AddOp>(op))
    return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                   : Value(arith::AddIOp::create(b, loc, x, y));
  if (isa<graph::SubOp>(op))
    return isFloat ? Value(arith::SubFOp::create(b, loc, x, y))
                   : Value(arith::SubIOp::create(b, loc, x, y));
  if (isa<graph::MulOp>(op))
    return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                   : Value(arith::MulIOp::create(b, loc, x, y));
  if (isa<graph::DivOp>(op)) {
    if (isFloat)
      return arith::DivFOp::create(b, loc, x, y);
    return integerDivide(b, loc, x, y, isUnsigned);
  }
  if (isa<graph::ModOp, graph::FModOp>(op))
    return remainder(b, loc, x, y, isUnsigned, isa<graph::ModOp>(op));
  if (isa<graph::PowOp>(op))
    return math::PowFOp::create(b, loc, x, y);
  if (isa<graph::MaxOp>(op))
    return maxScalar(b, loc, x, y, isUnsigned);
  if (isa<graph::MinOp>(op))
    return minScalar(b, loc, x, y, isUnsigned);
  if (isa<graph::AndOp>(op))
    return arith::AndIOp::create(b, loc, x, y);
  if (isa<graph::OrOp>(op))
    return arith::OrIOp::create(b, loc, x, y);
  if (isa<graph::XorOp>(op))
    return arith::XOrIOp::create(b, loc, x, y);
  if (isa<graph::ShiftLeftOp, graph::ShiftRightOp>(op))
    return shift(b, loc, x, y, isa<graph::ShiftLeftOp>(op), isUnsigned);
  if (isa<graph::PReluOp>(op)) {
    Value zero = scalarConstant(b, loc, type, 0.0);
    Value isNeg =
        isFloat ? Value(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                              x, zero))
                : Value(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                              x, zero));
    Value scaled = isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                           : Value(arith::MulIOp::create(b, loc, x, y));
    return arith::SelectOp::create(b, loc, isNeg, scaled, x);
  }
  // Comparisons.
  struct Preds {
    arith::CmpFPredicate f;
    arith::CmpIPredicate s, u;
  };
  Preds p;
  if (isa<graph::EqualOp>(op))
    p = {arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
         arith::CmpIPredicate::eq};
  else if (isa<graph::LessOp>(op))
    p = {arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
         arith::CmpIPredicate::ult};
  else if (isa<graph::LessEqualOp>(op))
    p = {arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle,
         arith::CmpIPredicate::ule};
  else if (isa<graph::GreaterOp>(op))
    p = {arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
         arith::CmpIPredicate::ugt};
  else if (isa<graph::GreaterEqualOp>(op))
    p = {arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge,
         arith::CmpIPredicate::uge};
  else
    llvm_unreachable("not a binary op");
  if (isFloat)
    return arith::CmpFOp::create(b, loc, p.f, x, y);
  return arith::CmpIOp::create(b, loc, isUnsigned ? p.u : p.s, x, y);
}

/// One pattern for every elementwise op: the scalar body is picked from the
/// op kind.
template <typename OpTy>
struct ElementwiseToLinalg final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType =
        convertTensorType(*this->getTypeConverter(), op.getType());
    Operation *raw = op.getOperation();
    // Signedness comes from the source operand type (the value operands of
    // where).
    Value signSource = raw->getOperand(raw->getNumOperands() - 1);
    bool isUnsigned = isUnsignedElement(signSource.getType());
    bool srcUnsigned = isUnsignedElement(raw->getOperand(0).getType());
    bool dstUnsigned = isUnsignedElement(op.getType());
    Value result = buildElementwise(
        rewriter, loc, adaptor.getOperands(), resultType.getShape(),
        resultType.getElementType(),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          if (isa<graph::WhereOp>(raw))
            return arith::SelectOp::create(b, l, args[0], args[1], args[2]);
          if (isa<graph::CastOp>(raw))
            return convertScalar(b, l, args[0], resultType.getElementType(),
                                 srcUnsigned, dstUnsigned);
          if (args.size() == 2)
            return lowerBinary(raw, b, l, args[0], args[1], isUnsigned);
          return lowerNumericUnary(raw, b, l, args[0], isUnsigned);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// identity -> its operand.
struct IdentityToOperand final : OpConversionPattern<graph::IdentityOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::IdentityOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

} // namespace

void mlir::ms::populateGraphElementwiseToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      // Unary.
      ElementwiseToLinalg<graph::NegOp>, ElementwiseToLinalg<graph::AbsOp>,
      ElementwiseToLinalg<graph::SqrtOp>,
      ElementwiseToLinalg<graph::ReciprocalOp>,
      ElementwiseToLinalg<graph::ExpOp>, ElementwiseToLinalg<graph::LogOp>,
      ElementwiseToLinalg<graph::ErfOp>, ElementwiseToLinalg<graph::TanhOp>,
      ElementwiseToLinalg<graph::SigmoidOp>,
      ElementwiseToLinalg<graph::ReluOp>, ElementwiseToLinalg<graph::NotOp>,
      ElementwiseToLinalg<graph::HardSwishOp>,
      ElementwiseToLinalg<graph::GeluOp>,
      ElementwiseToLinalg<graph::LeakyReluOp>,
      ElementwiseToLinalg<graph::HardSigmoidOp>,
      ElementwiseToLinalg<graph::SinOp>, ElementwiseToLinalg<graph::CosOp>,
      ElementwiseToLinalg<graph::TanOp>, ElementwiseToLinalg<graph::AsinOp>,
      ElementwiseToLinalg<graph::AcosOp>, ElementwiseToLinalg<graph::AtanOp>,
      ElementwiseToLinalg<graph::SinhOp>, ElementwiseToLinalg<graph::CoshOp>,
      ElementwiseToLinalg<graph::AsinhOp>,
      ElementwiseToLinalg<graph::AcoshOp>,
      ElementwiseToLinalg<graph::AtanhOp>,
      ElementwiseToLinalg<graph::FloorOp>, ElementwiseToLinalg<graph::CeilOp>,
      ElementwiseToLinalg<graph::RoundOp>,
      ElementwiseToLinalg<graph::ClipOp>, ElementwiseToLinalg<graph::CastOp>,
      // Binary and comparisons.
      ElementwiseToLinalg<graph::AddOp>, ElementwiseToLinalg<graph::SubOp>,
      ElementwiseToLinalg<graph::MulOp>, ElementwiseToLinalg<graph::DivOp>,
      ElementwiseToLinalg<graph::ModOp>, ElementwiseToLinalg<graph::FModOp>,
      ElementwiseToLinalg<graph::PowOp>, ElementwiseToLinalg<graph::MaxOp>,
      ElementwiseToLinalg<graph::MinOp>, ElementwiseToLinalg<graph::PReluOp>,
      ElementwiseToLinalg<graph::AndOp>, ElementwiseToLinalg<graph::OrOp>,
      ElementwiseToLinalg<graph::XorOp>,
      ElementwiseToLinalg<graph::ShiftLeftOp>,
      ElementwiseToLinalg<graph::ShiftRightOp>,
      ElementwiseToLinalg<graph::EqualOp>, ElementwiseToLinalg<graph::LessOp>,
      ElementwiseToLinalg<graph::LessEqualOp>,
      ElementwiseToLinalg<graph::GreaterOp>,
      ElementwiseToLinalg<graph::GreaterEqualOp>,
      ElementwiseToLinalg<graph::WhereOp>, IdentityToOperand>(converter, ctx);
}


