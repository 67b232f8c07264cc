//===- WindowIndexing.h - index expressions of windowed reads ---*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Convolutions and pooling read their input at window sums of loops
// (`oh * s + kh * d`); the CPU kernels take these expressions apart and
// emit them on loop values, and recognize a conv's multiply-accumulate.
//
//===----------------------------------------------------------------------===//

#ifndef MS_LIB_TARGET_CPU_WINDOWINDEXING_H
#define MS_LIB_TARGET_CPU_WINDOWINDEXING_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Builders.h"

namespace mlir::ms {
/// Returns the product `x * y` that the body of `op` (two inputs, one init)
/// adds to the init's value and yields (`yield(out + x * y)`, either
/// order), or null.
inline arith::MulFOp getAccumulatedProduct(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getNumArguments() != 3 || yield.getNumOperands() != 1)
    return nullptr;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return nullptr;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != acc && add.getRhs() != acc) || product == acc)
    return nullptr;
  return product.getDefiningOp<arith::MulFOp>();
}

/// True if `mul`'s operands are `x` and `y` (either order).
inline bool multiplies(arith::MulFOp mul, Value x, Value y) {
  return (mul.getLhs() == x && mul.getRhs() == y) ||
         (mul.getLhs() == y && mul.getRhs() == x);
}

/// True if the body of `op` is `yield(out + in0 * in1)` (either order).
inline bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  arith::MulFOp mul = getAccumulatedProduct(op);
  return mul && body.getOperations().size() == 3 &&
         multiplies(mul, body.getArgument(0), body.getArgument(1));
}

/// Appends the loops of `expr` (a loop, or a sum of loops times constants)
/// to `loops`; false if it is anything else.
inline bool windowTerms(AffineExpr expr, SmallVectorImpl<unsigned> &loops) {
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    loops.push_back(d.getPosition());
    return true;
  }
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return false;
  if (bin.getKind() == AffineExprKind::Add)
    return windowTerms(bin.getLHS(), loops) && windowTerms(bin.getRHS(), loops);
  if (bin.getKind() == AffineExprKind::Mul &&
      isa<AffineConstantExpr>(bin.getRHS()))
    return windowTerms(bin.getLHS(), loops);
  return false;
}

/// The coefficient of loop `loop` in `expr` (a sum of loops times
/// constants), 0 if it does not occur.
inline int64_t coefficientOf(AffineExpr expr, unsigned loop) {
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return d.getPosition() == loop ? 1 : 0;
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin)
    return 0;
  if (bin.getKind() == AffineExprKind::Add)
    return coefficientOf(bin.getLHS(), loop) +
           coefficientOf(bin.getRHS(), loop);
  if (bin.getKind() == AffineExprKind::Mul)
    if (auto c = dyn_cast<AffineConstantExpr>(bin.getRHS()))
      return coefficientOf(bin.getLHS(), loop) * c.getValue();
  return 0;
}

/// Whether `emitIndex` computes `expr` exactly: loops and constants that
/// are not negative, their sums and products, and quotients and remainders
/// by positive constants (so no intermediate value is negative).
inline bool isUnsignedIndex(AffineExpr expr) {
  if (isa<AffineDimExpr>(expr))
    return true;
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return c.getValue() >= 0;
  auto bin = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!bin || !isUnsignedIndex(bin.getLHS()) || !isUnsignedIndex(bin.getRHS()))
    return false;
  switch (bin.getKind()) {
  case AffineExprKind::Add:
  case AffineExprKind::Mul:
    return true;
  case AffineExprKind::FloorDiv:
  case AffineExprKind::Mod:
    return isa<AffineConstantExpr>(bin.getRHS()) &&
           cast<AffineConstantExpr>(bin.getRHS()).getValue() > 0;
  default:
    return false;
  }
}

/// Emits `expr` (loops, constants, sums, products, and quotients and
/// remainders by positive constants) on the index values `loops`, which are
/// not negative (unsigned division); a null loop value counts as 0.
inline Value emitIndex(OpBuilder &b, Location loc, AffineExpr expr,
                       ArrayRef<Value> loops) {
  if (auto d = dyn_cast<AffineDimExpr>(expr)) {
    Value v = loops[d.getPosition()];
    return v ? v : arith::ConstantIndexOp::create(b, loc, 0).getResult();
  }
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return arith::ConstantIndexOp::create(b, loc, c.getValue());
  auto bin = cast<AffineBinaryOpExpr>(expr);
  Value lhs = emitIndex(b, loc, bin.getLHS(), loops);
  Value rhs = emitIndex(b, loc, bin.getRHS(), loops);
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    return arith::AddIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::FloorDiv:
    return arith::DivUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mod:
    return arith::RemUIOp::create(b, loc, lhs, rhs);
  case AffineExprKind::Mul:
    return arith::MulIOp::create(b, loc, lhs, rhs);
  default:
    llvm_unreachable("ceildiv in a window index");
  }
}
/// Reads `width` elements of `source`'s last dim from `idx` on, `stride`
/// apart: the row is read whole, from its first to its last element (in
/// bounds), and every `stride`-th element kept by a shuffle.
inline Value readStridedRow(OpBuilder &b, Location loc, Value source,
                            ValueRange idx, int64_t width, int64_t stride,
                            Value padding) {
  Type elem = padding.getType();
  int64_t span = (width - 1) * stride + 1;
  Value row = vector::TransferReadOp::create(
      b, loc, VectorType::get({span}, elem), source, idx, padding,
      ArrayRef<bool>{true});
  if (stride == 1)
    return row;
  SmallVector<int64_t> picks;
  for (int64_t i = 0; i < width; ++i)
    picks.push_back(i * stride);
  return vector::ShuffleOp::create(b, loc, row, row, picks);
}

/// The slice of one row of a tensor: one element of each leading dim, at
/// `ivs`, and the whole last dim, `width` long.
inline void rowSlice(OpBuilder &b, ValueRange ivs, int64_t width,
                     SmallVectorImpl<OpFoldResult> &offsets,
                     SmallVectorImpl<OpFoldResult> &sizes,
                     SmallVectorImpl<OpFoldResult> &strides) {
  for (Value iv : ivs) {
    offsets.push_back(iv);
    sizes.push_back(b.getIndexAttr(1));
    strides.push_back(b.getIndexAttr(1));
  }
  offsets.push_back(b.getIndexAttr(0));
  sizes.push_back(b.getIndexAttr(width));
  strides.push_back(b.getIndexAttr(1));
}
} // namespace mlir::ms

#endif // MS_LIB_TARGET_CPU_WINDOWINDEXING_H
