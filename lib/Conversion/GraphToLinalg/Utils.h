//===- Utils.h - shared helpers of the msgraph lowering ---------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Conversion/GraphToLinalg. All helpers assume static shapes
// (the pass rejects dynamic ones before any pattern runs).
//
//===----------------------------------------------------------------------===//

#ifndef MS_LIB_CONVERSION_GRAPHTOLINALG_UTILS_H
#define MS_LIB_CONVERSION_GRAPHTOLINALG_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::ms::detail {

/// Builds the scalar body of an elementwise generic from its block args.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// Returns the static shape of a ranked tensor value.
inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Returns the element type of a ranked tensor value.
inline Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// True for unsigned integer element types of the *source* (pre-conversion)
/// type; i1 counts as unsigned.
bool isUnsignedElement(Type sourceTensorOrElementType);

/// A tensor.empty of the given static shape.
Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elementType);

/// A scalar constant of `type` (float or integer) holding `value`.
Value scalarConstant(OpBuilder &b, Location loc, Type type, double value);

/// A tensor of `shape` filled with `value`.
Value filledTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, Value value);

/// Reshapes a statically shaped tensor to `shape` (same element count) with
/// collapse/expand_shape.
Value reshapeTo(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> shape);

/// Prepares `operand` for a generic whose iteration space is `outShape`
/// under numpy broadcasting: drops broadcast dimensions by reshaping and
/// returns the projection map the generic should use.
std::pair<Value, AffineMap> broadcastOperand(OpBuilder &b, Location loc,
                                             Value operand,
                                             ArrayRef<int64_t> outShape);

/// Builds `linalg.generic` over `outShape` reading `operands` with numpy
/// broadcasting and writing one result of `resultElementType`.
Value buildElementwise(OpBuilder &b, Location loc, ValueRange operands,
                       ArrayRef<int64_t> outShape, Type resultElementType,
                       ScalarFn body);

/// Converts a scalar between element types with the semantics of
/// msgraph.cast (`srcUnsigned`/`dstUnsigned` give integer signedness).
Value convertScalar(OpBuilder &b, Location loc, Value value, Type dstType,
                    bool srcUnsigned, bool dstUnsigned);

/// Returns `n` parallel iterator types followed by `m` reduction ones.
SmallVector<utils::IteratorType> iterators(unsigned parallel,
                                           unsigned reduction = 0);

/// The identity map over `rank` dims.
AffineMap identityMap(MLIRContext *ctx, unsigned rank);

/// Signless version of a source tensor type.
RankedTensorType convertTensorType(const TypeConverter &converter, Type type);

/// Pads `value` by `low`/`high` (non-negative) with the scalar `padValue`.
Value padTensor(OpBuilder &b, Location loc, Value value,
                ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                Value padValue);

/// Largest / smallest finite-or-infinite value of an element type, used as
/// reduction identities (`-inf` for floats, INT_MIN / 0 for integers).
Value lowestValue(OpBuilder &b, Location loc, Type type, bool isUnsigned);
Value highestValue(OpBuilder &b, Location loc, Type type, bool isUnsigned);

/// Max / min of two scalars (NaN-propagating for floats).
Value maxScalar(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned);
Value minScalar(OpBuilder &b, Location loc, Value x, Value y, bool isUnsigned);

/// Which dims of a rank-`rank` tensor `axes` reduce (all when empty;
/// negative axes count from the back; axes must be valid).
SmallVector<bool> reducedDims(ArrayRef<int64_t> axes, int64_t rank);

/// The map from the full iteration space to the dims not in `reduced`.
AffineMap keptMap(MLIRContext *ctx, ArrayRef<bool> reduced);

/// `shape` without the dims in `reduced`.
SmallVector<int64_t> keptShape(ArrayRef<int64_t> shape,
                               ArrayRef<bool> reduced);

/// Parallel iterators for kept dims, reduction iterators for reduced ones.
SmallVector<utils::IteratorType> iteratorsFor(ArrayRef<bool> reduced);

/// How `reduce` combines elements.
enum class Combine { Sum, Max, Min, Prod };

/// Reduces `input` over the `reduced` dims with `combine`, dropping them.
Value reduce(OpBuilder &b, Location loc, Value input, ArrayRef<bool> reduced,
             Combine combine, bool isUnsigned);

} // namespace mlir::ms::detail

#endif // MS_LIB_CONVERSION_GRAPHTOLINALG_UTILS_H
