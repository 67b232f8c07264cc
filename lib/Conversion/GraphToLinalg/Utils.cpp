//===- Utils.cpp - shared helpers of the msgraph lowering -----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace mlir::ms::detail;

bool mlir::ms::detail::isUnsignedElement(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  auto intType = dyn_cast<IntegerType>(type);
  return intType && (intType.isUnsigned() || intType.getWidth() == 1);
}

Value mlir::ms::detail::emptyTensor(OpBuilder &b, Location loc,
                                    ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(b, loc, shape, elementType);
}

Value mlir::ms::detail::scalarConstant(OpBuilder &b, Location loc, Type type,
                                       double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  auto intType = cast<IntegerType>(type);
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(intType, APInt(intType.getWidth(),
                                              (uint64_t)(int64_t)value,
                                              /*isSigned=*/true,
                                              /*implicitTrunc=*/true)));
}

Value mlir::ms::detail::filledTensor(OpBuilder &b, Location loc,
                                     ArrayRef<int64_t> shape, Type elementType,
                                     Value value) {
  Value empty = emptyTensor(b, loc, shape, elementType);
  return linalg::FillOp::create(b, loc, value, empty).getResult(0);
}

Value mlir::ms::detail::reshapeTo(OpBuilder &b, Location loc, Value value,
                                  ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto target = RankedTensorType::get(shape, type.getElementType());
  // Collapse everything to 1-D (or rank 0), then expand to the target.
  Value flat = value;
  if (type.getRank() > 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t i = 0; i < type.getRank(); ++i)
      all[0].push_back(i);
    flat = tensor::CollapseShapeOp::create(b, loc, value, all);
  } else if (type.getRank() == 0) {
    // tensor<T> -> tensor<1xT>
    flat = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({1}, type.getElementType()), value,
        ArrayRef<ReassociationIndices>{});
  }
  if (target.getRank() == 1)
    return flat;
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, flat,
                                           ArrayRef<ReassociationIndices>{});
  SmallVector<ReassociationIndices> all(1);
  for (int64_t i = 0; i < target.getRank(); ++i)
    all[0].push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, target, flat, all);
}

std::pair<Value, AffineMap>
mlir::ms::detail::broadcastOperand(OpBuilder &b, Location loc, Value operand,
                                   ArrayRef<int64_t> outShape) {
  ArrayRef<int64_t> shape = shapeOf(operand);
  int64_t offset = outShape.size() - shape.size();
  SmallVector<int64_t> kept;
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < (int64_t)shape.size(); ++i) {
    // A size-1 dimension against a larger output dimension broadcasts.
    if (shape[i] == 1 && outShape[i + offset] != 1)
      continue;
    kept.push_back(shape[i]);
    exprs.push_back(b.getAffineDimExpr(i + offset));
  }
  Value reshaped = reshapeTo(b, loc, operand, kept);
  return {reshaped,
          AffineMap::get(outShape.size(), 0, exprs, b.getContext())};
}

Value mlir::ms::detail::buildElementwise(OpBuilder &b, Location loc,
                                         ValueRange operands,
                                         ArrayRef<int64_t> outShape,
                                         Type resultElementType,
                                         ScalarFn body) {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (Value operand : operands) {
    auto [value, map] = broadcastOperand(b, loc, operand, outShape);
    inputs.push_back(value);
    maps.push_back(map);
  }
  maps.push_back(identityMap(b.getContext(), outShape.size()));
  Value init = emptyTensor(b, loc, outShape, resultElementType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators(outShape.size()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value result = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, result);
      });
  return generic.getResult(0);
}

Value mlir::ms::detail::convertScalar(OpBuilder &b, Location loc, Value value,
                                      Type dstType, bool srcUnsigned,
                                      bool dstUnsigned) {
  Type srcType = value.getType();
  if (srcType == dstType)
    return value;
  auto srcFloat = dyn_cast<FloatType>(srcType);
  auto dstFloat = dyn_cast<FloatType>(dstType);
  auto dstInt = dyn_cast<IntegerType>(dstType);
  if (dstInt && dstInt.getWidth() == 1) {
    // Anything to bool is `value != 0`.
    if (srcFloat)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   scalarConstant(b, loc, srcType, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value,
                                 scalarConstant(b, loc, srcType, 0.0));
  }
  if (srcFloat && dstFloat) {
    if (srcFloat.getWidth() < dstFloat.getWidth())
      return arith::ExtFOp::create(b, loc, dstType, value);
    if (srcFloat.getWidth() > dstFloat.getWidth())
      return arith::TruncFOp::create(b, loc, dstType, value);
    // f16 <-> bf16 go through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
    return arith::TruncFOp::create(b, loc, dstType, wide);
  }
  if (srcFloat) {
    if (dstUnsigned)
      return arith::FPToUIOp::create(b, loc, dstType, value);
    return arith::FPToSIOp::create(b, loc, dstType, value);
  }
  if (dstFloat) {
    if (srcUnsigned)
      return arith::UIToFPOp::create(b, loc, dstType, value);
    return arith::SIToFPOp::create(b, loc, dstType, value);
  }
  unsigned srcWidth = cast<IntegerType>(srcType).getWidth();
  unsigned dstWidth = dstInt.getWidth();
  if (srcWidth > dstWidth)
    return arith::TruncIOp::create(b, loc, dstType, value);
  if (srcUnsigned)
    return arith::ExtUIOp::create(b, loc, dstType, value);
  return arith::ExtSIOp::create(b, loc, dstType, value);
}

SmallVector<utils::IteratorType>
mlir::ms::detail::iterators(unsigned parallel, unsigned reduction) {
  SmallVector<utils::IteratorType> result(parallel,
                                          utils::IteratorType::parallel);
  result.append(reduction, utils::IteratorType::reduction);
  return result;
}

AffineMap mlir::ms::detail::identityMap(MLIRContext *ctx, unsigned rank) {
  return AffineMap::getMultiDimIdentityMap(rank, ctx);
}

RankedTensorType
mlir::ms::detail::convertTensorType(const TypeConverter &converter,
                                    Type type) {
  return cast<RankedTensorType>(converter.convertType(type));
}

Value mlir::ms::detail::padTensor(OpBuilder &b, Location loc, Value value,
                                  ArrayRef<int64_t> low,
                                  ArrayRef<int64_t> high, Value padValue) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < type.getRank(); ++i)
    shape.push_back(type.getDimSize(i) + low[i] + high[i]);
  SmallVector<OpFoldResult> lowOfr, highOfr;
  for (auto [l, h] : llvm::zip_equal(low, high)) {
    lowOfr.push_back(b.getIndexAttr(l));
    highOfr.push_back(b.getIndexAttr(h));
  }
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      lowOfr, highOfr, padValue);
}

Value mlir::ms::detail::lowestValue(OpBuilder &b, Location loc, Type type,
                                    bool isUnsigned) {
  if (isa<FloatType>(type))
    return scalarConstant(b, loc, type,
                          -std::numeric_limits<double>::infinity());
  unsigned width = cast<IntegerType>(type).getWidth();
  APInt value = isUnsigned ? APInt::getMinValue(width)
                           : APInt::getSignedMinValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value mlir::ms::detail::highestValue(OpBuilder &b, Location loc, Type type,
                                     bool isUnsigned) {
  if (isa<FloatType>(type))
    return scalarConstant(b, loc, type,
                          std::numeric_limits<double>::infinity());
  unsigned width = cast<IntegerType>(type).getWidth();
  APInt value = isUnsigned ? APInt::getMaxValue(width)
                           : APInt::getSignedMaxValue(width);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value mlir::ms::detail::maxScalar(OpBuilder &b, Location loc, Value x, Value y,
                                  bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MaxUIOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

Value mlir::ms::detail::minScalar(OpBuilder &b, Location loc, Value x, Value y,
                                  bool isUnsigned) {
  if (isa<FloatType>(x.getType()))
    return arith::MinimumFOp::create(b, loc, x, y);
  if (isUnsigned)
    return arith::MinUIOp::create(b, loc, x, y);
  return arith::MinSIOp::create(b, loc, x, y);
}

SmallVector<bool> mlir::ms::detail::reducedDims(ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[axis < 0 ? axis + rank : axis] = true;
  return reduced;
}

AffineMap mlir::ms::detail::keptMap(MLIRContext *ctx, ArrayRef<bool> reduced) {
  SmallVector<AffineExpr> exprs;
  for (auto [i, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

SmallVector<int64_t> mlir::ms::detail::keptShape(ArrayRef<int64_t> shape,
                                      ArrayRef<bool> reduced) {
  SmallVector<int64_t> kept;
  for (auto [d, r] : llvm::zip_equal(shape, reduced))
    if (!r)
      kept.push_back(d);
  return kept;
}

SmallVector<utils::IteratorType>
mlir::ms::detail::iteratorsFor(ArrayRef<bool> reduced) {
  SmallVector<utils::IteratorType> its;
  for (bool r : reduced)
    its.push_back(r ? utils::IteratorType::reduction
                    : utils::IteratorType::parallel);
  return its;
}


Value mlir::ms::detail::reduce(OpBuilder &b, Location loc, Value input,
                    ArrayRef<bool> reduced, Combine combine, bool isUnsigned) {
  Type elem = elementTypeOf(input);
  bool isFloat = isa<FloatType>(elem);
  Value init;
  switch (combine) {
  case Combine::Sum:
    init = scalarConstant(b, loc, elem, 0.0);
    break;
  case Combine::Prod:
    init = scalarConstant(b, loc, elem, 1.0);
    break;
  case Combine::Max:
    init = lowestValue(b, loc, elem, isUnsigned);
    break;
  case Combine::Min:
    init = highestValue(b, loc, elem, isUnsigned);
    break;
  }
  SmallVector<int64_t> outShape = keptShape(shapeOf(input), reduced);
  Value out = filledTensor(b, loc, outShape, elem, init);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {identityMap(ctx, reduced.size()),
                                 keptMap(ctx, reduced)};
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out.getType()}, ValueRange{input}, ValueRange{out},
      maps, iteratorsFor(reduced),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = args[0], acc = args[1], r;
        switch (combine) {
        case Combine::Sum:
          r = isFloat ? Value(arith::AddFOp::create(nb, nloc, acc, x))
                      : Value(arith::AddIOp::create(nb, nloc, acc, x));
          break;
        case Combine::Prod:
          r = isFloat ? Value(arith::MulFOp::create(nb, nloc, acc, x))
                      : Value(arith::MulIOp::create(nb, nloc, acc, x));
          break;
        case Combine::Max:
          r = maxScalar(nb, nloc, acc, x, isUnsigned);
          break;
        case Combine::Min:
          r = minScalar(nb, nloc, acc, x, isUnsigned);
          break;
        }
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}
