//===- Linear.cpp - matmul, convolution, pooling, normalization -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// matmul maps to linalg.matmul / batch_matmul when no batch broadcasting is
// needed and to a contraction generic otherwise. Convolutions and pooling are
// windowed generics over an explicitly padded input (groups split the channel
// dimension); conv_transpose is a stride-1 convolution over the input
// scattered into a zero tensor, with the kernel flipped.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::detail;
namespace graph = mlir::ms::graph;

static Value addOrFma(OpBuilder &b, Location loc, Value acc, Value x,
                      Value y) {
  if (isa<FloatType>(acc.getType()))
    return arith::AddFOp::create(b, loc, acc,
                                 arith::MulFOp::create(b, loc, x, y));
  return arith::AddIOp::create(b, loc, acc, arith::MulIOp::create(b, loc, x, y));
}

static SmallVector<int64_t> attrOr(std::optional<ArrayRef<int64_t>> attr,
                                   size_t n, int64_t fill) {
  return attr ? llvm::to_vector(*attr) : SmallVector<int64_t>(n, fill);
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

namespace {
/// Half-precision (f16, bf16) matmul and convolutions accumulate in f32:
/// the op is rewritten on f32 operands (msgraph.cast up) and its result cast
/// back, so every sum rounds once, as NumPy's and PyTorch's half-precision
/// dot products do, instead of once per term.
template <typename OpTy>
struct WidenHalfPrecision final : OpConversionPattern<OpTy> {
  WidenHalfPrecision(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern<OpTy>(converter, ctx, /*benefit=*/2) {}

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elem = resultType.getElementType();
    if (!elem.isF16() && !elem.isBF16())
      return rewriter.notifyMatchFailure(op, "not half precision");
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> operands;
    for (Value operand : op->getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      operands.push_back(
          graph::CastOp::create(rewriter, loc, type.clone(f32), operand));
    }
    OperationState state(loc, op->getName(), operands,
                         TypeRange{resultType.clone(f32)});
    state.propertiesAttr = op->getPropertiesAsAttribute();
    state.addAttributes(llvm::to_vector(op->getDiscardableAttrs()));
    Operation *wide = rewriter.create(state);
    rewriter.replaceOpWithNewOp<graph::CastOp>(op, resultType,
                                               wide->getResult(0));
    return success();
  }
};

struct MatMulToLinalg final : OpConversionPattern<graph::MatMulOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::MatMulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    Type elem = elementTypeOf(lhs);
    SmallVector<int64_t> l = llvm::to_vector(shapeOf(lhs));
    SmallVector<int64_t> r = llvm::to_vector(shapeOf(rhs));
    if (l.size() == 1) {
      l.insert(l.begin(), 1);
      lhs = reshapeTo(rewriter, loc, lhs, l);
    }
    if (r.size() == 1) {
      r.push_back(1);
      rhs = reshapeTo(rewriter, loc, rhs, r);
    }
    int64_t m = l[l.size() - 2], n = r.back();
    ArrayRef<int64_t> lb = ArrayRef(l).drop_back(2), rb = ArrayRef(r).drop_back(2);
    SmallVector<int64_t> batch = *graph::broadcastShapes(lb, rb);
    SmallVector<int64_t> outShape = batch;
    outShape.append({m, n});
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    Value init = filledTensor(rewriter, loc, outShape, elem, zero);
    Value result;
    if (batch.empty()) {
      result = linalg::MatmulOp::create(rewriter, loc, ValueRange{lhs, rhs},
                                        ValueRange{init})
                   .getResult(0);
    } else if (batch.size() == 1 && lb == rb) {
      result = linalg::BatchMatmulOp::create(
                   rewriter, loc, ValueRange{lhs, rhs}, ValueRange{init})
                   .getResult(0);
    } else {
      // Loops: batch..., m, n, k.
      int64_t nb = batch.size(), loops = nb + 3;
      MLIRContext *ctx = rewriter.getContext();
      auto operandMap = [&](Value &v, ArrayRef<int64_t> vb, bool isLhs) {
        SmallVector<int64_t> kept;
        SmallVector<AffineExpr> exprs;
        int64_t offset = nb - vb.size();
        for (int64_t i = 0; i < (int64_t)vb.size(); ++i) {
          if (vb[i] == 1 && batch[i + offset] != 1)
            continue;
          kept.push_back(vb[i]);
          exprs.push_back(getAffineDimExpr(i + offset, ctx));
        }
        ArrayRef<int64_t> full = shapeOf(v);
        kept.append(full.end() - 2, full.end());
        v = reshapeTo(rewriter, loc, v, kept);
        AffineExpr mDim = getAffineDimExpr(nb, ctx),
                   nDim = getAffineDimExpr(nb + 1, ctx),
                   kDim = getAffineDimExpr(nb + 2, ctx);
        if (isLhs)
          exprs.append({mDim, kDim});
        else
          exprs.append({kDim, nDim});
        return AffineMap::get(loops, 0, exprs, ctx);
      };
      AffineMap lmap = operandMap(lhs, lb, true);
      AffineMap rmap = operandMap(rhs, rb, false);
      AffineMap omap = AffineMap::getMinorIdentityMap(loops, nb + 2, ctx);
      SmallVector<AffineExpr> oexprs;
      for (int64_t i = 0; i < nb + 2; ++i)
        oexprs.push_back(getAffineDimExpr(i, ctx));
      omap = AffineMap::get(loops, 0, oexprs, ctx);
      result = linalg::GenericOp::create(
                   rewriter, loc, TypeRange{init.getType()},
                   ValueRange{lhs, rhs}, ValueRange{init},
                   ArrayRef<AffineMap>{lmap, rmap, omap},
                   iterators(nb + 2, 1),
                   [&](OpBuilder &b, Location l, ValueRange args) {
                     linalg::YieldOp::create(
                         b, l, addOrFma(b, l, args[2], args[0], args[1]));
                   })
                   .getResult(0);
    }
    auto resultType = convertTensorType(*getTypeConverter(), op.getType());
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// Accumulates a grouped N-d convolution into `init` ([N, M, O...]):
///   out[n, g, mg, o] += in[n, g, c, o * s + k * d] * w[g, mg, c, k]
/// `input` is already padded. With `transposedWeight` the weight is laid out
/// [C, M/G, K...] and read flipped (for conv_transpose).
static Value buildConv(OpBuilder &b, Location loc, Value input, Value weight,
                       Value init, int64_t group, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations, bool transposedWeight) {
  MLIRContext *ctx = b.getContext();
  ArrayRef<int64_t> in = shapeOf(input), w = shapeOf(weight), out = shapeOf(init);
  int64_t k = in.size() - 2;
  int64_t cg = in[1] / group, mg = out[1] / group;
  SmallVector<int64_t> in5 = {in[0], group, cg};
  in5.append(in.begin() + 2, in.end());
  SmallVector<int64_t> w5 = transposedWeight
                                ? SmallVector<int64_t>{group, cg, mg}
                                : SmallVector<int64_t>{group, mg, cg};
  w5.append(w.begin() + 2, w.end());
  SmallVector<int64_t> out5 = {out[0], group, mg};
  out5.append(out.begin() + 2, out.end());
  Value in5v = reshapeTo(b, loc, input, in5);
  Value w5v = reshapeTo(b, loc, weight, w5);
  Value out5v = reshapeTo(b, loc, init, out5);

  // Loops: n, g, mg, o_1..o_k, c, k_1..k_k.
  int64_t loops = 4 + 2 * k;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  AffineExpr n = d(0), g = d(1), m = d(2), c = d(3 + k);
  SmallVector<AffineExpr> inExprs = {n, g, c}, wExprs, outExprs = {n, g, m};
  wExprs = transposedWeight ? SmallVector<AffineExpr>{g, c, m}
                            : SmallVector<AffineExpr>{g, m, c};
  for (int64_t i = 0; i < k; ++i) {
    AffineExpr o = d(3 + i), kk = d(4 + k + i);
    inExprs.push_back(o * strides[i] + kk * dilations[i]);
    wExprs.push_back(transposedWeight ? (w[2 + i] - 1) - kk : kk);
    outExprs.push_back(o);
  }
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                 AffineMap::get(loops, 0, wExprs, ctx)};
  SmallVector<Value> inputs = {in5v, w5v};
  if (transposedWeight) {
    // The flipped kernel index is not a plain loop dimension, so a window
    // operand gives the kernel loops their bounds (as linalg pooling does).
    SmallVector<AffineExpr> winExprs;
    for (int64_t i = 0; i < k; ++i)
      winExprs.push_back(d(4 + k + i));
    inputs.push_back(emptyTensor(
        b, loc, ArrayRef<int64_t>(w).drop_front(2), elementTypeOf(input)));
    maps.push_back(AffineMap::get(loops, 0, winExprs, ctx));
  }
  maps.push_back(AffineMap::get(loops, 0, outExprs, ctx));
  Value result =
      linalg::GenericOp::create(
          b, loc, TypeRange{out5v.getType()}, inputs, ValueRange{out5v}, maps,
          iterators(3 + k, 1 + k),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l, addOrFma(nb, l, args.back(), args[0], args[1]));
          })
          .getResult(0);
  return reshapeTo(b, loc, result, out);
}

/// Adds a 1-D per-channel `bias` to `value` ([N, M, ...]).
static Value addChannelBias(OpBuilder &b, Location loc, Value value,
                            Value bias) {
  ArrayRef<int64_t> shape = shapeOf(value);
  SmallVector<int64_t> biasShape(shape.size() - 1, 1);
  biasShape[0] = shape[1];
  Value reshaped = reshapeTo(b, loc, bias, biasShape);
  return buildElementwise(b, loc, ValueRange{value, reshaped}, shape,
                          elementTypeOf(value),
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return Value(
                                arith::AddFOp::create(nb, l, a[0], a[1]));
                          });
}

namespace {
struct ConvToLinalg final : OpConversionPattern<graph::ConvOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::ConvOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    int64_t k = shapeOf(input).size() - 2;
    auto strides = attrOr(op.getStrides(), k, 1);
    auto dilations = attrOr(op.getDilations(), k, 1);
    auto pads = attrOr(op.getPads(), 2 * k, 0);
    Type elem = elementTypeOf(input);
    SmallVector<int64_t> low(2, 0), high(2, 0);
    low.append(pads.begin(), pads.begin() + k);
    high.append(pads.begin() + k, pads.end());
    Value padded = padTensor(rewriter, loc, input, low, high,
                             scalarConstant(rewriter, loc, elem, 0.0));
    auto resultType = convertTensorType(*getTypeConverter(), op.getType());
    Value init = filledTensor(rewriter, loc, resultType.getShape(), elem,
                              scalarConstant(rewriter, loc, elem, 0.0));
    Value result = buildConv(rewriter, loc, padded, adaptor.getWeight(), init,
                             op.getGroup(), strides, dilations, false);
    if (Value bias = adaptor.getBias())
      result = addChannelBias(rewriter, loc, result, bias);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ConvTransposeToLinalg final
    : OpConversionPattern<graph::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    ArrayRef<int64_t> in = shapeOf(input), w = shapeOf(weight);
    int64_t k = in.size() - 2;
    auto strides = attrOr(op.getStrides(), k, 1);
    auto dilations = attrOr(op.getDilations(), k, 1);
    auto pads = attrOr(op.getPads(), 2 * k, 0);
    auto outPad = attrOr(op.getOutputPadding(), k, 0);
    Type elem = elementTypeOf(input);
    auto resultType = convertTensorType(*getTypeConverter(), op.getType());
    ArrayRef<int64_t> out = resultType.getShape();

    // Scatter the input with stride s into zeros, framed by (K-1)*d zeros.
    SmallVector<int64_t> scattered = {in[0], in[1]};
    SmallVector<OpFoldResult> offsets = {rewriter.getIndexAttr(0),
                                         rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(in[0]),
                                       rewriter.getIndexAttr(in[1])};
    SmallVector<OpFoldResult> steps = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(1)};
    SmallVector<int64_t> full = {out[0], out[1]};
    for (int64_t i = 0; i < k; ++i) {
      int64_t frame = (w[2 + i] - 1) * dilations[i];
      scattered.push_back((in[2 + i] - 1) * strides[i] + 1 + 2 * frame +
                          outPad[i]);
      offsets.push_back(rewriter.getIndexAttr(frame));
      sizes.push_back(rewriter.getIndexAttr(in[2 + i]));
      steps.push_back(rewriter.getIndexAttr(strides[i]));
      full.push_back(scattered.back() - frame);
    }
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    Value zeros = filledTensor(rewriter, loc, scattered, elem, zero);
    Value spread = tensor::InsertSliceOp::create(rewriter, loc, input, zeros,
                                                 offsets, sizes, steps);
    Value init = filledTensor(rewriter, loc, full, elem, zero);
    SmallVector<int64_t> ones(k, 1);
    Value conv = buildConv(rewriter, loc, spread, weight, init, op.getGroup(),
                           ones, dilations, /*transposedWeight=*/true);
    // Crop the begin padding and whatever the end padding removes.
    SmallVector<OpFoldResult> cropOffsets = {rewriter.getIndexAttr(0),
                                             rewriter.getIndexAttr(0)};
    SmallVector<OpFoldResult> cropSizes, cropSteps;
    for (int64_t i = 0; i < k; ++i)
      cropOffsets.push_back(rewriter.getIndexAttr(pads[i]));
    for (int64_t d : out) {
      cropSizes.push_back(rewriter.getIndexAttr(d));
      cropSteps.push_back(rewriter.getIndexAttr(1));
    }
    Value result = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get(out, elem), conv, cropOffsets,
        cropSizes, cropSteps);
    if (Value bias = adaptor.getBias())
      result = addChannelBias(rewriter, loc, result, bias);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// The sliding-window geometry shared by the pool lowerings: the input is
/// padded by `low`/`high` (`high` also covers what ceil_mode's last window
/// reads past the end padding), and one generic iterates (n, c, o_1..o_k,
/// k_1..k_k) reading the padded input and a kernel-shaped dummy window and
/// writing the output.
struct PoolWindow {
  int64_t k;
  SmallVector<int64_t> kernel, strides, dilations, pads, low, high;
  /// Maps of the padded input, the window and the output.
  SmallVector<AffineMap> maps;
};

template <typename OpTy>
static PoolWindow getPoolWindow(OpTy op, ArrayRef<int64_t> in,
                                ArrayRef<int64_t> out, MLIRContext *ctx) {
  PoolWindow w;
  int64_t k = w.k = in.size() - 2;
  w.kernel = llvm::to_vector(op.getKernelShape());
  w.strides = attrOr(op.getStrides(), k, 1);
  w.dilations = attrOr(op.getDilations(), k, 1);
  w.pads = attrOr(op.getPads(), 2 * k, 0);
  w.low.assign(2, 0);
  w.high.assign(2, 0);
  for (int64_t i = 0; i < k; ++i) {
    int64_t need = (out[2 + i] - 1) * w.strides[i] +
                   (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t have = in[2 + i] + w.pads[i] + w.pads[i + k];
    w.low.push_back(w.pads[i]);
    w.high.push_back(w.pads[i + k] + std::max<int64_t>(0, need - have));
  }
  int64_t loops = 2 + 2 * k;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> inExprs = {d(0), d(1)}, winExprs,
                          outExprs = {d(0), d(1)};
  for (int64_t i = 0; i < k; ++i) {
    inExprs.push_back(d(2 + i) * w.strides[i] +
                      d(2 + k + i) * w.dilations[i]);
    winExprs.push_back(d(2 + k + i));
    outExprs.push_back(d(2 + i));
  }
  w.maps = {AffineMap::get(loops, 0, inExprs, ctx),
            AffineMap::get(loops, 0, winExprs, ctx),
            AffineMap::get(loops, 0, outExprs, ctx)};
  return w;
}

template <typename OpTy, bool isMax>
struct PoolToLinalg final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> in = shapeOf(input);
    Type elem = elementTypeOf(input);
    auto resultType =
        convertTensorType(*this->getTypeConverter(), op.getType());
    ArrayRef<int64_t> out = resultType.getShape();
    PoolWindow w = getPoolWindow(op, in, out, ctx);
    int64_t k = w.k;
    ArrayRef<int64_t> kernel = w.kernel, strides = w.strides,
                      dilations = w.dilations, pads = w.pads;
    bool isUnsigned = getElementTypeOrSelf(op.getInput().getType())
                          .isUnsignedInteger();
    Value padValue = isMax ? lowestValue(rewriter, loc, elem, isUnsigned)
                           : scalarConstant(rewriter, loc, elem, 0.0);
    Value padded = padTensor(rewriter, loc, input, w.low, w.high, padValue);
    Value init = filledTensor(rewriter, loc, out, elem, padValue);
    Value window = emptyTensor(rewriter, loc, kernel, elem);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()},
            ValueRange{padded, window}, ValueRange{init}, w.maps,
            iterators(2 + k, k),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value r = isMax ? maxScalar(b, l, args[2], args[0], isUnsigned)
                              : Value(arith::AddFOp::create(b, l, args[2],
                                                            args[0]));
              linalg::YieldOp::create(b, l, r);
            })
            .getResult(0);
    if constexpr (!isMax) {
      // Divide by the number of counted window positions, a compile-time
      // constant per output position.
      bool includePad = op.getCountIncludePad();
      SmallVector<SmallVector<double>> perDim(k);
      for (int64_t i = 0; i < k; ++i) {
        for (int64_t o = 0; o < out[2 + i]; ++o) {
          int64_t count = 0;
          for (int64_t j = 0; j < kernel[i]; ++j) {
            int64_t p = o * strides[i] + j * dilations[i] - pads[i];
            int64_t lo = includePad ? -pads[i] : 0;
            int64_t hi = includePad ? in[2 + i] + pads[i + k] : in[2 + i];
            count += p >= lo && p < hi;
          }
          perDim[i].push_back(std::max<int64_t>(count, 1));
        }
      }
      SmallVector<int64_t> spatial(out.begin() + 2, out.end());
      SmallVector<double> divisors;
      int64_t total = ShapedType::getNumElements(spatial);
      for (int64_t flat = 0; flat < total; ++flat) {
        double v = 1.0;
        int64_t rem = flat;
        for (int64_t i = k - 1; i >= 0; --i) {
          v *= perDim[i][rem % spatial[i]];
          rem /= spatial[i];
        }
        divisors.push_back(v);
      }
      auto divType = RankedTensorType::get(spatial, elem);
      SmallVector<Attribute> attrs;
      for (double v : divisors)
        attrs.push_back(rewriter.getFloatAttr(elem, v));
      Value divisor = arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(divType, attrs));
      result = buildElementwise(
          rewriter, loc, ValueRange{result, divisor}, out, elem,
          [](OpBuilder &b, Location l, ValueRange a) {
            return Value(arith::DivFOp::create(b, l, a[0], a[1]));
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// msgraph.max_pool_indices: one generic over (n, c, o..., k...) carrying
/// the running maximum and its flat position; a window position replaces
/// them when it is inside the input and either nothing was taken yet or it
/// is strictly greater (so the first maximum wins).
struct MaxPoolIndicesToLinalg final
    : OpConversionPattern<graph::MaxPoolIndicesOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::MaxPoolIndicesOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> in = shapeOf(input);
    Type elem = elementTypeOf(input);
    auto resultType = cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> out = resultType.getShape();
    if (!resultType.hasStaticShape() || ShapedType::isDynamicShape(in))
      return rewriter.notifyMatchFailure(op, "expected static shapes");
    PoolWindow w = getPoolWindow(op, in, out, ctx);
    int64_t k = w.k;
    ArrayRef<int64_t> strides = w.strides, dilations = w.dilations,
                      pads = w.pads;
    bool isUnsigned = getElementTypeOrSelf(op.getInput().getType())
                          .isUnsignedInteger();
    Value lowest = lowestValue(rewriter, loc, elem, isUnsigned);
    Value padded = padTensor(rewriter, loc, input, w.low, w.high, lowest);
    Value initMax = filledTensor(rewriter, loc, out, elem, lowest);
    Type i64 = rewriter.getI64Type();
    Value initIndex = filledTensor(
        rewriter, loc, out, i64,
        arith::ConstantOp::create(rewriter, loc, rewriter.getI64IntegerAttr(-1)));
    Value window = emptyTensor(rewriter, loc, w.kernel, elem);
    // The running maximum and its position share the output map.
    SmallVector<AffineMap> maps = w.maps;
    maps.push_back(w.maps.back());
    int64_t spatialSize = 1;
    for (int64_t i = 0; i < k; ++i)
      spatialSize *= in[2 + i];
    bool columnMajor = op.getColumnMajor();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{initMax.getType(), initIndex.getType()},
        ValueRange{padded, window}, ValueRange{initMax, initIndex}, maps,
        iterators(2 + k, k), [&](OpBuilder &b, Location l, ValueRange args) {
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          auto dim = [&](int64_t i) -> Value {
            return arith::IndexCastOp::create(
                b, l, b.getI64Type(), linalg::IndexOp::create(b, l, i));
          };
          // The position of this window element in the unpadded input.
          Value valid = arith::ConstantOp::create(b, l, b.getBoolAttr(true));
          SmallVector<Value> position;
          for (int64_t i = 0; i < k; ++i) {
            Value p = arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, dim(2 + i), constant(strides[i])),
                arith::MulIOp::create(b, l, dim(2 + k + i),
                                      constant(dilations[i])));
            p = arith::SubIOp::create(b, l, p, constant(pads[i]));
            Value inside = arith::AndIOp::create(
                b, l,
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, p,
                                      constant(0)),
                arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, p,
                                      constant(in[2 + i])));
            valid = arith::AndIOp::create(b, l, valid, inside);
            position.push_back(p);
          }
          Value flat = arith::AddIOp::create(
              b, l,
              arith::MulIOp::create(b, l, dim(0), constant(in[1])), dim(1));
          flat = arith::MulIOp::create(b, l, flat, constant(spatialSize));
          Value spatial = constant(0);
          if (columnMajor) {
            for (int64_t i = k - 1; i >= 0; --i)
              spatial = arith::AddIOp::create(
                  b, l,
                  arith::MulIOp::create(b, l, spatial, constant(in[2 + i])),
                  position[i]);
          } else {
            for (int64_t i = 0; i < k; ++i)
              spatial = arith::AddIOp::create(
                  b, l,
                  arith::MulIOp::create(b, l, spatial, constant(in[2 + i])),
                  position[i]);
          }
          flat = arith::AddIOp::create(b, l, flat, spatial);
          Value x = args[0], best = args[2], bestIndex = args[3];
          Value greater;
          if (isa<FloatType>(elem))
            greater = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                            best);
          else
            greater = arith::CmpIOp::create(
                b, l,
                isUnsigned ? arith::CmpIPredicate::ugt
                           : arith::CmpIPredicate::sgt,
                x, best);
          Value none = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                             bestIndex, constant(0));
          Value take = arith::AndIOp::create(
              b, l, valid, arith::OrIOp::create(b, l, none, greater));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, x, best),
                         arith::SelectOp::create(b, l, take, flat, bestIndex)});
        });
    rewriter.replaceOp(op, generic.getResult(1));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Returns (x - mean) / sqrt(var + eps) with mean and variance over the dims
/// marked in `reduced` (population variance).
static Value normalize(OpBuilder &b, Location loc, Value x,
                       ArrayRef<bool> reduced, double epsilon) {
  ArrayRef<int64_t> shape = shapeOf(x);
  Type elem = elementTypeOf(x);
  int64_t count = 1;
  SmallVector<int64_t> keptWithOnes;
  for (auto [d, r] : llvm::zip_equal(shape, reduced)) {
    if (r)
      count *= d;
    keptWithOnes.push_back(r ? 1 : d);
  }
  auto meanOf = [&](Value v) {
    Value sum = reduce(b, loc, v, reduced, Combine::Sum, /*isUnsigned=*/false);
    Value mean = buildElementwise(
        b, loc, ValueRange{sum}, shapeOf(sum), elem,
        [&](OpBuilder &nb, Location l, ValueRange a) {
          return Value(arith::DivFOp::create(
              nb, l, a[0], scalarConstant(nb, l, elem, (double)count)));
        });
    return reshapeTo(b, loc, mean, keptWithOnes);
  };
  Value mean = meanOf(x);
  Value diff = buildElementwise(b, loc, ValueRange{x, mean}, shape, elem,
                                [](OpBuilder &nb, Location l, ValueRange a) {
                                  return Value(
                                      arith::SubFOp::create(nb, l, a[0], a[1]));
                                });
  Value sq = buildElementwise(b, loc, ValueRange{diff}, shape, elem,
                              [](OpBuilder &nb, Location l, ValueRange a) {
                                return Value(
                                    arith::MulFOp::create(nb, l, a[0], a[0]));
                              });
  Value var = meanOf(sq);
  return buildElementwise(
      b, loc, ValueRange{diff, var}, shape, elem,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value denom = math::SqrtOp::create(
            nb, l,
            arith::AddFOp::create(nb, l, a[1],
                                  scalarConstant(nb, l, elem, epsilon)));
        return Value(arith::DivFOp::create(nb, l, a[0], denom));
      });
}

/// `value * scale + bias` with numpy broadcasting (bias optional).
static Value scaleAndShift(OpBuilder &b, Location loc, Value value,
                           Value scale, Value bias) {
  SmallVector<Value> operands = {value, scale};
  if (bias)
    operands.push_back(bias);
  return buildElementwise(
      b, loc, operands, shapeOf(value), elementTypeOf(value),
      [&](OpBuilder &nb, Location l, ValueRange a) {
        Value r = arith::MulFOp::create(nb, l, a[0], a[1]);
        if (a.size() == 3)
          r = arith::AddFOp::create(nb, l, r, a[2]);
        return r;
      });
}

/// Reshapes a 1-D channel parameter to [C, 1, ..., 1] so that it broadcasts
/// over an [N, C, ...] tensor of `rank`.
static Value channelParam(OpBuilder &b, Location loc, Value param,
                          int64_t rank) {
  SmallVector<int64_t> shape(rank - 1, 1);
  shape[0] = shapeOf(param)[0];
  return reshapeTo(b, loc, param, shape);
}

struct BatchNormToLinalg final : OpConversionPattern<graph::BatchNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    int64_t rank = shapeOf(x).size();
    double eps = op.getEpsilon().convertToDouble();
    Type elem = elementTypeOf(x);
    SmallVector<Value> operands = {x};
    for (Value p : {adaptor.getScale(), adaptor.getBias(), adaptor.getMean(),
                    adaptor.getVariance()})
      operands.push_back(channelParam(rewriter, loc, p, rank));
    Value result = buildElementwise(
        rewriter, loc, operands, shapeOf(x), elem,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value denom = math::SqrtOp::create(
              b, l,
              arith::AddFOp::create(b, l, a[4], scalarConstant(b, l, elem, eps)));
          Value norm = arith::DivFOp::create(
              b, l, arith::SubFOp::create(b, l, a[0], a[3]), denom);
          return Value(arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, norm, a[1]), a[2]));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct InstanceNormToLinalg final
    : OpConversionPattern<graph::InstanceNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::InstanceNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    int64_t rank = shapeOf(x).size();
    SmallVector<bool> reduced(rank, true);
    reduced[0] = reduced[1] = false;
    Value norm = normalize(rewriter, loc, x, reduced,
                           op.getEpsilon().convertToDouble());
    rewriter.replaceOp(
        op, scaleAndShift(rewriter, loc, norm,
                          channelParam(rewriter, loc, adaptor.getScale(), rank),
                          channelParam(rewriter, loc, adaptor.getBias(), rank)));
    return success();
  }
};

struct LayerNormToLinalg final : OpConversionPattern<graph::LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput();
    int64_t rank = shapeOf(x).size();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    SmallVector<bool> reduced(rank, false);
    for (int64_t i = axis; i < rank; ++i)
      reduced[i] = true;
    Value norm = normalize(rewriter, loc, x, reduced,
                           op.getEpsilon().convertToDouble());
    rewriter.replaceOp(op, scaleAndShift(rewriter, loc, norm,
                                         adaptor.getScale(), adaptor.getBias()));
    return success();
  }
};

struct LRNToLinalg final : OpConversionPattern<graph::LRNOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(graph::LRNOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    ArrayRef<int64_t> shape = shapeOf(x);
    int64_t rank = shape.size(), size = op.getSize();
    Type elem = elementTypeOf(x);
    Value zero = scalarConstant(rewriter, loc, elem, 0.0);
    Value sq = buildElementwise(rewriter, loc, ValueRange{x}, shape, elem,
                                [](OpBuilder &b, Location l, ValueRange a) {
                                  return Value(
                                      arith::MulFOp::create(b, l, a[0], a[0]));
                                });
    SmallVector<int64_t> low(rank, 0), high(rank, 0);
    low[1] = (size - 1) / 2;
    high[1] = size - 1 - low[1];
    Value padded = padTensor(rewriter, loc, sq, low, high, zero);
    Value window = emptyTensor(rewriter, loc, {size}, elem);
    Value init = filledTensor(rewriter, loc, shape, elem, zero);
    // Loops: the dims of x, then the channel window j.
    SmallVector<AffineExpr> inExprs;
    for (int64_t i = 0; i < rank; ++i)
      inExprs.push_back(i == 1 ? getAffineDimExpr(1, ctx) +
                                     getAffineDimExpr(rank, ctx)
                               : getAffineDimExpr(i, ctx));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, inExprs, ctx),
        AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
        AffineMap::getMinorIdentityMap(rank + 1, rank, ctx)};
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < rank; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    maps[2] = AffineMap::get(rank + 1, 0, outExprs, ctx);
    Value sums =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{init.getType()},
            ValueRange{padded, window}, ValueRange{init}, maps,
            iterators(rank, 1),
            [&](OpBuilder &b, Location l, ValueRange a) {
              linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[2], a[0]).getResult()});
            })
            .getResult(0);
    double alpha = op.getAlpha().convertToDouble() / size;
    double beta = op.getBeta().convertToDouble();
    double bias = op.getBias().convertToDouble();
    Value result = buildElementwise(
        rewriter, loc, ValueRange{x, sums}, shape, elem,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value base = arith::AddFOp::create(
              b, l, scalarConstant(b, l, elem, bias),
              arith::MulFOp::create(b, l, scalarConstant(b, l, elem, alpha),
                                    a[1]));
          Value denom = math::PowFOp::create(b, l, base,
                                             scalarConstant(b, l, elem, beta));
          return Value(arith::DivFOp::create(b, l, a[0], denom));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::ms::populateGraphLinearToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<MatMulToLinalg, ConvToLinalg, ConvTransposeToLinalg,
               PoolToLinalg<graph::MaxPoolOp, true>,
               PoolToLinalg<graph::AvgPoolOp, false>, MaxPoolIndicesToLinalg,
               WidenHalfPrecision<graph::MatMulOp>,
               WidenHalfPrecision<graph::ConvOp>,
               WidenHalfPrecision<graph::ConvTransposeOp>,
               BatchNormToLinalg,
               InstanceNormToLinalg, LayerNormToLinalg, LRNToLinalg>(
      converter, patterns.getContext());
}
