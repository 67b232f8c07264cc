//===- Reduction.cpp - reductions and softmax to linalg -------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::detail;
namespace graph = mlir::ms::graph;

namespace {

template <typename OpTy, Combine combine, bool isMean = false>
struct ReduceToLinalg final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> inShape = shapeOf(input);
    bool isUnsigned = isUnsignedElement(op.getInput().getType());
    auto reduced = reducedDims(op.getAxes(), inShape.size());
    Value result = reduce(rewriter, loc, input, reduced, combine, isUnsigned);
    if (isMean) {
      int64_t count = 1;
      for (auto [d, r] : llvm::zip_equal(inShape, reduced))
        if (r)
          count *= d;
      Type elem = elementTypeOf(result);
      result = buildElementwise(
          rewriter, loc, ValueRange{result}, shapeOf(result), elem,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            Value n = scalarConstant(b, l, elem, (double)count);
            if (isa<FloatType>(elem))
              return arith::DivFOp::create(b, l, args[0], n);
            return isUnsigned ? Value(arith::DivUIOp::create(b, l, args[0], n))
                              : Value(arith::DivSIOp::create(b, l, args[0], n));
          });
    }
    auto resultType =
        convertTensorType(*this->getTypeConverter(), op.getType());
    rewriter.replaceOp(op,
                       reshapeTo(rewriter, loc, result, resultType.getShape()));
    return success();
  }
};

template <typename OpTy, bool isMax>
struct ArgReduceToLinalg final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> inShape = shapeOf(input);
    int64_t rank = inShape.size();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    bool isUnsigned = isUnsignedElement(op.getInput().getType());
    bool last = op.getSelectLastIndex();
    Type elem = elementTypeOf(input);
    bool isFloat = isa<FloatType>(elem);
    SmallVector<bool> reduced(rank, false);
    reduced[axis] = true;
    SmallVector<int64_t> outShape = keptShape(inShape, reduced);
    Value start = isMax ? lowestValue(rewriter, loc, elem, isUnsigned)
                        : highestValue(rewriter, loc, elem, isUnsigned);
    Value values = filledTensor(rewriter, loc, outShape, elem, start);
    Type i64 = rewriter.getI64Type();
    Value indices = filledTensor(rewriter, loc, outShape, i64,
                                 scalarConstant(rewriter, loc, i64, 0.0));
    MLIRContext *ctx = rewriter.getContext();
    AffineMap kept = keptMap(ctx, reduced);
    SmallVector<AffineMap> maps = {identityMap(ctx, rank), kept, kept};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{values.getType(), indices.getType()},
        ValueRange{input}, ValueRange{values, indices}, maps,
        iteratorsFor(reduced),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = args[0], best = args[1], bestIdx = args[2];
          Value idx = arith::IndexCastOp::create(
              b, l, i64, linalg::IndexOp::create(b, l, axis));
          Value better;
          if (isFloat) {
            arith::CmpFPredicate p =
                isMax ? (last ? arith::CmpFPredicate::OGE
                              : arith::CmpFPredicate::OGT)
                      : (last ? arith::CmpFPredicate::OLE
                              : arith::CmpFPredicate::OLT);
            better = arith::CmpFOp::create(b, l, p, x, best);
          } else {
            arith::CmpIPredicate p;
            if (isMax)
              p = last ? (isUnsigned ? arith::CmpIPredicate::uge
                                     : arith::CmpIPredicate::sge)
                       : (isUnsigned ? arith::CmpIPredicate::ugt
                                     : arith::CmpIPredicate::sgt);
            else
              p = last ? (isUnsigned ? arith::CmpIPredicate::ule
                                     : arith::CmpIPredicate::sle)
                       : (isUnsigned ? arith::CmpIPredicate::ult
                                     : arith::CmpIPredicate::slt);
            better = arith::CmpIOp::create(b, l, p, x, best);
          }
          // The first element always wins so that an all -inf (or all NaN)
          // row still reports index 0.
          Value first = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, idx,
              scalarConstant(b, l, i64, 0.0));
          better = arith::OrIOp::create(b, l, better, first);
          Value newBest = arith::SelectOp::create(b, l, better, x, best);
          Value newIdx = arith::SelectOp::create(b, l, better, idx, bestIdx);
          linalg::YieldOp::create(b, l, ValueRange{newBest, newIdx});
        });
    auto resultType =
        convertTensorType(*this->getTypeConverter(), op.getType());
    rewriter.replaceOp(op, reshapeTo(rewriter, loc, generic.getResult(1),
                                     resultType.getShape()));
    return success();
  }
};

/// softmax and log_softmax: max, exp(x - max), sum, then divide (or
/// subtract the log of the sum).
template <typename OpTy, bool isLog>
struct SoftmaxToLinalg final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    int64_t rank = shape.size();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    Type elem = elementTypeOf(input);
    SmallVector<bool> reduced(rank, false);
    reduced[axis] = true;
    MLIRContext *ctx = rewriter.getContext();
    AffineMap id = identityMap(ctx, rank), kept = keptMap(ctx, reduced);

    Value max = reduce(rewriter, loc, input, reduced, Combine::Max, false);
    auto mapElementwise = [&](ValueRange ins, ArrayRef<AffineMap> inMaps,
                              auto body) {
      SmallVector<AffineMap> maps(inMaps);
      maps.push_back(id);
      Value init = emptyTensor(rewriter, loc, shape, elem);
      return linalg::GenericOp::create(
                 rewriter, loc, TypeRange{init.getType()}, ins,
                 ValueRange{init}, maps, iterators(rank),
                 [&](OpBuilder &b, Location l, ValueRange args) {
                   linalg::YieldOp::create(b, l, body(b, l, args));
                 })
          .getResult(0);
    };
    Value shifted = mapElementwise(
        {input, max}, {id, kept}, [](OpBuilder &b, Location l, ValueRange a) {
          return Value(arith::SubFOp::create(b, l, a[0], a[1]));
        });
    Value exps = mapElementwise({shifted}, {id},
                                [](OpBuilder &b, Location l, ValueRange a) {
                                  return Value(math::ExpOp::create(b, l, a[0]));
                                });
    Value sum = reduce(rewriter, loc, exps, reduced, Combine::Sum, false);
    Value result;
    if (isLog) {
      result = mapElementwise(
          {shifted, sum}, {id, kept},
          [](OpBuilder &b, Location l, ValueRange a) {
            return Value(arith::SubFOp::create(
                b, l, a[0], math::LogOp::create(b, l, a[1])));
          });
    } else {
      result = mapElementwise(
          {exps, sum}, {id, kept}, [](OpBuilder &b, Location l, ValueRange a) {
            return Value(arith::DivFOp::create(b, l, a[0], a[1]));
          });
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `x + y` or `x * y` for float or integer scalars.
static Value combineScalars(OpBuilder &b, Location loc, Value x, Value y,
                            bool isSum) {
  if (isa<FloatType>(x.getType()))
    return isSum ? Value(arith::AddFOp::create(b, loc, x, y))
                 : Value(arith::MulFOp::create(b, loc, x, y));
  return isSum ? Value(arith::AddIOp::create(b, loc, x, y))
               : Value(arith::MulIOp::create(b, loc, x, y));
}

/// cumsum / cumprod -> an scf.for along the axis carrying the running
/// combination of one slice (the input with the axis at extent 1); each step
/// combines the next input slice into it with a linalg.generic and inserts
/// the result (or, for `exclusive`, the value before combining).
template <typename OpTy, bool isSum>
struct CumulativeToLinalg final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ArrayRef<int64_t> shape = shapeOf(input);
    Type elem = elementTypeOf(input);
    int64_t rank = shape.size();
    int64_t axis = *graph::normalizeAxis(op.getAxis(), rank);
    if (ShapedType::getNumElements(shape) == 0) {
      rewriter.replaceOp(op, emptyTensor(rewriter, loc, shape, elem));
      return success();
    }
    SmallVector<int64_t> sliceShape(shape);
    sliceShape[axis] = 1;
    auto sliceType = RankedTensorType::get(sliceShape, elem);
    Value identity = scalarConstant(rewriter, loc, elem, isSum ? 0.0 : 1.0);
    Value acc = filledTensor(rewriter, loc, sliceShape, elem, identity);
    Value out = emptyTensor(rewriter, loc, shape, elem);
    auto index = [&](OpBuilder &b, Location l, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    int64_t n = shape[axis];
    bool exclusive = op.getExclusive(), reverse = op.getReverse();
    auto loop = scf::ForOp::create(
        rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, n),
        index(rewriter, loc, 1), ValueRange{out, acc},
        [&](OpBuilder &b, Location l, Value iv, ValueRange iter) {
          Value pos = reverse ? Value(arith::SubIOp::create(
                                    b, l, index(b, l, n - 1), iv))
                              : iv;
          SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
          offsets[axis] = pos;
          SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
          for (int64_t d : sliceShape)
            sizes.push_back(b.getIndexAttr(d));
          Value slice = tensor::ExtractSliceOp::create(
              b, l, sliceType, input, offsets, sizes, strides);
          // For `exclusive` the carried value is written before this step
          // combines into it.
          auto insert = [&](Value v) -> Value {
            return tensor::InsertSliceOp::create(b, l, v, iter[0], offsets,
                                                 sizes, strides);
          };
          Value written = exclusive ? insert(iter[1]) : Value();
          // Combined in place into the carried slice, so the loop's
          // iter_arg bufferizes to one buffer.
          AffineMap id = identityMap(b.getContext(), rank);
          Value combined =
              linalg::GenericOp::create(
                  b, l, TypeRange{sliceType}, ValueRange{slice},
                  ValueRange{iter[1]}, ArrayRef<AffineMap>{id, id},
                  iterators(rank),
                  [](OpBuilder &nb, Location nl, ValueRange a) {
                    // a[0] is the input element, a[1] the running value.
                    Value r = combineScalars(nb, nl, a[1], a[0], isSum);
                    linalg::YieldOp::create(nb, nl, r);
                  })
                  .getResult(0);
          if (!exclusive)
            written = insert(combined);
          scf::YieldOp::create(b, l, ValueRange{written, combined});
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

} // namespace

void mlir::ms::populateGraphReductionToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ReduceToLinalg<graph::ReduceSumOp, Combine::Sum>,
               ReduceToLinalg<graph::ReduceMeanOp, Combine::Sum, true>,
               ReduceToLinalg<graph::ReduceMaxOp, Combine::Max>,
               ReduceToLinalg<graph::ReduceMinOp, Combine::Min>,
               ReduceToLinalg<graph::ReduceProdOp, Combine::Prod>,
               ArgReduceToLinalg<graph::ArgMaxOp, true>,
               ArgReduceToLinalg<graph::ArgMinOp, false>,
               SoftmaxToLinalg<graph::SoftmaxOp, false>,
               SoftmaxToLinalg<graph::LogSoftmaxOp, true>,
               CumulativeToLinalg<graph::CumSumOp, true>,
               CumulativeToLinalg<graph::CumProdOp, false>>(
      converter, patterns.getContext());
}
