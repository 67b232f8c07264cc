//===- DataMovement.cpp - data movement and constants to linalg -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Reshapes become collapse/expand_shape; gathers, strided and reversed
// slices, tiles and non-constant pads become generics that compute a source
// index per output element and `tensor.extract` it. Resize precomputes, per
// resized dimension, the source indices and interpolation weights of each
// output coordinate (the shapes are static) and sums the weighted taps.
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

/// Builds a generic over `outShape` whose body gets the loop indices (as
/// `index` values) and the generic's extra inputs' scalars and returns the
/// output element.
static Value buildIndexed(
    OpBuilder &b, Location loc, ArrayRef<int64_t> outShape, Type elem,
    ValueRange inputs, ArrayRef<AffineMap> inputMaps,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, ValueRange)>
        body) {
  Value init = emptyTensor(b, loc, outShape, elem);
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(identityMap(b.getContext(), outShape.size()));
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             iterators(outShape.size()),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               SmallVector<Value> idx;
               for (int64_t i = 0; i < (int64_t)outShape.size(); ++i)
                 idx.push_back(linalg::IndexOp::create(nb, l, i));
               Value r = body(nb, l, idx, args.drop_back());
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

static Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

namespace {

struct ReshapeToTensor final : OpConversionPattern<graph::ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    rewriter.replaceOp(op, reshapeTo(rewriter, op.getLoc(), adaptor.getInput(),
                                     type.getShape()));
    return success();
  }
};

struct TransposeToLinalg final : OpConversionPattern<graph::TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Value init = emptyTensor(rewriter, op.getLoc(), type.getShape(),
                             type.getElementType());
    rewriter.replaceOp(op, linalg::TransposeOp::create(
                               rewriter, op.getLoc(), adaptor.getInput(), init,
                               op.getPermutation())
                               .getResult());
    return success();
  }
};

struct ConcatToTensor final : OpConversionPattern<graph::ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    int64_t rank = type.getRank();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    Value result =
        emptyTensor(rewriter, loc, type.getShape(), type.getElementType());
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> shape = shapeOf(input);
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t d = 0; d < rank; ++d) {
        offsets.push_back(rewriter.getIndexAttr(d == axis ? offset : 0));
        sizes.push_back(rewriter.getIndexAttr(shape[d]));
        strides.push_back(rewriter.getIndexAttr(1));
      }
      if (shape[axis] != 0)
        result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                               offsets, sizes, strides);
      offset += shape[axis];
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct SliceToTensor final : OpConversionPattern<graph::SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    ArrayRef<int64_t> starts = op.getStarts(), steps = op.getSteps();
    Value input = adaptor.getInput();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, type.getShape(),
                                         type.getElementType()));
      return success();
    }
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      SmallVector<OpFoldResult> offsets, sizes, strides;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        offsets.push_back(rewriter.getIndexAttr(starts[d]));
        sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
        strides.push_back(rewriter.getIndexAttr(steps[d]));
      }
      rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
          op, type, input, offsets, sizes, strides);
      return success();
    }
    // Negative steps: compute the source index of every element.
    Value result = buildIndexed(
        rewriter, loc, type.getShape(), type.getElementType(), {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          SmallVector<Value> src;
          for (auto [d, i] : llvm::enumerate(idx)) {
            Value scaled = arith::MulIOp::create(b, l, i,
                                                 indexConst(b, l, steps[d]));
            src.push_back(arith::AddIOp::create(b, l, scaled,
                                                indexConst(b, l, starts[d])));
          }
          return Value(tensor::ExtractOp::create(b, l, input, src));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GatherToLinalg final : OpConversionPattern<graph::GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    ArrayRef<int64_t> inShape = shapeOf(input);
    int64_t rank = inShape.size();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    int64_t idxRank = shapeOf(indices).size();
    int64_t axisDim = inShape[axis];
    SmallVector<AffineExpr> idxExprs;
    for (int64_t i = 0; i < idxRank; ++i)
      idxExprs.push_back(getAffineDimExpr(axis + i, ctx));
    AffineMap idxMap = AffineMap::get(type.getRank(), 0, idxExprs, ctx);
    Value result = buildIndexed(
        rewriter, loc, type.getShape(), type.getElementType(), {indices},
        {idxMap},
        [&](OpBuilder &b, Location l, ArrayRef<Value> o, ValueRange args) {
          // Negative indices count from the end; out-of-range ones clamp.
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value isNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              i, indexConst(b, l, 0));
          Value wrapped = arith::AddIOp::create(b, l, i,
                                                indexConst(b, l, axisDim));
          i = arith::SelectOp::create(b, l, isNeg, wrapped, i);
          i = arith::MaxSIOp::create(b, l, i, indexConst(b, l, 0));
          i = arith::MinSIOp::create(
              b, l, i, indexConst(b, l, std::max<int64_t>(axisDim - 1, 0)));
          SmallVector<Value> src(o.begin(), o.begin() + axis);
          src.push_back(i);
          src.append(o.begin() + axis + idxRank, o.end());
          return Value(tensor::ExtractOp::create(b, l, input, src));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// gather_elements: for each result position, read the input there with the
/// axis coordinate replaced by the (wrapped, clamped) index.
struct GatherElementsToLinalg final
    : OpConversionPattern<graph::GatherElementsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::GatherElementsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Value input = adaptor.getInput(), indices = adaptor.getIndices();
    ArrayRef<int64_t> inShape = shapeOf(input);
    int64_t rank = inShape.size();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    int64_t axisDim = inShape[axis];
    Value result = buildIndexed(
        rewriter, loc, type.getShape(), type.getElementType(), {indices},
        {identityMap(rewriter.getContext(), rank)},
        [&](OpBuilder &b, Location l, ArrayRef<Value> o, ValueRange args) {
          Value i = arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value isNeg = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              i, indexConst(b, l, 0));
          Value wrapped =
              arith::AddIOp::create(b, l, i, indexConst(b, l, axisDim));
          i = arith::SelectOp::create(b, l, isNeg, wrapped, i);
          i = arith::MaxSIOp::create(b, l, i, indexConst(b, l, 0));
          i = arith::MinSIOp::create(
              b, l, i, indexConst(b, l, std::max<int64_t>(axisDim - 1, 0)));
          SmallVector<Value> src(o.begin(), o.end());
          src[axis] = i;
          return Value(tensor::ExtractOp::create(b, l, input, src));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExpandToLinalg final : OpConversionPattern<graph::ExpandOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ExpandOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    rewriter.replaceOp(
        op, buildElementwise(rewriter, op.getLoc(), adaptor.getInput(),
                             type.getShape(), type.getElementType(),
                             [](OpBuilder &, Location, ValueRange a) {
                               return a[0];
                             }));
    return success();
  }
};

struct TileToLinalg final : OpConversionPattern<graph::TileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::TileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> inShape = shapeOf(input);
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, op.getLoc(), type.getShape(),
                                         type.getElementType()));
      return success();
    }
    Value result = buildIndexed(
        rewriter, op.getLoc(), type.getShape(), type.getElementType(), {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          SmallVector<Value> src;
          for (auto [d, i] : llvm::enumerate(idx))
            src.push_back(
                arith::RemUIOp::create(b, l, i, indexConst(b, l, inShape[d])));
          return Value(tensor::ExtractOp::create(b, l, input, src));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct PadToLinalg final : OpConversionPattern<graph::PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::PadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> inShape = shapeOf(input);
    int64_t rank = inShape.size();
    ArrayRef<int64_t> pads = op.getPads();
    StringRef mode = op.getMode();
    Type elem = type.getElementType();
    double value = op.getValue().convertToDouble();
    if (type.getNumElements() == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, type.getShape(), elem));
      return success();
    }
    bool emptyInput = ShapedType::getNumElements(inShape) == 0;
    Value result = buildIndexed(
        rewriter, loc, type.getShape(), elem, {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          Value fill = scalarConstant(b, l, elem, value);
          if (emptyInput)
            return fill;
          Value inBounds;
          SmallVector<Value> src;
          for (int64_t d = 0; d < rank; ++d) {
            int64_t dim = inShape[d];
            Value i = arith::SubIOp::create(b, l, idx[d],
                                            indexConst(b, l, pads[d]));
            Value zero = indexConst(b, l, 0), last = indexConst(b, l, dim - 1);
            if (mode == "constant") {
              Value ge = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                               i, zero);
              Value le = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sle,
                                               i, last);
              Value ok = arith::AndIOp::create(b, l, ge, le);
              inBounds = inBounds ? Value(arith::AndIOp::create(b, l, inBounds,
                                                                ok))
                                  : ok;
              i = arith::MinSIOp::create(
                  b, l, arith::MaxSIOp::create(b, l, i, zero), last);
            } else if (mode == "edge") {
              i = arith::MinSIOp::create(
                  b, l, arith::MaxSIOp::create(b, l, i, zero), last);
            } else if (mode == "reflect") {
              // One reflection suffices: pads are smaller than the dim.
              Value neg = arith::SubIOp::create(b, l, zero, i);
              i = arith::MaxSIOp::create(b, l, i, neg);
              Value over = arith::SubIOp::create(
                  b, l, indexConst(b, l, 2 * (dim - 1)), i);
              i = arith::MinSIOp::create(b, l, i, over);
            } else {
              // wrap: ((i mod dim) + dim) mod dim.
              Value n = indexConst(b, l, dim);
              Value r = arith::RemSIOp::create(b, l, i, n);
              i = arith::RemSIOp::create(b, l, arith::AddIOp::create(b, l, r, n),
                                         n);
            }
            src.push_back(i);
          }
          Value v = tensor::ExtractOp::create(b, l, input, src);
          if (inBounds)
            v = arith::SelectOp::create(b, l, inBounds, v, fill);
          return v;
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// One interpolation tap of one dimension: a source index and a weight per
/// output coordinate.
struct Tap {
  SmallVector<int64_t> index;
  SmallVector<double> weight;
};

/// Maps an output coordinate to the input coordinate (ONNX Resize);
/// `roiStart`/`roiEnd` are the normalized region of tf_crop_and_resize.
static double sourceCoordinate(StringRef mode, int64_t x, int64_t inSize,
                               int64_t outSize, double scale,
                               double roiStart = 0.0, double roiEnd = 1.0) {
  if (mode == "tf_crop_and_resize") {
    if (outSize == 1)
      return (roiEnd - roiStart) * (inSize - 1) / 2.0;
    return roiStart * (inSize - 1) +
           x * (roiEnd - roiStart) * (inSize - 1) / (double)(outSize - 1);
  }
  if (mode == "align_corners") {
    // ONNX divides by the unrounded resized length (input length x scale).
    double length = inSize * scale;
    return length == 1.0 ? 0.0 : (double)x * (inSize - 1) / (length - 1.0);
  }
  if (mode == "asymmetric")
    return x / scale;
  if (mode == "pytorch_half_pixel")
    return outSize > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "half_pixel_symmetric") {
    double adjustment = outSize / (scale * inSize);
    double center = inSize / 2.0;
    double offset = center * (1 - adjustment);
    return offset + (x + 0.5) / scale - 0.5;
  }
  return (x + 0.5) / scale - 0.5; // half_pixel
}

static double cubicWeight(double t, double a) {
  t = std::fabs(t);
  if (t <= 1)
    return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2)
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

/// Computes the antialiased taps of one dimension: linear or cubic weights
/// over a filter widened by 1 / scale when downsampling, as ONNX's reference
/// does (the taps start left of the coordinate, which counts as a ratio of 1
/// past the previous sample when it is a whole number).
static SmallVector<Tap> antialiasTaps(graph::ResizeOp op, int64_t inSize,
                                      int64_t outSize, double scale,
                                      ArrayRef<double> coordinates) {
  bool linear = op.getMode() == "linear";
  double s = std::min(scale, 1.0);
  int64_t start = (int64_t)std::floor((linear ? -1.0 : -2.0) / s) + 1;
  int64_t n = 2 - 2 * start;
  double a = op.getCubicCoeffA().convertToDouble();
  SmallVector<Tap> taps(n);
  for (int64_t x = 0; x < outSize; ++x) {
    double c = coordinates[x], f = std::floor(c);
    double ratio = c == f ? 1.0 : c - f;
    int64_t base = (int64_t)f - (c == f ? 1 : 0);
    SmallVector<double> w(n);
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      double t = (start + j - ratio) * s;
      w[j] = linear ? std::max(0.0, 1.0 - std::fabs(t)) : cubicWeight(t, a);
      sum += w[j];
    }
    for (double &v : w)
      v /= sum;
    if (op.getExcludeOutside()) {
      sum = 0;
      for (int64_t j = 0; j < n; ++j) {
        int64_t src = base + start + j;
        if (src < 0 || src >= inSize)
          w[j] = 0;
        sum += w[j];
      }
      for (double &v : w)
        v = sum != 0 ? v / sum : v;
    }
    for (int64_t j = 0; j < n; ++j) {
      int64_t src = base + start + j;
      taps[j].index.push_back(std::min<int64_t>(std::max<int64_t>(src, 0),
                                                inSize - 1));
      taps[j].weight.push_back(w[j]);
    }
  }
  return taps;
}

/// Computes the taps of dimension `dim`; `valid[x]` says whether output
/// coordinate x samples inside the input (false only for tf_crop_and_resize
/// outside the input, where the result is the extrapolation value).
static SmallVector<Tap> resizeTaps(graph::ResizeOp op, int64_t dim,
                                   int64_t inSize, int64_t outSize,
                                   double scale, SmallVector<bool> &valid) {
  StringRef mode = op.getMode();
  StringRef ctm = op.getCoordinateTransformationMode();
  valid.assign(outSize, true);
  double roiStart = 0.0, roiEnd = 1.0;
  if (auto roi = op.getRoi()) {
    int64_t rank = roi->size() / 2;
    roiStart = (*roi)[dim];
    roiEnd = (*roi)[rank + dim];
  }
  SmallVector<double> coordinates;
  for (int64_t x = 0; x < outSize; ++x) {
    double c = sourceCoordinate(ctm, x, inSize, outSize, scale, roiStart,
                                roiEnd);
    coordinates.push_back(c);
    if (ctm == "tf_crop_and_resize" && (c < 0 || c > inSize - 1))
      valid[x] = false;
  }
  if (op.getAntialias() && mode != "nearest" &&
      !(inSize == outSize && scale == 1.0 && ctm != "align_corners" &&
        ctm != "tf_crop_and_resize"))
    return antialiasTaps(op, inSize, outSize, scale, coordinates);
  if (inSize == outSize && scale == 1.0 && ctm != "align_corners" &&
      ctm != "tf_crop_and_resize") {
    Tap t;
    for (int64_t x = 0; x < outSize; ++x) {
      t.index.push_back(x);
      t.weight.push_back(1.0);
    }
    return {t};
  }
  auto clampIndex = [&](int64_t i) {
    return std::min<int64_t>(std::max<int64_t>(i, 0), inSize - 1);
  };
  if (mode == "nearest") {
    Tap t;
    StringRef nearest = op.getNearestMode();
    for (int64_t x = 0; x < outSize; ++x) {
      double c = coordinates[x];
      double f = std::floor(c), frac = c - f;
      int64_t i;
      if (nearest == "floor")
        i = (int64_t)f;
      else if (nearest == "ceil")
        i = (int64_t)std::ceil(c);
      else if (frac == 0.5)
        i = nearest == "round_prefer_ceil" ? (int64_t)f + 1 : (int64_t)f;
      else
        i = (int64_t)std::round(c);
      t.index.push_back(clampIndex(i));
      t.weight.push_back(1.0);
    }
    return {t};
  }
  int64_t n = mode == "linear" ? 2 : 4;
  SmallVector<Tap> taps(n);
  for (int64_t x = 0; x < outSize; ++x) {
    double c = coordinates[x];
    if (mode == "linear") {
      c = std::min(std::max(c, 0.0), (double)(inSize - 1));
      int64_t i0 = (int64_t)std::floor(c);
      double w1 = c - i0;
      taps[0].index.push_back(clampIndex(i0));
      taps[0].weight.push_back(1.0 - w1);
      taps[1].index.push_back(clampIndex(i0 + 1));
      taps[1].weight.push_back(w1);
      continue;
    }
    int64_t i0 = (int64_t)std::floor(c);
    double frac = c - i0, sum = 0;
    double a = op.getCubicCoeffA().convertToDouble();
    SmallVector<double> w(4);
    for (int64_t j = 0; j < 4; ++j) {
      int64_t src = i0 - 1 + j;
      w[j] = cubicWeight(frac - (j - 1), a);
      if (op.getExcludeOutside() && (src < 0 || src >= inSize))
        w[j] = 0;
      sum += w[j];
    }
    for (int64_t j = 0; j < 4; ++j) {
      taps[j].index.push_back(clampIndex(i0 - 1 + j));
      taps[j].weight.push_back(op.getExcludeOutside() && sum != 0 ? w[j] / sum
                                                                  : w[j]);
    }
  }
  return taps;
}

struct ResizeToLinalg final : OpConversionPattern<graph::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Value input = adaptor.getInput();
    ArrayRef<int64_t> in = shapeOf(input), out = type.getShape();
    Type elem = type.getElementType();
    bool isFloat = isa<FloatType>(elem);
    if (!isFloat && op.getMode() != "nearest")
      return rewriter.notifyMatchFailure(op, "interpolating integers");
    int64_t rank = in.size();
    // Per dim: taps; each tap contributes an index table (and a weight
    // table for floats) as generic inputs indexed by that dim.
    SmallVector<SmallVector<Tap>> taps;
    SmallVector<SmallVector<bool>> valid(rank);
    SmallVector<Value> tables;
    SmallVector<AffineMap> maps;
    for (int64_t d = 0; d < rank; ++d) {
      taps.push_back(
          resizeTaps(op, d, in[d], out[d], op.getScales()[d], valid[d]));
      for (const Tap &t : taps.back()) {
        auto idxType = RankedTensorType::get({out[d]}, rewriter.getI64Type());
        tables.push_back(arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(idxType, ArrayRef(t.index))));
        maps.push_back(AffineMap::get(rank, 0, {getAffineDimExpr(d, ctx)}, ctx));
        if (!isFloat)
          continue;
        SmallVector<Attribute> ws;
        for (double w : t.weight)
          ws.push_back(rewriter.getFloatAttr(elem, w));
        tables.push_back(arith::ConstantOp::create(
            rewriter, loc,
            DenseElementsAttr::get(RankedTensorType::get({out[d]}, elem), ws)));
        maps.push_back(AffineMap::get(rank, 0, {getAffineDimExpr(d, ctx)}, ctx));
      }
    }
    // tf_crop_and_resize: one i1 table per dim says whether the sample is
    // inside the input.
    int64_t validBase = tables.size();
    bool crop = op.getCoordinateTransformationMode() == "tf_crop_and_resize";
    for (int64_t d = 0; crop && d < rank; ++d) {
      auto validType = RankedTensorType::get({out[d]}, rewriter.getI1Type());
      tables.push_back(arith::ConstantOp::create(
          rewriter, loc, DenseElementsAttr::get(validType, ArrayRef(valid[d]))));
      maps.push_back(AffineMap::get(rank, 0, {getAffineDimExpr(d, ctx)}, ctx));
    }
    int64_t perTap = isFloat ? 2 : 1;
    Value result = buildIndexed(
        rewriter, loc, out, elem, tables, maps,
        [&](OpBuilder &b, Location l, ArrayRef<Value>, ValueRange args) {
          // Walk every combination of taps across dims.
          SmallVector<int64_t> base(rank, 0);
          int64_t offset = 0;
          for (int64_t d = 0; d < rank; ++d) {
            base[d] = offset;
            offset += taps[d].size() * perTap;
          }
          Value sum;
          SmallVector<int64_t> choice(rank, 0);
          while (true) {
            SmallVector<Value> src;
            Value weight;
            for (int64_t d = 0; d < rank; ++d) {
              int64_t at = base[d] + choice[d] * perTap;
              src.push_back(
                  arith::IndexCastOp::create(b, l, b.getIndexType(), args[at]));
              if (isFloat && taps[d].size() > 1)
                weight = weight ? Value(arith::MulFOp::create(b, l, weight,
                                                              args[at + 1]))
                                : args[at + 1];
            }
            Value v = tensor::ExtractOp::create(b, l, input, src);
            if (weight)
              v = arith::MulFOp::create(b, l, v, weight);
            sum = sum ? Value(arith::AddFOp::create(b, l, sum, v)) : v;
            int64_t d = rank - 1;
            for (; d >= 0; --d) {
              if (++choice[d] < (int64_t)taps[d].size())
                break;
              choice[d] = 0;
            }
            if (d < 0)
              break;
          }
          if (!crop)
            return sum;
          Value inside = args[validBase];
          for (int64_t d = 1; d < rank; ++d)
            inside = arith::AndIOp::create(b, l, inside, args[validBase + d]);
          Value outside = scalarConstant(
              b, l, elem, op.getExtrapolationValue().convertToDouble());
          return Value(arith::SelectOp::create(b, l, inside, sum, outside));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ShapeToConstant final : OpConversionPattern<graph::ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, shapeOf(adaptor.getInput())));
    return success();
  }
};

struct ConstantToArith final : OpConversionPattern<graph::ConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ConstantOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
    if (!dense)
      return rewriter.notifyMatchFailure(op, "not a dense constant");
    // Unsigned to signless keeps the bits.
    if (dense.getType() != type)
      dense = dense.bitcast(type.getElementType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type, dense);
    return success();
  }
};

struct ConstantOfShapeToFill final
    : OpConversionPattern<graph::ConstantOfShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::ConstantOfShapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Attribute value = op.getValue();
    if (auto intAttr = dyn_cast<IntegerAttr>(value))
      value = rewriter.getIntegerAttr(type.getElementType(), intAttr.getValue());
    Value scalar =
        arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(value));
    rewriter.replaceOp(op, filledTensor(rewriter, loc, type.getShape(),
                                        type.getElementType(), scalar));
    return success();
  }
};

struct RangeToLinalg final : OpConversionPattern<graph::RangeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(graph::RangeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = convertTensorType(*getTypeConverter(), op.getType());
    Type elem = type.getElementType();
    Value start = tensor::ExtractOp::create(rewriter, loc, adaptor.getStart(),
                                            ValueRange{});
    Value delta = tensor::ExtractOp::create(rewriter, loc, adaptor.getDelta(),
                                            ValueRange{});
    Value result = buildIndexed(
        rewriter, loc, type.getShape(), elem, {}, {},
        [&](OpBuilder &b, Location l, ArrayRef<Value> idx, ValueRange) {
          Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), idx[0]);
          if (isa<FloatType>(elem)) {
            Value f = arith::SIToFPOp::create(b, l, elem, i);
            return Value(arith::AddFOp::create(
                b, l, start, arith::MulFOp::create(b, l, f, delta)));
          }
          Value n = convertScalar(b, l, i, elem, false, false);
          return Value(arith::AddIOp::create(
              b, l, start, arith::MulIOp::create(b, l, n, delta)));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::ms::populateGraphDataMovementToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReshapeToTensor, TransposeToLinalg, ConcatToTensor,
               SliceToTensor, GatherToLinalg, GatherElementsToLinalg, ExpandToLinalg, TileToLinalg,
               PadToLinalg, ResizeToLinalg, ShapeToConstant, ConstantToArith,
               ConstantOfShapeToFill, RangeToLinalg>(converter,
                                                     patterns.getContext());
}
