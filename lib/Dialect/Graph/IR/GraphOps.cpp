//===- GraphOps.cpp - msgraph op verification and type inference ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Verification and result type inference share one function per op, so the
// two cannot drift apart. Comments of the form `op_cN` cite the numbered
// constraints of docs/spec/msgraph.md.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::ms::graph;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<int64_t>>
mlir::ms::graph::broadcastShapes(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l == 1) {
      result[i] = r;
    } else if (r == 1) {
      result[i] = l;
    } else if (ShapedType::isDynamic(l)) {
      result[i] = r;
    } else if (ShapedType::isDynamic(r) || l == r) {
      result[i] = l;
    } else {
      return failure();
    }
  }
  return result;
}

bool mlir::ms::graph::areCompatibleTensorTypes(Type lhs, Type rhs) {
  auto l = dyn_cast<RankedTensorType>(lhs);
  auto r = dyn_cast<RankedTensorType>(rhs);
  if (!l || !r || l.getElementType() != r.getElementType() ||
      l.getRank() != r.getRank())
    return false;
  for (auto [a, b] : llvm::zip_equal(l.getShape(), r.getShape()))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return false;
  return true;
}

RankedTensorType mlir::ms::graph::refineTensorType(Type current,
                                                   Type inferred) {
  if (!areCompatibleTensorTypes(current, inferred))
    return nullptr;
  auto c = cast<RankedTensorType>(current);
  auto i = cast<RankedTensorType>(inferred);
  SmallVector<int64_t> shape;
  for (auto [a, b] : llvm::zip_equal(c.getShape(), i.getShape()))
    shape.push_back(ShapedType::isDynamic(a) ? b : a);
  return RankedTensorType::get(shape, c.getElementType(), c.getEncoding());
}

FailureOr<int64_t> mlir::ms::graph::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return failure();
  return axis < 0 ? axis + rank : axis;
}

static bool areCompatibleTypeRanges(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip_equal(lhs, rhs))
    if (!areCompatibleTensorTypes(l, r))
      return false;
  return true;
}

static RankedTensorType getTensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Formats a list of integers as `[a, b, c]` for diagnostics.
/// Dynamic sizes print as `?`.
static std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(values, os, [&](int64_t v) {
    if (ShapedType::isDynamic(v))
      os << "?";
    else
      os << v;
  });
  os << "]";
  return s;
}

/// Returns `attr` or, when absent, `count` copies of `fill`.
static SmallVector<int64_t> valuesOr(std::optional<ArrayRef<int64_t>> attr,
                                     size_t count, int64_t fill) {
  if (attr)
    return llvm::to_vector(*attr);
  return SmallVector<int64_t>(count, fill);
}

// All ops with inferred types accept results that refine or relax the
// inferred shape, so that shape inference can write static dimensions into
// the IR and users can annotate what they know.
//
// Their verifier runs inference itself: it reports the precise problem once
// (the interface's own check runs later and then passes) and words a result
// mismatch as expected-vs-found.
#define GRAPH_COMPATIBLE_RETURN_TYPES(Op)                                      \
  bool Op::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return areCompatibleTypeRanges(l, r);                                      \
  }                                                                            \
  LogicalResult Op::verify() { return verifyByInference<Op>(*this); }

template <typename OpT>
static LogicalResult verifyByInference(OpT op) {
  SmallVector<Type> inferred;
  if (failed(OpT::inferReturnTypes(
          op->getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), inferred)))
    return failure();
  if (!OpT::isCompatibleReturnTypes(inferred, op->getResultTypes()))
    return op.emitOpError("expected result type ")
           << inferred.front() << " (or a refinement of it), but found "
           << op->getResultTypes().front();
  return success();
}

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

/// binary_c1, binary_c2: one element type; broadcast-compatible shapes.
static LogicalResult inferBroadcastResult(std::optional<Location> loc,
                                          ValueRange operands, Type resultElem,
                                          SmallVectorImpl<Type> &inferred) {
  auto first = getTensorType(operands.front());
  SmallVector<int64_t> shape = llvm::to_vector(first.getShape());
  for (Value operand : operands.drop_front()) {
    auto type = getTensorType(operand);
    if (type.getElementType() != first.getElementType())
      return emitOptionalError(
          loc, "expected operands to have the same element type, but found ",
          first.getElementType(), " and ", type.getElementType());
    auto broadcast = broadcastShapes(shape, type.getShape());
    if (failed(broadcast))
      return emitOptionalError(
          loc, "expected broadcast-compatible operand shapes, but found ",
          first, " and ", type);
    shape = std::move(*broadcast);
  }
  inferred.push_back(RankedTensorType::get(
      shape, resultElem ? resultElem : first.getElementType()));
  return success();
}

#define GRAPH_BINARY_INFER(Op, ResultElem)                                     \
  LogicalResult Op::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,      \
      SmallVectorImpl<Type> &inferred) {                                       \
    Builder b(context);                                                        \
    (void)b;                                                                   \
    return inferBroadcastResult(loc, {adaptor.getLhs(), adaptor.getRhs()},     \
                                ResultElem, inferred);                         \
  }                                                                            \
  GRAPH_COMPATIBLE_RETURN_TYPES(Op)

GRAPH_BINARY_INFER(AddOp, Type())
GRAPH_BINARY_INFER(SubOp, Type())
GRAPH_BINARY_INFER(MulOp, Type())
GRAPH_BINARY_INFER(DivOp, Type())
GRAPH_BINARY_INFER(ModOp, Type())
GRAPH_BINARY_INFER(FModOp, Type())
GRAPH_BINARY_INFER(PowOp, Type())
GRAPH_BINARY_INFER(MaxOp, Type())
GRAPH_BINARY_INFER(MinOp, Type())
GRAPH_BINARY_INFER(PReluOp, Type())
GRAPH_BINARY_INFER(AndOp, Type())
GRAPH_BINARY_INFER(OrOp, Type())
GRAPH_BINARY_INFER(XorOp, Type())
GRAPH_BINARY_INFER(ShiftLeftOp, Type())
GRAPH_BINARY_INFER(ShiftRightOp, Type())
GRAPH_BINARY_INFER(EqualOp, b.getI1Type())
GRAPH_BINARY_INFER(LessOp, b.getI1Type())
GRAPH_BINARY_INFER(LessEqualOp, b.getI1Type())
GRAPH_BINARY_INFER(GreaterOp, b.getI1Type())
GRAPH_BINARY_INFER(GreaterEqualOp, b.getI1Type())
GRAPH_BINARY_INFER(StringEqualOp, b.getI1Type())
GRAPH_BINARY_INFER(StringConcatOp, Type())

/// where_c1: value operands share one element type; all three broadcast.
LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto cond = getTensorType(adaptor.getCondition());
  SmallVector<Type> values;
  if (failed(inferBroadcastResult(
          loc, {adaptor.getOnTrue(), adaptor.getOnFalse()}, Type(), values)))
    return failure();
  auto valueType = cast<RankedTensorType>(values.front());
  auto shape = broadcastShapes(cond.getShape(), valueType.getShape());
  if (failed(shape))
    return emitOptionalError(
        loc, "expected the condition to broadcast with the values, but found ",
        cond, " and ", valueType);
  inferred.push_back(
      RankedTensorType::get(*shape, valueType.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(WhereOp)

//===----------------------------------------------------------------------===//
// Unary ops with attributes
//===----------------------------------------------------------------------===//

/// gelu_c1
LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("expected approximate to be \"none\" or \"tanh\", "
                       "but found \"")
           << getApproximate() << "\"";
  return success();
}

/// clip_c1
LogicalResult ClipOp::verify() {
  if (getMin() && getMax() &&
      getMin()->convertToDouble() > getMax()->convertToDouble())
    return emitOpError("expected min <= max, but found min = ")
           << getMin()->convertToDouble()
           << " and max = " << getMax()->convertToDouble();
  return success();
}

/// cast_c1
LogicalResult CastOp::verify() {
  auto in = getTensorType(getInput());
  auto out = getTensorType(getResult());
  if (failed(verifyCompatibleShape(in, out)))
    return emitOpError("expected the result shape to match the input shape ")
           << formatList(in.getShape()) << ", but found "
           << formatList(out.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

/// constant_of_shape_c1, constant_of_shape_c2
LogicalResult ConstantOfShapeOp::verify() {
  auto resultType = getTensorType(getResult());
  auto shapeType = getTensorType(getShape());
  if (!shapeType.isDynamicDim(0) && shapeType.getDimSize(0) != resultType.getRank())
    return emitOpError("expected shape operand of length ")
           << resultType.getRank() << " (the result rank), but found "
           << shapeType.getDimSize(0);
  if (getValue().getType() != resultType.getElementType())
    return emitOpError("expected value of type ")
           << resultType.getElementType() << ", but found "
           << getValue().getType();
  return success();
}

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  int64_t rank = getTensorType(adaptor.getInput()).getRank();
  inferred.push_back(
      RankedTensorType::get({rank}, IntegerType::get(context, 64)));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(ShapeOp)

/// range_c1, range_c2
LogicalResult RangeOp::verify() {
  auto resultType = getTensorType(getResult());
  if (resultType.getRank() != 1)
    return emitOpError("expected a 1-D result, but found rank ")
           << resultType.getRank();
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"start", getStart()},
        {"limit", getLimit()},
        {"delta", getDelta()}}) {
    auto type = getTensorType(value);
    if (type.getRank() != 0)
      return emitOpError("expected ")
             << name << " to be a 0-D tensor, but found " << type;
    if (type.getElementType() != resultType.getElementType())
      return emitOpError("expected ")
             << name << " element type " << resultType.getElementType()
             << ", but found " << type.getElementType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// reduce_c1, reduce_c2: axes in range and distinct.
static LogicalResult inferReduce(std::optional<Location> loc, Value input,
                                 ArrayRef<int64_t> axes, bool keepDims,
                                 Type resultElem,
                                 SmallVectorImpl<Type> &inferred) {
  auto type = getTensorType(input);
  int64_t rank = type.getRank();
  llvm::SmallSet<int64_t, 4> reduced;
  for (int64_t axis : axes) {
    auto norm = normalizeAxis(axis, rank);
    if (failed(norm))
      return emitOptionalError(loc, "expected axes in [", -rank, ", ", rank,
                               "), but found ", axis);
    if (!reduced.insert(*norm).second)
      return emitOptionalError(loc, "expected distinct axes, but found ",
                               formatList(axes));
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    bool isReduced = axes.empty() || reduced.contains(i);
    if (!isReduced)
      shape.push_back(type.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(
      shape, resultElem ? resultElem : type.getElementType()));
  return success();
}

#define GRAPH_REDUCE_INFER(Op)                                                 \
  LogicalResult Op::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    return inferReduce(loc, adaptor.getInput(), adaptor.getAxes(),             \
                       adaptor.getKeepDims(), Type(), inferred);               \
  }                                                                            \
  GRAPH_COMPATIBLE_RETURN_TYPES(Op)

GRAPH_REDUCE_INFER(ReduceSumOp)
GRAPH_REDUCE_INFER(ReduceMeanOp)
GRAPH_REDUCE_INFER(ReduceMaxOp)
GRAPH_REDUCE_INFER(ReduceMinOp)
GRAPH_REDUCE_INFER(ReduceProdOp)

/// arg_c1: axis in range.
#define GRAPH_ARG_INFER(Op)                                                    \
  LogicalResult Op::inferReturnTypes(MLIRContext *context,                     \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    int64_t axis = adaptor.getAxis();                                          \
    int64_t rank = getTensorType(adaptor.getInput()).getRank();                \
    if (failed(normalizeAxis(axis, rank)))                                     \
      return emitOptionalError(loc, "expected axis in [", -rank, ", ", rank,   \
                               "), but found ", axis);                         \
    int64_t axes[] = {axis};                                                   \
    return inferReduce(loc, adaptor.getInput(), axes, adaptor.getKeepDims(),   \
                       IntegerType::get(context, 64), inferred);               \
  }                                                                            \
  GRAPH_COMPATIBLE_RETURN_TYPES(Op)

GRAPH_ARG_INFER(ArgMaxOp)
GRAPH_ARG_INFER(ArgMinOp)

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

/// softmax_c1: axis in range.
static LogicalResult verifyAxis(Operation *op, int64_t axis, Value input) {
  int64_t rank = getTensorType(input).getRank();
  if (failed(normalizeAxis(axis, rank)))
    return op->emitOpError("expected axis in [")
           << -rank << ", " << rank << "), but found " << axis;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput());
}
LogicalResult LogSoftmaxOp::verify() {
  return verifyAxis(*this, getAxis(), getInput());
}
LogicalResult CumSumOp::verify() {
  return verifyAxis(*this, getAxis(), getInput());
}
LogicalResult CumProdOp::verify() {
  return verifyAxis(*this, getAxis(), getInput());
}

/// matmul_c1 .. matmul_c3
LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lhs = getTensorType(adaptor.getLhs());
  auto rhs = getTensorType(adaptor.getRhs());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(
        loc, "expected operands to have the same element type, but found ",
        lhs.getElementType(), " and ", rhs.getElementType());
  if (lhs.getRank() < 1 || rhs.getRank() < 1)
    return emitOptionalError(
        loc, "expected operands of rank at least 1, but found ", lhs, " and ",
        rhs);
  SmallVector<int64_t> l = llvm::to_vector(lhs.getShape());
  SmallVector<int64_t> r = llvm::to_vector(rhs.getShape());
  bool lhsVector = l.size() == 1, rhsVector = r.size() == 1;
  if (lhsVector)
    l.insert(l.begin(), 1);
  if (rhsVector)
    r.push_back(1);
  int64_t k1 = l.back(), k2 = r[r.size() - 2];
  if (!ShapedType::isDynamic(k1) && !ShapedType::isDynamic(k2) && k1 != k2)
    return emitOptionalError(
        loc, "expected contracting dimensions to match, but found ", k1,
        " (lhs) and ", k2, " (rhs)");
  auto batch = broadcastShapes(ArrayRef(l).drop_back(2),
                               ArrayRef(r).drop_back(2));
  if (failed(batch))
    return emitOptionalError(
        loc, "expected broadcast-compatible batch dimensions, but found ", lhs,
        " and ", rhs);
  SmallVector<int64_t> shape = std::move(*batch);
  if (!lhsVector)
    shape.push_back(l[l.size() - 2]);
  if (!rhsVector)
    shape.push_back(r.back());
  inferred.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(MatMulOp)

/// attention_c1 .. attention_c5
LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto q = getTensorType(adaptor.getQuery());
  auto k = getTensorType(adaptor.getKey());
  auto v = getTensorType(adaptor.getValue());
  // attention_c1: rank-4 operands of one element type.
  for (auto [name, type] : {std::pair{"query", q}, {"key", k}, {"value", v}}) {
    if (type.getRank() != 4)
      return emitOptionalError(loc, "expected ", name,
                               " of rank 4 (batch x heads x sequence x "
                               "head size), but found ",
                               type);
    if (type.getElementType() != q.getElementType())
      return emitOptionalError(loc, "expected ", name, " element type ",
                               q.getElementType(), ", but found ",
                               type.getElementType());
  }
  auto mismatch = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  // attention_c2: one batch, key and value heads and lengths agree, and the
  // query heads are a multiple of the key/value heads.
  if (mismatch(q.getDimSize(0), k.getDimSize(0)) ||
      mismatch(q.getDimSize(0), v.getDimSize(0)))
    return emitOptionalError(loc, "expected one batch size, but found ", q,
                             ", ", k, " and ", v);
  if (mismatch(k.getDimSize(1), v.getDimSize(1)) ||
      mismatch(k.getDimSize(2), v.getDimSize(2)))
    return emitOptionalError(
        loc, "expected key and value of the same heads and length, but found ",
        k, " and ", v);
  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
      (hkv == 0 || hq % hkv != 0))
    return emitOptionalError(loc, "expected query heads (", hq,
                             ") to be a multiple of key/value heads (", hkv,
                             ")");
  // attention_c3: query and key head sizes agree.
  if (mismatch(q.getDimSize(3), k.getDimSize(3)))
    return emitOptionalError(loc,
                             "expected query and key of one head size, but "
                             "found ",
                             q.getDimSize(3), " and ", k.getDimSize(3));
  SmallVector<int64_t> full = {q.getDimSize(0), hq, q.getDimSize(2),
                               k.getDimSize(2)};
  // attention_c4: the mask broadcasts to batch x heads x S x T.
  if (Value maskValue = adaptor.getMask()) {
    auto mask = getTensorType(maskValue);
    if (mask.getElementType() != q.getElementType())
      return emitOptionalError(loc, "expected mask element type ",
                               q.getElementType(), ", but found ",
                               mask.getElementType());
    bool fits = mask.getRank() == 4;
    for (int64_t i = 0; fits && i < 4; ++i)
      fits = mask.getDimSize(i) == 1 || !mismatch(mask.getDimSize(i), full[i]);
    if (!fits)
      return emitOptionalError(
          loc, "expected a rank-4 mask whose dims are 1 or ",
          formatList(full), ", but found ", mask);
  }
  // attention_c5: a finite non-zero scale, a non-negative softcap and
  // causal offset.
  if (std::optional<APFloat> scaleAttr = adaptor.getScale()) {
    double scale = scaleAttr->convertToDouble();
    if (!std::isfinite(scale) || scale == 0)
      return emitOptionalError(loc, "expected a finite non-zero scale, but "
                                    "found ",
                               scale);
  }
  double softcap = adaptor.getSoftcap().convertToDouble();
  if (!(softcap >= 0) || std::isinf(softcap))
    return emitOptionalError(loc, "expected a finite non-negative softcap, "
                                  "but found ",
                             softcap);
  // (I64Attr reads back as uint64_t.)
  int64_t causalOffset = adaptor.getCausalOffset();
  if (causalOffset < 0)
    return emitOptionalError(loc, "expected a non-negative causal_offset, "
                                  "but found ",
                             causalOffset);
  inferred.push_back(RankedTensorType::get(
      {full[0], hq, full[2], v.getDimSize(3)}, q.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(AttentionOp)

/// Computes a windowed output size, dynamic if the input is dynamic, -1 if
/// the dilated kernel does not fit the padded input; std::nullopt if an
/// intermediate overflows int64 (huge attributes are user input).
static std::optional<int64_t>
windowOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padBegin,
                 int64_t padEnd, int64_t dilation, bool ceilMode) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  std::optional<int64_t> effective =
      llvm::checkedMulAdd<int64_t>(kernel - 1, dilation, 1);
  std::optional<int64_t> padded = llvm::checkedAdd(in, padBegin);
  if (!effective || !padded || !(padded = llvm::checkedAdd(*padded, padEnd)))
    return std::nullopt;
  int64_t span = *padded - *effective;
  if (span < 0)
    return -1;
  // span >= 0 and stride >= 1: these cannot overflow.
  int64_t out = (ceilMode ? span / stride + (span % stride != 0)
                          : span / stride) +
                1;
  // With ceil_mode a last window must start inside the input or the begin
  // padding (ONNX and PyTorch agree on this).
  if (ceilMode) {
    std::optional<int64_t> start = llvm::checkedMul(out - 1, stride);
    if (!start || *start >= in + padBegin)
      --out;
  }
  return out;
}

/// The error for window sizes beyond int64.
static LogicalResult emitWindowOverflow(std::optional<Location> loc,
                                        int64_t dim) {
  return emitOptionalError(loc,
                           "expected window sizes within int64, but the "
                           "output size along spatial dimension ",
                           dim, " overflows");
}

/// The largest stride, dilation or pad a window op takes (window_c4).
static constexpr int64_t kMaxWindowValue = (int64_t(1) << 31) - 1;

/// Checks the window attributes shared by conv, conv_transpose and pooling:
/// window_c1 (attribute lengths), window_c2 (positive values), window_c3
/// (non-negative pads), window_c4 (each below 2^31).
static LogicalResult
verifyWindowAttrs(std::optional<Location> loc, int64_t spatialRank,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
                  ArrayRef<int64_t> dilations) {
  if ((int64_t)strides.size() != spatialRank)
    return emitOptionalError(loc, "expected ", spatialRank,
                             " strides (one per spatial dimension), but found ",
                             strides.size());
  if ((int64_t)dilations.size() != spatialRank)
    return emitOptionalError(
        loc, "expected ", spatialRank,
        " dilations (one per spatial dimension), but found ",
        dilations.size());
  if ((int64_t)pads.size() != 2 * spatialRank)
    return emitOptionalError(loc, "expected ", 2 * spatialRank,
                             " pads (begins then ends), but found ",
                             pads.size());
  if (llvm::any_of(strides, [](int64_t v) { return v <= 0; }))
    return emitOptionalError(loc, "expected positive strides, but found ",
                             formatList(strides));
  if (llvm::any_of(dilations, [](int64_t v) { return v <= 0; }))
    return emitOptionalError(loc, "expected positive dilations, but found ",
                             formatList(dilations));
  if (llvm::any_of(pads, [](int64_t v) { return v < 0; }))
    return emitOptionalError(loc, "expected non-negative pads, but found ",
                             formatList(pads));
  // window_c4: beyond this, index arithmetic in the kernels would overflow.
  auto huge = [](int64_t v) { return v > kMaxWindowValue; };
  for (auto [name, values] :
       {std::pair{"strides", strides}, {"dilations", dilations},
        {"pads", pads}})
    if (llvm::any_of(values, huge))
      return emitOptionalError(loc, "expected ", name, " below 2^31, but found ",
                               formatList(values));
  return success();
}

/// conv_c1, conv_c2 (and conv_transpose_c1, conv_transpose_c2): ranks and
/// element types of input and weight.
static LogicalResult verifyConvOperands(std::optional<Location> loc,
                                        RankedTensorType input,
                                        RankedTensorType weight) {
  int64_t rank = input.getRank();
  if (rank < 3)
    return emitOptionalError(
        loc, "expected input of rank at least 3 (N x C x spatial), but found ",
        input);
  if (weight.getRank() != rank)
    return emitOptionalError(loc, "expected weight of rank ", rank,
                             " (the input rank), but found ", weight);
  if (weight.getElementType() != input.getElementType())
    return emitOptionalError(
        loc, "expected weight element type ", input.getElementType(),
        ", but found ", weight.getElementType());
  return success();
}

/// conv_c6 (and conv_transpose_c5): an optional 1-D bias per output channel.
static LogicalResult verifyConvBias(std::optional<Location> loc, Value bias,
                                    int64_t outChannels, Type elementType) {
  if (!bias)
    return success();
  auto biasType = getTensorType(bias);
  if (biasType.getRank() != 1 ||
      failed(verifyCompatibleShape(biasType.getShape(), {outChannels})) ||
      biasType.getElementType() != elementType)
    return emitOptionalError(
        loc, "expected bias of type ",
        RankedTensorType::get({outChannels}, elementType), ", but found ",
        biasType);
  return success();
}

/// conv_c1 .. conv_c6
LogicalResult ConvOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  auto weight = getTensorType(adaptor.getWeight());
  if (failed(verifyConvOperands(loc, input, weight)))
    return failure();
  int64_t k = input.getRank() - 2;
  auto strides = valuesOr(adaptor.getStrides(), k, 1);
  auto dilations = valuesOr(adaptor.getDilations(), k, 1);
  auto pads = valuesOr(adaptor.getPads(), 2 * k, 0);
  if (failed(verifyWindowAttrs(loc, k, strides, pads, dilations)))
    return failure();
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return emitOptionalError(loc, "expected group >= 1, but found ", group);
  int64_t channels = input.getDimSize(1), outChannels = weight.getDimSize(0);
  int64_t weightChannels = weight.getDimSize(1);
  // A huge group is user input: the product must not overflow.
  std::optional<int64_t> groupedChannels =
      llvm::checkedMul(weightChannels, group);
  if (!ShapedType::isDynamic(channels) &&
      !ShapedType::isDynamic(weightChannels) &&
      (!groupedChannels || channels != *groupedChannels))
    return emitOptionalError(
        loc, "expected input channels (", channels,
        ") to equal weight dimension 1 times group (", weightChannels, " x ",
        group, ")");
  if (!ShapedType::isDynamic(outChannels) && outChannels % group != 0)
    return emitOptionalError(loc, "expected output channels (", outChannels,
                             ") to be divisible by group (", group, ")");
  if (failed(verifyConvBias(loc, adaptor.getBias(), outChannels,
                            input.getElementType())))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int64_t i = 0; i < k; ++i) {
    std::optional<int64_t> window =
        windowOutputSize(input.getDimSize(i + 2), weight.getDimSize(i + 2),
                         strides[i], pads[i], pads[i + k], dilations[i], false);
    if (!window)
      return emitWindowOverflow(loc, i);
    int64_t size = *window;
    if (size < 0 && !ShapedType::isDynamic(size))
      return emitOptionalError(
          loc, "expected the dilated kernel to fit in the padded input along "
               "spatial dimension ",
          i, ", but found input size ", input.getDimSize(i + 2),
          " and kernel size ", weight.getDimSize(i + 2));
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(ConvOp)

/// conv_transpose_c1 .. conv_transpose_c5
LogicalResult
ConvTransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                  Adaptor adaptor,
                                  SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  auto weight = getTensorType(adaptor.getWeight());
  if (failed(verifyConvOperands(loc, input, weight)))
    return failure();
  int64_t k = input.getRank() - 2;
  auto strides = valuesOr(adaptor.getStrides(), k, 1);
  auto dilations = valuesOr(adaptor.getDilations(), k, 1);
  auto pads = valuesOr(adaptor.getPads(), 2 * k, 0);
  auto outputPadding = valuesOr(adaptor.getOutputPadding(), k, 0);
  if (failed(verifyWindowAttrs(loc, k, strides, pads, dilations)))
    return failure();
  if ((int64_t)outputPadding.size() != k)
    return emitOptionalError(loc, "expected ", k,
                             " output_padding values, but found ",
                             outputPadding.size());
  for (int64_t i = 0; i < k; ++i)
    if (outputPadding[i] < 0 ||
        outputPadding[i] >= std::max(strides[i], dilations[i]))
      return emitOptionalError(
          loc, "expected output_padding in [0, max(stride, dilation)), but "
               "found ",
          formatList(outputPadding));
  int64_t group = adaptor.getGroup();
  if (group < 1)
    return emitOptionalError(loc, "expected group >= 1, but found ", group);
  int64_t channels = input.getDimSize(1);
  if (!ShapedType::isDynamic(channels) &&
      !weight.isDynamicDim(0) && channels != weight.getDimSize(0))
    return emitOptionalError(loc, "expected input channels (", channels,
                             ") to equal weight dimension 0 (",
                             weight.getDimSize(0), ")");
  int64_t outChannels = weight.isDynamicDim(1) ? ShapedType::kDynamic
                                               : weight.getDimSize(1) * group;
  if (failed(verifyConvBias(loc, adaptor.getBias(), outChannels,
                            input.getElementType())))
    return failure();
  SmallVector<int64_t> shape = {input.getDimSize(0), outChannels};
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = input.getDimSize(i + 2), kern = weight.getDimSize(i + 2);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kern)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    // strides * (in - 1) + output_padding + (kern - 1) * dilations + 1
    //   - pad_begin - pad_end, checked: every term is user input.
    std::optional<int64_t> size =
        llvm::checkedMulAdd<int64_t>(strides[i], in - 1, outputPadding[i]);
    std::optional<int64_t> span =
        llvm::checkedMulAdd<int64_t>(kern - 1, dilations[i], 1);
    std::optional<int64_t> pad = llvm::checkedAdd(pads[i], pads[i + k]);
    if (size && span)
      size = llvm::checkedAdd(*size, *span);
    if (size && pad)
      size = llvm::checkedSub(*size, *pad);
    if (!size || !span || !pad)
      return emitWindowOverflow(loc, i);
    if (*size <= 0)
      return emitOptionalError(
          loc, "expected a positive output size along spatial dimension ", i,
          ", but found ", *size);
    shape.push_back(*size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(ConvTransposeOp)

/// pool_c1 .. pool_c3
static LogicalResult inferPool(std::optional<Location> loc, Value inputValue,
                               ArrayRef<int64_t> kernel,
                               std::optional<ArrayRef<int64_t>> stridesAttr,
                               std::optional<ArrayRef<int64_t>> padsAttr,
                               std::optional<ArrayRef<int64_t>> dilationsAttr,
                               bool ceilMode,
                               SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(inputValue);
  int64_t rank = input.getRank();
  if (rank < 3)
    return emitOptionalError(
        loc, "expected input of rank at least 3 (N x C x spatial), but found ",
        input);
  int64_t k = rank - 2;
  if ((int64_t)kernel.size() != k)
    return emitOptionalError(loc, "expected ", k,
                             " kernel_shape values, but found ", kernel.size());
  if (llvm::any_of(kernel, [](int64_t v) { return v <= 0; }))
    return emitOptionalError(loc, "expected positive kernel_shape, but found ",
                             formatList(kernel));
  auto strides = valuesOr(stridesAttr, k, 1);
  auto dilations = valuesOr(dilationsAttr, k, 1);
  auto pads = valuesOr(padsAttr, 2 * k, 0);
  if (failed(verifyWindowAttrs(loc, k, strides, pads, dilations)))
    return failure();
  for (int64_t i = 0; i < k; ++i) {
    std::optional<int64_t> dilated =
        llvm::checkedMulAdd<int64_t>(kernel[i] - 1, dilations[i], 1);
    if (!dilated)
      return emitWindowOverflow(loc, i);
    int64_t effective = *dilated;
    if (pads[i] >= effective || pads[i + k] >= effective)
      return emitOptionalError(
          loc, "expected pads smaller than the dilated kernel (", effective,
          ") along spatial dimension ", i, ", but found ", formatList(pads));
  }
  SmallVector<int64_t> shape = {input.getDimSize(0), input.getDimSize(1)};
  for (int64_t i = 0; i < k; ++i) {
    std::optional<int64_t> window = windowOutputSize(
        input.getDimSize(i + 2), kernel[i], strides[i], pads[i], pads[i + k],
        dilations[i], ceilMode);
    if (!window)
      return emitWindowOverflow(loc, i);
    int64_t size = *window;
    if (size < 0 && !ShapedType::isDynamic(size))
      return emitOptionalError(
          loc, "expected the dilated kernel to fit in the padded input along "
               "spatial dimension ",
          i, ", but found input size ", input.getDimSize(i + 2),
          " and kernel size ", kernel[i]);
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

#define GRAPH_POOL_INFER(Op)                                                   \
  LogicalResult Op::inferReturnTypes(MLIRContext *,                            \
                                     std::optional<Location> loc,              \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    return inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),        \
                     adaptor.getStrides(), adaptor.getPads(),                  \
                     adaptor.getDilations(), adaptor.getCeilMode(), inferred); \
  }                                                                            \
  GRAPH_COMPATIBLE_RETURN_TYPES(Op)

GRAPH_POOL_INFER(MaxPoolOp)
GRAPH_POOL_INFER(AvgPoolOp)

/// max_pool_indices: max_pool's windows, i64 positions.
LogicalResult MaxPoolIndicesOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (failed(inferPool(loc, adaptor.getInput(), adaptor.getKernelShape(),
                       adaptor.getStrides(), adaptor.getPads(),
                       adaptor.getDilations(), adaptor.getCeilMode(),
                       inferred)))
    return failure();
  inferred.back() = cast<RankedTensorType>(inferred.back())
                        .clone(IntegerType::get(context, 64));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(MaxPoolIndicesOp)

/// Checks that `param` is a 1-D tensor of `input`'s element type whose length
/// is compatible with `length` (norm_c1, norm_c2).
static LogicalResult verifyChannelParam(Operation *op, StringRef name,
                                        Value param, RankedTensorType input,
                                        int64_t length) {
  auto type = getTensorType(param);
  if (type.getElementType() != input.getElementType())
    return op->emitOpError("expected ")
           << name << " element type " << input.getElementType()
           << ", but found " << type.getElementType();
  if (type.getRank() != 1 ||
      failed(verifyCompatibleShape(type.getShape(), {length})))
    return op->emitOpError("expected ")
           << name << " of shape " << formatList({length})
           << " (the channel count), but found "
           << type;
  return success();
}

/// Checks that the result type is compatible with the input type (norm_c3).
static LogicalResult verifySameAsInput(Operation *op, Value input,
                                       Value result) {
  if (!areCompatibleTensorTypes(input.getType(), result.getType()))
    return op->emitOpError("expected result type compatible with the input "
                           "type ")
           << input.getType() << ", but found " << result.getType();
  return success();
}

LogicalResult BatchNormOp::verify() {
  auto input = getTensorType(getInput());
  if (input.getRank() < 2)
    return emitOpError("expected input of rank at least 2, but found ")
           << input;
  int64_t channels = input.getDimSize(1);
  for (auto [name, value] :
       {std::pair<StringRef, Value>{"scale", getScale()},
        {"bias", getBias()},
        {"mean", getMean()},
        {"variance", getVariance()}})
    if (failed(verifyChannelParam(*this, name, value, input, channels)))
      return failure();
  return verifySameAsInput(*this, getInput(), getResult());
}

LogicalResult InstanceNormOp::verify() {
  auto input = getTensorType(getInput());
  if (input.getRank() < 3)
    return emitOpError("expected input of rank at least 3, but found ")
           << input;
  int64_t channels = input.getDimSize(1);
  if (failed(verifyChannelParam(*this, "scale", getScale(), input, channels)) ||
      failed(verifyChannelParam(*this, "bias", getBias(), input, channels)))
    return failure();
  return verifySameAsInput(*this, getInput(), getResult());
}

/// layer_norm_c1 .. layer_norm_c3
LogicalResult LayerNormOp::verify() {
  auto input = getTensorType(getInput());
  if (failed(verifyAxis(*this, getAxis(), getInput())))
    return failure();
  int64_t axis = *normalizeAxis(getAxis(), input.getRank());
  ArrayRef<int64_t> normalized = input.getShape().drop_front(axis);
  for (auto [name, value] : {std::pair<StringRef, Value>{"scale", getScale()},
                             {"bias", getBias()}}) {
    if (!value)
      continue;
    auto type = getTensorType(value);
    if (type.getElementType() != input.getElementType())
      return emitOpError("expected ")
             << name << " element type " << input.getElementType()
             << ", but found " << type.getElementType();
    auto broadcast = broadcastShapes(normalized, type.getShape());
    if (type.getRank() > (int64_t)normalized.size() || failed(broadcast) ||
        failed(verifyCompatibleShape(*broadcast, normalized)))
      return emitOpError("expected ")
             << name << " to broadcast to the normalized shape "
             << formatList(normalized) << ", but found " << type;
  }
  return verifySameAsInput(*this, getInput(), getResult());
}

/// lrn_c1, lrn_c2
LogicalResult LRNOp::verify() {
  if (getSize() < 1 || getSize() > kMaxWindowValue)
    return emitOpError("expected size in [1, 2^31), but found ") << getSize();
  if (getTensorType(getInput()).getRank() < 2)
    return emitOpError("expected input of rank at least 2, but found ")
           << getInput().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Checks a 1-D shape operand against the result rank (shape_operand_c1).
static LogicalResult verifyShapeOperand(Operation *op, Value shape,
                                        RankedTensorType result) {
  if (!shape)
    return success();
  auto type = getTensorType(shape);
  if (!type.isDynamicDim(0) && type.getDimSize(0) != result.getRank())
    return op->emitOpError("expected shape operand of length ")
           << result.getRank() << " (the result rank), but found "
           << type.getDimSize(0);
  return success();
}

/// reshape_c1 .. reshape_c3
LogicalResult ReshapeOp::verify() {
  auto input = getTensorType(getInput());
  auto result = getTensorType(getResult());
  if (input.getElementType() != result.getElementType())
    return emitOpError("expected result element type ")
           << input.getElementType() << ", but found "
           << result.getElementType();
  if (failed(verifyShapeOperand(*this, getShape(), result)))
    return failure();
  if (!getShape() && result.getNumDynamicDims() > 1)
    return emitOpError("expected a shape operand when the result has more "
                       "than one dynamic dimension, but found ")
           << result.getNumDynamicDims();
  if (input.hasStaticShape() && result.hasStaticShape() &&
      input.getNumElements() != result.getNumElements())
    return emitOpError("expected the result to have ")
           << input.getNumElements() << " elements (as the input), but found "
           << result.getNumElements();
  if (input.hasStaticShape() && !result.hasStaticShape()) {
    std::optional<int64_t> known = 1;
    for (int64_t d : result.getShape())
      if (!ShapedType::isDynamic(d) && known)
        known = llvm::checkedMul(*known, d);
    if (!known)
      return emitOpError("expected the static result dimensions' product "
                         "to fit in 64 bits");
    if (*known != 0 && input.getNumElements() % *known != 0)
      return emitOpError("expected the static result dimensions to divide "
                         "the input element count ")
             << input.getNumElements() << ", but found product " << *known;
  }
  return success();
}

/// transpose_c1: the permutation is a permutation of [0, rank).
LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  int64_t rank = input.getRank();
  SmallVector<bool> seen(rank, false);
  bool valid = (int64_t)perm.size() == rank;
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= rank || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return emitOptionalError(loc, "expected permutation of [0, ", rank,
                             "), but found ", formatList(perm));
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(input.getDimSize(p));
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(TransposeOp)

/// concat_c1 .. concat_c4
LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(loc, "expected at least one input, but found 0");
  auto first = getTensorType(inputs.front());
  int64_t rank = first.getRank();
  auto axisOr = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axisOr))
    return emitOptionalError(loc, "expected axis in [", -rank, ", ", rank,
                             "), but found ", adaptor.getAxis());
  int64_t axis = *axisOr;
  SmallVector<int64_t> shape = llvm::to_vector(first.getShape());
  for (auto [index, value] : llvm::enumerate(inputs.drop_front())) {
    auto type = getTensorType(value);
    if (type.getElementType() != first.getElementType() ||
        type.getRank() != rank)
      return emitOptionalError(loc, "expected input #", index + 1,
                               " to have rank ", rank, " and element type ",
                               first.getElementType(), ", but found ", type);
    for (int64_t d = 0; d < rank; ++d) {
      int64_t a = shape[d], b = type.getDimSize(d);
      if (d == axis) {
        shape[d] = ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
                       ? ShapedType::kDynamic
                       : a + b;
        continue;
      }
      if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
        return emitOptionalError(loc, "expected input #", index + 1,
                                 " to match dimension ", d, " (", a,
                                 "), but found ", b);
      if (ShapedType::isDynamic(a))
        shape[d] = b;
    }
  }
  inferred.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(ConcatOp)

/// slice_c1 .. slice_c4
LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  int64_t rank = input.getRank();
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  if ((int64_t)starts.size() != rank || (int64_t)ends.size() != rank ||
      (int64_t)steps.size() != rank)
    return emitOptionalError(
        loc, "expected starts, ends and steps of length ", rank,
        " (the input rank), but found ", starts.size(), ", ", ends.size(),
        " and ", steps.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = input.getDimSize(i);
    int64_t start = starts[i], end = ends[i], step = steps[i];
    if (step == 0)
      return emitOptionalError(loc, "expected non-zero steps, but found ",
                               formatList(steps));
    if (ShapedType::isDynamic(dim)) {
      if (start != 0 || step != 1 || end != ShapedType::kDynamic)
        return emitOptionalError(
            loc, "expected dynamic dimension ", i,
            " to be taken whole (start 0, step 1, end kDynamic), but found "
            "start ",
            start, ", end ", end, ", step ", step);
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    bool valid = step > 0 ? (0 <= start && start <= end && end <= dim)
                          : (-1 <= end && end <= start && start < dim);
    if (!valid)
      return emitOptionalError(
          loc, "expected normalized bounds along dimension ", i, " of size ",
          dim, ", but found start ", start, ", end ", end, ", step ", step);
    int64_t size = step > 0 ? (end - start + step - 1) / step
                            : (start - end + (-step) - 1) / (-step);
    shape.push_back(std::max<int64_t>(size, 0));
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(SliceOp)

/// gather_c1
LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  auto indices = getTensorType(adaptor.getIndices());
  int64_t rank = input.getRank();
  auto axis = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return emitOptionalError(loc, "expected axis in [", -rank, ", ", rank,
                             "), but found ", adaptor.getAxis());
  SmallVector<int64_t> shape =
      llvm::to_vector(input.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, input.getShape().drop_front(*axis + 1));
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(GatherOp)

/// gather_elements_c1: a valid axis; c2: indices of the input's rank whose
/// extents off `axis` do not exceed the input's.
LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  auto indices = getTensorType(adaptor.getIndices());
  int64_t rank = input.getRank();
  auto axis = normalizeAxis(adaptor.getAxis(), rank);
  if (failed(axis))
    return emitOptionalError(loc, "expected axis in [", -rank, ", ", rank,
                             "), but found ", adaptor.getAxis());
  if (indices.getRank() != rank)
    return emitOptionalError(loc, "expected indices of rank ", rank,
                             ", but found ", indices);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t have = input.getDimSize(i), want = indices.getDimSize(i);
    if (i != *axis && !ShapedType::isDynamic(have) &&
        !ShapedType::isDynamic(want) && want > have)
      return emitOptionalError(
          loc, "expected indices no larger than the input off the axis, but "
               "found ",
          indices, " for ", input);
  }
  inferred.push_back(
      RankedTensorType::get(indices.getShape(), input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(GatherElementsOp)

/// expand_c1 .. expand_c3
LogicalResult ExpandOp::verify() {
  auto input = getTensorType(getInput());
  auto result = getTensorType(getResult());
  if (input.getElementType() != result.getElementType())
    return emitOpError("expected result element type ")
           << input.getElementType() << ", but found "
           << result.getElementType();
  if (failed(verifyShapeOperand(*this, getShape(), result)))
    return failure();
  if (result.getRank() < input.getRank())
    return emitOpError("expected result rank >= input rank ")
           << input.getRank() << ", but found " << result.getRank();
  int64_t offset = result.getRank() - input.getRank();
  // expand_c4: without a shape operand a dynamic result dimension must come
  // from a dynamic input dimension.
  for (int64_t i = 0; i < result.getRank() && !getShape(); ++i) {
    if (!result.isDynamicDim(i))
      continue;
    if (i < offset || !input.isDynamicDim(i - offset))
      return emitOpError("expected a shape operand when result dimension ")
             << i << " is dynamic but the input does not give it";
  }
  for (int64_t i = 0; i < input.getRank(); ++i) {
    int64_t in = input.getDimSize(i), out = result.getDimSize(i + offset);
    if (in == 1 || ShapedType::isDynamic(in) || ShapedType::isDynamic(out))
      continue;
    if (in != out)
      return emitOpError("expected input dimension ")
             << i << " (" << in << ") to be 1 or equal to result dimension "
             << i + offset << ", but found " << out;
  }
  return success();
}

/// tile_c1, tile_c2
LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> repeats = adaptor.getRepeats();
  if ((int64_t)repeats.size() != input.getRank())
    return emitOptionalError(loc, "expected ", input.getRank(),
                             " repeats (one per dimension), but found ",
                             repeats.size());
  if (llvm::any_of(repeats, [](int64_t r) { return r < 0; }))
    return emitOptionalError(loc, "expected non-negative repeats, but found ",
                             formatList(repeats));
  SmallVector<int64_t> shape;
  for (auto [i, dim, r] : llvm::enumerate(input.getShape(), repeats)) {
    if (ShapedType::isDynamic(dim)) {
      shape.push_back(dim);
      continue;
    }
    // Huge repeats are user input: the product must not overflow.
    std::optional<int64_t> tiled = llvm::checkedMul(dim, r);
    if (!tiled)
      return emitOptionalError(loc, "expected dimension ", i, " tiled (", dim,
                               " x ", r, ") to fit in 64 bits");
    shape.push_back(*tiled);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(TileOp)

/// pad_c1 .. pad_c4
LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  int64_t rank = input.getRank();
  ArrayRef<int64_t> pads = adaptor.getPads();
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOptionalError(loc,
                             "expected mode \"constant\", \"reflect\", "
                             "\"edge\" or \"wrap\", but found \"",
                             mode, "\"");
  if ((int64_t)pads.size() != 2 * rank)
    return emitOptionalError(loc, "expected ", 2 * rank,
                             " pads (begins then ends), but found ",
                             pads.size());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t dim = input.getDimSize(i);
    if (ShapedType::isDynamic(dim)) {
      shape.push_back(dim);
      continue;
    }
    std::optional<int64_t> padded = llvm::checkedAdd(dim, pads[i]);
    if (padded)
      padded = llvm::checkedAdd(*padded, pads[i + rank]);
    if (!padded)
      return emitOptionalError(loc, "expected a padded size within int64 "
                                    "along dimension ",
                               i, ", but found pads ", pads[i], " and ",
                               pads[i + rank]);
    int64_t size = *padded;
    if (size < 0)
      return emitOptionalError(loc, "expected a non-negative size along "
                                    "dimension ",
                               i, ", but found ", size);
    if (mode == "reflect" && ((pads[i] > 0 && pads[i] >= dim) ||
                              (pads[i + rank] > 0 && pads[i + rank] >= dim)))
      return emitOptionalError(
          loc, "expected reflect pads smaller than dimension ", i, " (", dim,
          "), but found ", pads[i], " and ", pads[i + rank]);
    if ((mode == "edge" || mode == "wrap") && dim == 0 &&
        (pads[i] > 0 || pads[i + rank] > 0))
      return emitOptionalError(loc, "expected a non-empty dimension ", i,
                               " for \"", mode, "\" padding");
    shape.push_back(size);
  }
  inferred.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}
GRAPH_COMPATIBLE_RETURN_TYPES(PadOp)

/// resize_c1 .. resize_c5
LogicalResult ResizeOp::verify() {
  auto input = getTensorType(getInput());
  auto result = getTensorType(getResult());
  if (input.getElementType() != result.getElementType() ||
      input.getRank() != result.getRank())
    return emitOpError("expected result of rank ")
           << input.getRank() << " and element type " << input.getElementType()
           << ", but found " << result;
  if ((int64_t)getScales().size() != input.getRank())
    return emitOpError("expected ")
           << input.getRank() << " scales (one per dimension), but found "
           << getScales().size();
  if (llvm::any_of(getScales(), [](double s) { return !(s > 0.0); }))
    return emitOpError("expected positive scales");
  StringRef mode = getMode();
  if (mode != "nearest" && mode != "linear" && mode != "cubic")
    return emitOpError("expected mode \"nearest\", \"linear\" or \"cubic\", "
                       "but found \"")
           << mode << "\"";
  StringRef ctm = getCoordinateTransformationMode();
  if (!llvm::is_contained({"half_pixel", "half_pixel_symmetric",
                           "pytorch_half_pixel", "align_corners", "asymmetric",
                           "tf_crop_and_resize"},
                          ctm))
    return emitOpError("expected a supported coordinate_transformation_mode, "
                       "but found \"")
           << ctm << "\"";
  if (ctm == "tf_crop_and_resize") {
    if (!getRoi() || (int64_t)getRoi()->size() != 2 * input.getRank())
      return emitOpError("expected roi with ")
             << 2 * input.getRank()
             << " values for tf_crop_and_resize, but found "
             << (getRoi() ? (int64_t)getRoi()->size() : 0);
  } else if (getRoi()) {
    return emitOpError("expected no roi with coordinate_transformation_mode "
                       "\"")
           << ctm << "\", but found one";
  }
  StringRef nearest = getNearestMode();
  if (!llvm::is_contained(
          {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"},
          nearest))
    return emitOpError("expected a supported nearest_mode, but found \"")
           << nearest << "\"";
  return success();
}

#define GET_OP_CLASSES
#include "ms/Dialect/Graph/IR/GraphOps.cpp.inc"

//===----------------------------------------------------------------------===//
// String ops
//===----------------------------------------------------------------------===//

/// string_normalizer_c1: words [C] or [1, C]; c2: a known action; c3: the
/// result has the input's rank, [?] / [1, ?] with stop words (the count is
/// data-dependent), else the input's shape (at least one word).
LogicalResult StringNormalizerOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> shape = input.getShape();
  if (shape.size() < 1 || shape.size() > 2 ||
      (shape.size() == 2 && shape[0] != 1 && !ShapedType::isDynamic(shape[0])))
    return emitOptionalError(loc, "expected words of shape [C] or [1, C], but "
                                  "found ",
                             input);
  StringRef action = adaptor.getCaseChangeAction();
  if (action != "NONE" && action != "UPPER" && action != "LOWER")
    return emitOptionalError(loc, "expected case_change_action NONE, UPPER or "
                                  "LOWER, but found '",
                             action, "'");
  SmallVector<int64_t> result = llvm::to_vector(shape);
  if (shape.size() == 2)
    result[0] = 1;
  int64_t &count = result.back();
  if (!adaptor.getStopwords().empty())
    count = ShapedType::kDynamic;
  else if (count == 0)
    count = 1;
  inferred.push_back(RankedTensorType::get(result, input.getElementType()));
  return success();
}
bool StringNormalizerOp::isCompatibleReturnTypes(TypeRange l, TypeRange r) {
  return areCompatibleTypeRanges(l, r);
}
LogicalResult StringNormalizerOp::verify() {
  if (failed(verifyByInference(*this)))
    return failure();
  // string_normalizer_c3: a data-dependent count cannot be declared static.
  if (!getStopwords().empty() && getType().hasStaticShape())
    return emitOpError("expected a dynamic last result extent (the number of "
                       "words kept depends on the data), but found ")
           << getType();
  return success();
}
