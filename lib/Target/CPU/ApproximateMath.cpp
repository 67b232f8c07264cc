//===- ApproximateMath.cpp - polynomial approximations of f32 math --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Replaces the f32 transcendental functions the models' hot loops use
// (softmax's exp, GELU's erf and tanh, sigmoid, log-softmax) by upstream
// MLIR's polynomial approximations, so that LLVM vectorizes the loops that
// call them instead of calling libm once per element.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::ms {
#define GEN_PASS_DEF_CPUAPPROXIMATEMATHPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Returns the f32 constant `value` of `type` (f32 or a vector of f32).
static Value f32Constant(OpBuilder &b, Location loc, Type type, float value) {
  FloatAttr scalar = b.getF32FloatAttr(value);
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(vector, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// Rewrites each f32 `LogOp` so that a subnormal argument, which the
/// approximation clamps to the smallest normal (log(1e-40) came out -87.3,
/// not -92.1), is scaled by 2^24 first and the result lowered by
/// `24 * unit` (24 ln 2 for log, 24 for log2).
template <typename LogOp>
static void scaleSubnormalArguments(Operation *root, float unit) {
  SmallVector<LogOp> logs;
  root->walk([&](LogOp op) {
    if (getElementTypeOrSelf(op.getType()).isF32())
      logs.push_back(op);
  });
  for (LogOp op : logs) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type type = op.getType();
    Value x = op.getOperand();
    // Negative arguments and zeros scale to themselves: NaN and -inf stay.
    Value subnormal = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLT, x,
        f32Constant(b, loc, type, 0x1p-126f));
    Value scaled = arith::MulFOp::create(b, loc, x,
                                         f32Constant(b, loc, type, 0x1p24f));
    Value argument = arith::SelectOp::create(b, loc, subnormal, scaled, x);
    Value log = LogOp::create(b, loc, argument, op.getFastmathAttr());
    Value lowered = arith::SubFOp::create(
        b, loc, log, f32Constant(b, loc, type, 24.0f * unit));
    op.replaceAllUsesWith(
        arith::SelectOp::create(b, loc, subnormal, lowered, log).getResult());
    op.erase();
  }
}

namespace {
struct CPUApproximateMathPass
    : public ms::impl::CPUApproximateMathPassBase<CPUApproximateMathPass> {
  void runOnOperation() override {
    scaleSubnormalArguments<math::LogOp>(getOperation(),
                                         static_cast<float>(M_LN2));
    scaleSubnormalArguments<math::Log2Op>(getOperation(), 1.0f);
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          return llvm::is_contained(
              {math::ExpOp::getOperationName(),
               math::ExpM1Op::getOperationName(),
               math::ErfOp::getOperationName(),
               math::ErfcOp::getOperationName(),
               math::LogOp::getOperationName(),
               math::Log1pOp::getOperationName(),
               math::Log2Op::getOperationName(),
               math::TanhOp::getOperationName()},
              name);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
