//===- GraphFolders.cpp - msgraph op folders ------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Folders evaluate ops whose operands are constants (so that greedy folding
// collapses whole constant subgraphs) and drop ops that do nothing (x + 0,
// identity transposes, reshapes to the same type, ...). Constants are
// unpacked into doubles (floating point, exact for every supported float
// type) or int64 (integers, with their signedness), evaluated, and packed
// back.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::ms::graph;

/// Constants with more elements than this are not folded (splats always are).
static constexpr int64_t kMaxFoldElements = int64_t(1) << 22;

namespace {
/// A constant tensor unpacked for evaluation.
struct Elements {
  RankedTensorType type;
  bool isFloat = false;
  bool isUnsigned = false;
  SmallVector<double> f;
  SmallVector<int64_t> i;

  int64_t size() const { return isFloat ? f.size() : i.size(); }
};
} // namespace

/// Returns the dense constant behind `attr` if it is small enough to fold
/// (a mapped constant's elements copied).
static DenseElementsAttr getFoldable(Attribute attr) {
  if (auto mapped = dyn_cast_if_present<MappedElementsAttr>(attr))
    return mapped.getType().getNumElements() <= kMaxFoldElements
               ? mapped.materialize()
               : nullptr;
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || !dense.getType().hasStaticShape())
    return nullptr;
  if (!dense.isSplat() && dense.getNumElements() > kMaxFoldElements)
    return nullptr;
  return dense;
}

static std::optional<Elements> unpack(Attribute attr) {
  DenseElementsAttr dense = getFoldable(attr);
  if (!dense)
    return std::nullopt;
  Elements e;
  e.type = cast<RankedTensorType>(dense.getType());
  Type elem = e.type.getElementType();
  int64_t n = e.type.getNumElements();
  if (n > kMaxFoldElements)
    return std::nullopt;
  if (isa<FloatType>(elem)) {
    e.isFloat = true;
    e.f.reserve(n);
    if (dense.isSplat()) {
      e.f.assign(n, dense.getSplatValue<APFloat>().convertToDouble());
    } else {
      for (const APFloat &v : dense.getValues<APFloat>())
        e.f.push_back(v.convertToDouble());
    }
    return e;
  }
  auto intType = dyn_cast<IntegerType>(elem);
  if (!intType)
    return std::nullopt;
  e.isUnsigned = intType.isUnsigned() || intType.getWidth() == 1;
  auto toInt = [&](const APInt &v) {
    return e.isUnsigned ? (int64_t)v.getZExtValue() : v.getSExtValue();
  };
  e.i.reserve(n);
  if (dense.isSplat()) {
    e.i.assign(n, toInt(dense.getSplatValue<APInt>()));
  } else {
    for (const APInt &v : dense.getValues<APInt>())
      e.i.push_back(toInt(v));
  }
  return e;
}

static APFloat toAPFloat(double v, FloatType type) {
  APFloat value(v);
  bool losesInfo;
  value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value;
}

/// Packs doubles or integers into a dense attribute of `type`.
static DenseElementsAttr pack(RankedTensorType type, ArrayRef<double> f,
                              ArrayRef<int64_t> i) {
  Type elem = type.getElementType();
  if (auto floatType = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> values;
    values.reserve(type.getNumElements());
    if (!f.empty()) {
      for (double v : f)
        values.push_back(toAPFloat(v, floatType));
    } else {
      for (int64_t v : i)
        values.push_back(toAPFloat((double)v, floatType));
    }
    return DenseElementsAttr::get(type, values);
  }
  unsigned width = cast<IntegerType>(elem).getWidth();
  SmallVector<APInt> values;
  values.reserve(type.getNumElements());
  if (!i.empty() || f.empty()) {
    for (int64_t v : i)
      values.push_back(width == 1 ? APInt(1, v != 0)
                                  : APInt(width, (uint64_t)v, /*isSigned=*/true,
                                          /*implicitTrunc=*/true));
  } else {
    for (double v : f)
      values.push_back(APInt(width, (uint64_t)(int64_t)v, /*isSigned=*/true,
                             /*implicitTrunc=*/true));
  }
  return DenseElementsAttr::get(type, values);
}

static DenseElementsAttr pack(RankedTensorType type, const Elements &e) {
  return pack(type, e.isFloat ? ArrayRef<double>(e.f) : ArrayRef<double>(),
              e.isFloat ? ArrayRef<int64_t>() : ArrayRef<int64_t>(e.i));
}

/// Returns a permuted copy of `e` where output element k is input element
/// `map[k]`, with the given result type.
static Elements gatherElements(const Elements &e, ArrayRef<int64_t> map,
                               RankedTensorType type) {
  Elements out;
  out.type = type;
  out.isFloat = e.isFloat;
  out.isUnsigned = e.isUnsigned;
  if (e.isFloat) {
    out.f.reserve(map.size());
    for (int64_t k : map)
      out.f.push_back(e.f[k]);
  } else {
    out.i.reserve(map.size());
    for (int64_t k : map)
      out.i.push_back(e.i[k]);
  }
  return out;
}

static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `fn(outIndex, multiIndex)` for every element of `shape` in
/// row-major order.
template <typename Fn>
static void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = ShapedType::getNumElements(shape);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(k, ArrayRef<int64_t>(index));
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

/// Maps each element of `outShape` to the element of `inShape` it reads under
/// numpy broadcasting.
static SmallVector<int64_t> broadcastMap(ArrayRef<int64_t> inShape,
                                         ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape);
  int64_t offset = outShape.size() - inShape.size();
  SmallVector<int64_t> map;
  map.reserve(ShapedType::getNumElements(outShape));
  forEachIndex(outShape, [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t linear = 0;
    for (size_t d = 0; d < inShape.size(); ++d)
      if (inShape[d] != 1)
        linear += idx[d + offset] * inStrides[d];
    map.push_back(linear);
  });
  return map;
}

/// True if `type` is a static tensor of at most kMaxFoldElements elements,
/// counted without overflow (a result type's dims can multiply past int64).
static bool isStaticTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return false;
  if (llvm::is_contained(tensor.getShape(), 0))
    return true;
  int64_t count = 1;
  for (int64_t dim : tensor.getShape()) {
    if (dim < 0 || dim > kMaxFoldElements / count)
      return false;
    count *= dim;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto input = cast<RankedTensorType>(getInput().getType());
  if (!input.hasStaticShape())
    return {};
  auto type = cast<RankedTensorType>(getType());
  return DenseElementsAttr::get(type, input.getShape());
}

OpFoldResult ConstantOfShapeOp::fold(FoldAdaptor adaptor) {
  auto type = cast<RankedTensorType>(getType());
  if (!type.hasStaticShape())
    return {};
  return DenseElementsAttr::get(type, getValue());
}

OpFoldResult RangeOp::fold(FoldAdaptor adaptor) {
  auto start = unpack(adaptor.getStart());
  auto limit = unpack(adaptor.getLimit());
  auto delta = unpack(adaptor.getDelta());
  auto type = cast<RankedTensorType>(getType());
  if (!start || !limit || !delta)
    return {};
  double s = start->isFloat ? start->f[0] : (double)start->i[0];
  double l = limit->isFloat ? limit->f[0] : (double)limit->i[0];
  double d = delta->isFloat ? delta->f[0] : (double)delta->i[0];
  if (d == 0)
    return {};
  // The count as a double first: a huge or NaN count is no int64.
  double count = std::ceil((l - s) / d);
  if (!(count <= static_cast<double>(kMaxFoldElements)))
    return {};
  int64_t n = count < 0 ? 0 : static_cast<int64_t>(count);
  if (n > kMaxFoldElements ||
      (!type.isDynamicDim(0) && type.getDimSize(0) != n))
    return {};
  auto resultType = RankedTensorType::get({n}, type.getElementType());
  if (resultType != type)
    return {};
  SmallVector<double> f;
  SmallVector<int64_t> i;
  for (int64_t k = 0; k < n; ++k) {
    if (start->isFloat)
      f.push_back(s + k * d);
    else
      i.push_back(start->i[0] + k * delta->i[0]);
  }
  return pack(type, f, i);
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

/// Folds a float unary op with a constant operand.
template <typename Fn>
static OpFoldResult foldFloatUnary(Attribute operand, Type resultType, Fn fn) {
  auto e = unpack(operand);
  if (!e || !e->isFloat || e->type != resultType)
    return {};
  for (double &v : e->f)
    v = fn(v);
  return pack(e->type, *e);
}

/// Folds a unary op on any element type with `ff` for floats and `fi` for
/// integers.
template <typename FF, typename FI>
static OpFoldResult foldUnary(Attribute operand, Type resultType, FF ff,
                              FI fi) {
  auto e = unpack(operand);
  if (!e || e->type != resultType)
    return {};
  if (e->isFloat) {
    for (double &v : e->f)
      v = ff(v);
  } else {
    for (int64_t &v : e->i)
      v = fi(v, e->isUnsigned);
  }
  return pack(e->type, *e);
}

OpFoldResult IdentityOp::fold(FoldAdaptor) { return getInput(); }

OpFoldResult NegOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(), [](double v) { return -v; },
      [](int64_t v, bool) { return (int64_t)(0 - (uint64_t)v); });
}

OpFoldResult AbsOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(), [](double v) { return std::fabs(v); },
      [](int64_t v, bool isUnsigned) {
        return isUnsigned || v >= 0 ? v : (int64_t)(0 - (uint64_t)v);
      });
}

OpFoldResult ReluOp::fold(FoldAdaptor adaptor) {
  return foldUnary(
      adaptor.getInput(), getType(),
      [](double v) { return v > 0 ? v : (std::isnan(v) ? v : 0.0); },
      [](int64_t v, bool) { return v > 0 ? v : 0; });
}

OpFoldResult NotOp::fold(FoldAdaptor adaptor) {
  bool isBool = getElementTypeOrSelf(getType()).isInteger(1);
  return foldUnary(
      adaptor.getInput(), getType(), [](double v) { return v; },
      [&](int64_t v, bool) -> int64_t { return isBool ? v == 0 : ~v; });
}

#define GRAPH_FLOAT_UNARY_FOLD(Op, Expr)                                       \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldFloatUnary(adaptor.getInput(), getType(),                       \
                          [&](double x) -> double { return Expr; });           \
  }

GRAPH_FLOAT_UNARY_FOLD(SqrtOp, std::sqrt(x))
GRAPH_FLOAT_UNARY_FOLD(ReciprocalOp, 1.0 / x)
GRAPH_FLOAT_UNARY_FOLD(ExpOp, std::exp(x))
GRAPH_FLOAT_UNARY_FOLD(LogOp, std::log(x))
GRAPH_FLOAT_UNARY_FOLD(ErfOp, std::erf(x))
GRAPH_FLOAT_UNARY_FOLD(TanhOp, std::tanh(x))
GRAPH_FLOAT_UNARY_FOLD(SinOp, std::sin(x))
GRAPH_FLOAT_UNARY_FOLD(CosOp, std::cos(x))
GRAPH_FLOAT_UNARY_FOLD(TanOp, std::tan(x))
GRAPH_FLOAT_UNARY_FOLD(AsinOp, std::asin(x))
GRAPH_FLOAT_UNARY_FOLD(AcosOp, std::acos(x))
GRAPH_FLOAT_UNARY_FOLD(AtanOp, std::atan(x))
GRAPH_FLOAT_UNARY_FOLD(SinhOp, std::sinh(x))
GRAPH_FLOAT_UNARY_FOLD(CoshOp, std::cosh(x))
GRAPH_FLOAT_UNARY_FOLD(AsinhOp, std::asinh(x))
GRAPH_FLOAT_UNARY_FOLD(AcoshOp, std::acosh(x))
GRAPH_FLOAT_UNARY_FOLD(AtanhOp, std::atanh(x))
GRAPH_FLOAT_UNARY_FOLD(FloorOp, std::floor(x))
GRAPH_FLOAT_UNARY_FOLD(CeilOp, std::ceil(x))
// Ties to even: the default (and only supported) floating-point environment
// rounds to nearest even.
GRAPH_FLOAT_UNARY_FOLD(RoundOp, std::nearbyint(x))
GRAPH_FLOAT_UNARY_FOLD(SigmoidOp, 1.0 / (1.0 + std::exp(-x)))
GRAPH_FLOAT_UNARY_FOLD(HardSwishOp,
                       x *std::max(0.0, std::min(1.0, x / 6.0 + 0.5)))
GRAPH_FLOAT_UNARY_FOLD(
    GeluOp, getApproximate() == "tanh"
                ? 0.5 * x *
                      (1.0 + std::tanh(std::sqrt(2.0 / M_PI) *
                                       (x + 0.044715 * x * x * x)))
                : 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))))
GRAPH_FLOAT_UNARY_FOLD(LeakyReluOp,
                       x >= 0 ? x : getAlpha().convertToDouble() * x)
GRAPH_FLOAT_UNARY_FOLD(HardSigmoidOp,
                       std::max(0.0, std::min(1.0, getAlpha().convertToDouble() *
                                                           x +
                                                       getBeta()
                                                           .convertToDouble())))

OpFoldResult ClipOp::fold(FoldAdaptor adaptor) {
  if (!getMin() && !getMax())
    return getInput();
  double lo = getMin() ? getMin()->convertToDouble() : -INFINITY;
  double hi = getMax() ? getMax()->convertToDouble() : INFINITY;
  return foldUnary(
      adaptor.getInput(), getType(),
      [&](double v) { return std::isnan(v) ? v : std::min(std::max(v, lo), hi); },
      [&](int64_t v, bool) {
        double d = std::min(std::max((double)v, lo), hi);
        return (int64_t)d;
      });
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto e = unpack(adaptor.getInput());
  auto type = cast<RankedTensorType>(getType());
  if (!e || !type.hasStaticShape())
    return {};
  Type elem = type.getElementType();
  if (isa<FloatType>(elem)) {
    if (!e->isFloat) {
      for (int64_t v : e->i)
        e->f.push_back(e->isUnsigned ? (double)(uint64_t)v : (double)v);
    }
    return pack(type, e->f, {});
  }
  auto intType = cast<IntegerType>(elem);
  SmallVector<int64_t> values;
  if (e->isFloat) {
    for (double v : e->f) {
      if (intType.getWidth() == 1) {
        values.push_back(v != 0);
        continue;
      }
      // Out-of-range and NaN conversions are undefined; refuse to fold them.
      if (std::isnan(v) || std::fabs(v) >= 9.2e18)
        return {};
      values.push_back((int64_t)v);
    }
  } else {
    for (int64_t v : e->i)
      values.push_back(intType.getWidth() == 1 ? (v != 0) : v);
  }
  return pack(type, {}, values);
}

//===----------------------------------------------------------------------===//
// Elementwise binary
//===----------------------------------------------------------------------===//

/// Evaluates a broadcasting binary op. `ff` computes floats, `fi` integers
/// (given the operands' signedness); both return doubles or int64 in the
/// result element kind.
template <typename FF, typename FI>
static OpFoldResult foldBinary(Attribute lhsAttr, Attribute rhsAttr,
                               Type resultType, FF ff, FI fi) {
  // (Both operands constant before either is unpacked: a mapped weight
  // beside a runtime operand is not copied.)
  if (!lhsAttr || !rhsAttr)
    return {};
  auto lhs = unpack(lhsAttr);
  auto rhs = unpack(rhsAttr);
  if (!lhs || !rhs || !isStaticTensor(resultType))
    return {};
  auto type = cast<RankedTensorType>(resultType);
  auto lmap = broadcastMap(lhs->type.getShape(), type.getShape());
  auto rmap = broadcastMap(rhs->type.getShape(), type.getShape());
  bool resultFloat = isa<FloatType>(type.getElementType());
  SmallVector<double> f;
  SmallVector<int64_t> i;
  for (size_t k = 0; k < lmap.size(); ++k) {
    if (lhs->isFloat) {
      double v = ff(lhs->f[lmap[k]], rhs->f[rmap[k]]);
      if (resultFloat)
        f.push_back(v);
      else
        i.push_back((int64_t)v);
    } else {
      std::optional<int64_t> v =
          fi(lhs->i[lmap[k]], rhs->i[rmap[k]], lhs->isUnsigned);
      if (!v)
        return {};
      i.push_back(*v);
    }
  }
  return pack(type, f, i);
}

/// Returns true if `attr` is a splat constant equal to `value`.
static bool isSplatOf(Attribute attr, double value) {
  auto dense = dyn_cast_if_present<DenseElementsAttr>(attr);
  if (!dense || !dense.isSplat())
    return false;
  Type elem = dense.getElementType();
  if (isa<FloatType>(elem))
    return dense.getSplatValue<APFloat>().convertToDouble() == value;
  if (isa<IntegerType>(elem))
    return (double)dense.getSplatValue<APInt>().getSExtValue() == value;
  return false;
}

/// Folds `x op c` to `x` when `c` is the identity splat and the result type
/// equals x's type (so that no broadcasting is lost).
static OpFoldResult foldRightIdentity(Value lhs, Attribute rhsAttr,
                                      Type resultType, double identity) {
  if (lhs.getType() == resultType && isSplatOf(rhsAttr, identity))
    return lhs;
  return {};
}

using OptInt = std::optional<int64_t>;

static int64_t wrapAdd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
static int64_t wrapSub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
static int64_t wrapMul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

OpFoldResult AddOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a + b; },
      [](int64_t a, int64_t b, bool) -> OptInt { return wrapAdd(a, b); });
}

OpFoldResult SubOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 0.0))
    return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a - b; },
      [](int64_t a, int64_t b, bool) -> OptInt { return wrapSub(a, b); });
}

OpFoldResult MulOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a * b; },
      [](int64_t a, int64_t b, bool) -> OptInt { return wrapMul(a, b); });
}

OpFoldResult DivOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a / b; },
      [](int64_t a, int64_t b, bool isUnsigned) -> OptInt {
        // Division by zero (and INT64_MIN / -1) is undefined: do not fold.
        if (b == 0 || (!isUnsigned && a == INT64_MIN && b == -1))
          return std::nullopt;
        return isUnsigned ? (int64_t)((uint64_t)a / (uint64_t)b) : a / b;
      });
}

/// The integer remainder the lowering computes: 0 for a zero divisor (and
/// for INT64_MIN / -1), with the divisor's sign when `floor`.
static int64_t integerRemainder(int64_t a, int64_t b, bool isUnsigned,
                                bool floor) {
  if (b == 0)
    return 0;
  if (isUnsigned)
    return (int64_t)((uint64_t)a % (uint64_t)b);
  if (b == -1)
    return 0;
  int64_t r = a % b;
  if (floor && r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

OpFoldResult ModOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) {
        double r = std::fmod(a, b);
        return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
      },
      [](int64_t a, int64_t b, bool isUnsigned) -> OptInt {
        return integerRemainder(a, b, isUnsigned, /*floor=*/true);
      });
}

OpFoldResult FModOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return std::fmod(a, b); },
      [](int64_t a, int64_t b, bool isUnsigned) -> OptInt {
        return integerRemainder(a, b, isUnsigned, /*floor=*/false);
      });
}

OpFoldResult PowOp::fold(FoldAdaptor adaptor) {
  if (OpFoldResult r =
          foldRightIdentity(getLhs(), adaptor.getRhs(), getType(), 1.0))
    return r;
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return std::pow(a, b); },
      [](int64_t, int64_t, bool) -> OptInt { return std::nullopt; });
}

static bool lessThan(int64_t a, int64_t b, bool isUnsigned) {
  return isUnsigned ? (uint64_t)a < (uint64_t)b : a < b;
}

OpFoldResult MaxOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) {
        return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
      },
      [](int64_t a, int64_t b, bool u) -> OptInt {
        return lessThan(a, b, u) ? b : a;
      });
}

OpFoldResult MinOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) {
        return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
      },
      [](int64_t a, int64_t b, bool u) -> OptInt {
        return lessThan(a, b, u) ? a : b;
      });
}

OpFoldResult PReluOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a < 0 ? a * b : a; },
      [](int64_t a, int64_t b, bool) -> OptInt {
        return a < 0 ? wrapMul(a, b) : a;
      });
}

OpFoldResult AndOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a && b; },
      [](int64_t a, int64_t b, bool) -> OptInt { return a & b; });
}

OpFoldResult OrOp::fold(FoldAdaptor adaptor) {
  if (getLhs() == getRhs() && getLhs().getType() == getType())
    return getLhs();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return a || b; },
      [](int64_t a, int64_t b, bool) -> OptInt { return a | b; });
}

OpFoldResult XorOp::fold(FoldAdaptor adaptor) {
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double a, double b) { return (a != 0) != (b != 0); },
      [](int64_t a, int64_t b, bool) -> OptInt { return a ^ b; });
}

/// True when `amount` shifts every bit of a `width`-bit value out.
static bool shiftsAllOut(int64_t amount, unsigned width) {
  return amount < 0 || amount >= (int64_t)width;
}

OpFoldResult ShiftLeftOp::fold(FoldAdaptor adaptor) {
  unsigned width = getElementTypeOrSelf(getType()).getIntOrFloatBitWidth();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double, double) { return 0.0; },
      [&](int64_t a, int64_t b, bool) -> OptInt {
        return shiftsAllOut(b, width) ? 0 : (int64_t)((uint64_t)a << b);
      });
}

OpFoldResult ShiftRightOp::fold(FoldAdaptor adaptor) {
  unsigned width = getElementTypeOrSelf(getType()).getIntOrFloatBitWidth();
  return foldBinary(
      adaptor.getLhs(), adaptor.getRhs(), getType(),
      [](double, double) { return 0.0; },
      [&](int64_t a, int64_t b, bool isUnsigned) -> OptInt {
        if (isUnsigned)
          return shiftsAllOut(b, width) ? 0 : (int64_t)((uint64_t)a >> b);
        if (shiftsAllOut(b, width))
          return a < 0 ? -1 : 0;
        return a >> b;
      });
}

#define GRAPH_COMPARE_FOLD(Op, Cmp, UCmp)                                      \
  OpFoldResult Op::fold(FoldAdaptor adaptor) {                                 \
    return foldBinary(                                                         \
        adaptor.getLhs(), adaptor.getRhs(), getType(),                         \
        [](double a, double b) -> double { return a Cmp b; },                  \
        [](int64_t a, int64_t b, bool u) -> OptInt {                           \
          return u ? (uint64_t)a UCmp(uint64_t) b : a Cmp b;                   \
        });                                                                    \
  }

GRAPH_COMPARE_FOLD(EqualOp, ==, ==)
GRAPH_COMPARE_FOLD(LessOp, <, <)
GRAPH_COMPARE_FOLD(LessEqualOp, <=, <=)
GRAPH_COMPARE_FOLD(GreaterOp, >, >)
GRAPH_COMPARE_FOLD(GreaterEqualOp, >=, >=)

OpFoldResult WhereOp::fold(FoldAdaptor adaptor) {
  // A splat condition picks one side when that side already has the result
  // type.
  if (auto cond =
          dyn_cast_if_present<DenseElementsAttr>(adaptor.getCondition());
      cond && cond.isSplat()) {
    Value chosen = cond.getSplatValue<bool>() ? getOnTrue() : getOnFalse();
    if (chosen.getType() == getType())
      return chosen;
  }
  if (!adaptor.getCondition() || !adaptor.getOnTrue() || !adaptor.getOnFalse())
    return {};
  auto c = unpack(adaptor.getCondition());
  auto t = unpack(adaptor.getOnTrue());
  auto f = unpack(adaptor.getOnFalse());
  if (!c || !t || !f || !isStaticTensor(getType()))
    return {};
  auto type = cast<RankedTensorType>(getType());
  auto cmap = broadcastMap(c->type.getShape(), type.getShape());
  auto tmap = broadcastMap(t->type.getShape(), type.getShape());
  auto fmap = broadcastMap(f->type.getShape(), type.getShape());
  SmallVector<double> fv;
  SmallVector<int64_t> iv;
  for (size_t k = 0; k < cmap.size(); ++k) {
    bool pick = c->i[cmap[k]] != 0;
    if (t->isFloat)
      fv.push_back(pick ? t->f[tmap[k]] : f->f[fmap[k]]);
    else
      iv.push_back(pick ? t->i[tmap[k]] : f->i[fmap[k]]);
  }
  return pack(type, fv, iv);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class ReduceKind { Sum, Mean, Max, Min, Prod };

static OpFoldResult foldReduce(Attribute inputAttr, ArrayRef<int64_t> axes,
                               Type resultType, ReduceKind kind) {
  auto e = unpack(inputAttr);
  if (!e || !isStaticTensor(resultType))
    return {};
  auto type = cast<RankedTensorType>(resultType);
  ArrayRef<int64_t> inShape = e->type.getShape();
  int64_t rank = inShape.size();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[*normalizeAxis(axis, rank)] = true;
  // Map every input element to its output slot (reduced dims collapse).
  SmallVector<int64_t> outShape;
  for (int64_t d = 0; d < rank; ++d)
    outShape.push_back(reduced[d] ? 1 : inShape[d]);
  SmallVector<int64_t> outStrides = rowMajorStrides(outShape);
  int64_t outCount = ShapedType::getNumElements(outShape);
  if (outCount != type.getNumElements())
    return {};
  int64_t groupSize = outCount ? e->size() / outCount : 0;
  if (e->isFloat) {
    double init = kind == ReduceKind::Max   ? -INFINITY
                  : kind == ReduceKind::Min ? INFINITY
                  : kind == ReduceKind::Prod ? 1.0
                                             : 0.0;
    SmallVector<double> acc(outCount, init);
    forEachIndex(inShape, [&](int64_t k, ArrayRef<int64_t> idx) {
      int64_t slot = 0;
      for (int64_t d = 0; d < rank; ++d)
        if (!reduced[d])
          slot += idx[d] * outStrides[d];
      double v = e->f[k];
      double &a = acc[slot];
      switch (kind) {
      case ReduceKind::Sum:
      case ReduceKind::Mean:
        a += v;
        break;
      case ReduceKind::Max:
        a = std::isnan(v) || std::isnan(a) ? NAN : std::max(a, v);
        break;
      case ReduceKind::Min:
        a = std::isnan(v) || std::isnan(a) ? NAN : std::min(a, v);
        break;
      case ReduceKind::Prod:
        a *= v;
        break;
      }
    });
    if (kind == ReduceKind::Mean)
      for (double &a : acc)
        a = groupSize ? a / groupSize : NAN;
    return pack(type, acc, {});
  }
  // Integer reductions of empty sets have no identity for max/min.
  if (groupSize == 0 && (kind == ReduceKind::Max || kind == ReduceKind::Min ||
                         kind == ReduceKind::Mean))
    return {};
  SmallVector<int64_t> acc(outCount, kind == ReduceKind::Prod ? 1 : 0);
  SmallVector<bool> seen(outCount, false);
  forEachIndex(inShape, [&](int64_t k, ArrayRef<int64_t> idx) {
    int64_t slot = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (!reduced[d])
        slot += idx[d] * outStrides[d];
    int64_t v = e->i[k];
    int64_t &a = acc[slot];
    switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean:
      a = wrapAdd(a, v);
      break;
    case ReduceKind::Prod:
      a = wrapMul(a, v);
      break;
    case ReduceKind::Max:
      a = !seen[slot] || lessThan(a, v, e->isUnsigned) ? v : a;
      break;
    case ReduceKind::Min:
      a = !seen[slot] || lessThan(v, a, e->isUnsigned) ? v : a;
      break;
    }
    seen[slot] = true;
  });
  if (kind == ReduceKind::Mean)
    for (int64_t &a : acc)
      a = e->isUnsigned ? (int64_t)((uint64_t)a / groupSize) : a / groupSize;
  return pack(type, {}, acc);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Sum);
}
OpFoldResult ReduceMeanOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(),
                    ReduceKind::Mean);
}
OpFoldResult ReduceMaxOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Max);
}
OpFoldResult ReduceMinOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(), ReduceKind::Min);
}
OpFoldResult ReduceProdOp::fold(FoldAdaptor adaptor) {
  return foldReduce(adaptor.getInput(), getAxes(), getType(),
                    ReduceKind::Prod);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto type = cast<RankedTensorType>(getType());
  if (!type.hasStaticShape())
    return {};
  // A mapped constant's bytes stay where they are.
  if (auto mapped = dyn_cast_if_present<MappedElementsAttr>(adaptor.getInput()))
    return mapped.reshaped(type);
  auto dense = getFoldable(adaptor.getInput());
  if (!dense)
    return {};
  return dense.reshape(type);
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())) &&
      getInput().getType() == getType())
    return getInput();
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!isStaticTensor(type))
    return {};
  // Whole-byte numbers move as bytes (a conv's weight of millions of
  // floats, laid out for the CPU kernels, in a few milliseconds).
  if (DenseElementsAttr dense = getFoldable(adaptor.getInput())) {
    Type elem = dense.getElementType();
    if (dense.isSplat())
      return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
    if (elem.isIntOrFloat() && elem.getIntOrFloatBitWidth() % 8 == 0) {
      size_t bytes = elem.getIntOrFloatBitWidth() / 8;
      ArrayRef<char> raw = dense.getRawData();
      SmallVector<int64_t> inStrides =
          rowMajorStrides(cast<ShapedType>(dense.getType()).getShape());
      std::vector<char> out(raw.size());
      forEachIndex(type.getShape(), [&](int64_t k, ArrayRef<int64_t> idx) {
        int64_t linear = 0;
        for (size_t d = 0; d < perm.size(); ++d)
          linear += idx[d] * inStrides[perm[d]];
        std::memcpy(out.data() + k * bytes, raw.data() + linear * bytes, bytes);
      });
      return DenseElementsAttr::getFromRawBuffer(type, out);
    }
  }
  auto e = unpack(adaptor.getInput());
  if (!e)
    return {};
  SmallVector<int64_t> inStrides = rowMajorStrides(e->type.getShape());
  SmallVector<int64_t> map;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t linear = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      linear += idx[d] * inStrides[perm[d]];
    map.push_back(linear);
  });
  return pack(type, gatherElements(*e, map, type));
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  if (getInputs().size() == 1 && getInputs().front().getType() == getType())
    return getInputs().front();
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!isStaticTensor(type))
    return {};
  int64_t axis = *normalizeAxis(getAxis(), type.getRank());
  if (llvm::is_contained(adaptor.getInputs(), Attribute()))
    return {};
  SmallVector<Elements> parts;
  for (Attribute attr : adaptor.getInputs()) {
    auto e = unpack(attr);
    if (!e)
      return {};
    parts.push_back(std::move(*e));
  }
  // Output element at index idx comes from the part whose axis range holds
  // idx[axis].
  SmallVector<int64_t> offsets;
  int64_t offset = 0;
  for (const Elements &p : parts) {
    offsets.push_back(offset);
    offset += p.type.getDimSize(axis);
  }
  Elements out;
  out.type = type;
  out.isFloat = parts.front().isFloat;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    size_t p = llvm::upper_bound(offsets, idx[axis]) - offsets.begin() - 1;
    // Skip empty parts that share an offset with the next one.
    while (p + 1 < parts.size() && offsets[p + 1] == offsets[p] &&
           parts[p].type.getDimSize(axis) == 0)
      ++p;
    SmallVector<int64_t> strides = rowMajorStrides(parts[p].type.getShape());
    int64_t linear = 0;
    for (int64_t d = 0; d < type.getRank(); ++d)
      linear += (d == axis ? idx[d] - offsets[p] : idx[d]) * strides[d];
    if (out.isFloat)
      out.f.push_back(parts[p].f[linear]);
    else
      out.i.push_back(parts[p].i[linear]);
  });
  return pack(type, out);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  auto inType = cast<RankedTensorType>(getInput().getType());
  bool whole = true;
  for (int64_t d = 0; d < inType.getRank(); ++d) {
    int64_t dim = inType.getDimSize(d);
    whole &= getStarts()[d] == 0 && getSteps()[d] == 1 &&
             (getEnds()[d] == dim ||
              (ShapedType::isDynamic(dim) &&
               getEnds()[d] == ShapedType::kDynamic));
  }
  if (whole && inType == getType())
    return getInput();
  auto e = unpack(adaptor.getInput());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!e || !isStaticTensor(type))
    return {};
  SmallVector<int64_t> inStrides = rowMajorStrides(e->type.getShape());
  SmallVector<int64_t> map;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t linear = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      linear += (getStarts()[d] + idx[d] * getSteps()[d]) * inStrides[d];
    map.push_back(linear);
  });
  return pack(type, gatherElements(*e, map, type));
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  if (!adaptor.getInput() || !adaptor.getIndices())
    return {};
  auto e = unpack(adaptor.getInput());
  auto idx = unpack(adaptor.getIndices());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!e || !idx || !isStaticTensor(type))
    return {};
  int64_t rank = e->type.getRank();
  int64_t axis = *normalizeAxis(getAxis(), rank);
  int64_t axisDim = e->type.getDimSize(axis);
  int64_t idxRank = idx->type.getRank();
  SmallVector<int64_t> inStrides = rowMajorStrides(e->type.getShape());
  SmallVector<int64_t> idxStrides = rowMajorStrides(idx->type.getShape());
  SmallVector<int64_t> map;
  bool inBounds = true;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> o) {
    int64_t idxLinear = 0;
    for (int64_t d = 0; d < idxRank; ++d)
      idxLinear += o[axis + d] * idxStrides[d];
    int64_t index = idx->i[idxLinear];
    if (index < 0)
      index += axisDim;
    if (index < 0 || index >= axisDim) {
      inBounds = false;
      index = 0;
    }
    int64_t linear = index * inStrides[axis];
    for (int64_t d = 0; d < axis; ++d)
      linear += o[d] * inStrides[d];
    for (int64_t d = axis + 1; d < rank; ++d)
      linear += o[d + idxRank - 1] * inStrides[d];
    map.push_back(linear);
  });
  // Out-of-range indices are undefined behaviour; keep the op so the
  // runtime decides.
  if (!inBounds)
    return {};
  return pack(type, gatherElements(*e, map, type));
}

OpFoldResult ExpandOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  auto type = dyn_cast<RankedTensorType>(getType());
  auto dense = getFoldable(adaptor.getInput());
  if (!dense || !isStaticTensor(type))
    return {};
  if (dense.isSplat())
    return DenseElementsAttr::get(type, dense.getSplatValue<Attribute>());
  auto e = unpack(dense);
  return pack(type, gatherElements(
                        *e, broadcastMap(e->type.getShape(), type.getShape()),
                        type));
}

OpFoldResult TileOp::fold(FoldAdaptor adaptor) {
  if (llvm::all_of(getRepeats(), [](int64_t r) { return r == 1; }) &&
      getInput().getType() == getType())
    return getInput();
  auto e = unpack(adaptor.getInput());
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!e || !isStaticTensor(type))
    return {};
  ArrayRef<int64_t> inShape = e->type.getShape();
  SmallVector<int64_t> inStrides = rowMajorStrides(inShape);
  SmallVector<int64_t> map;
  forEachIndex(type.getShape(), [&](int64_t, ArrayRef<int64_t> idx) {
    int64_t linear = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      linear += (idx[d] % inShape[d]) * inStrides[d];
    map.push_back(linear);
  });
  return pack(type, gatherElements(*e, map, type));
}
