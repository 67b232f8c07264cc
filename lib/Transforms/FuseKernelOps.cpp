//===- FuseKernelOps.cpp - one loop nest per fused kernel ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ms {
#define GEN_PASS_DEF_FUSEKERNELOPSPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// Rewrites linalg.transpose and linalg.broadcast as linalg.generic, which
/// elementwise fusion folds into the indexing of their consumers.
template <typename OpTy>
struct GeneralizeMovement final : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return linalg::generalizeNamedOp(rewriter, op);
  }
};

/// math.powf by a constant 2 or 3 (the exponent a cloned constant makes
/// visible) becomes multiplications, as ONNX Runtime does: x*x equals a
/// correctly rounded pow exactly, x*x*x is within two ulps.
struct PowToMultiply final : OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    FloatAttr exponent;
    if (!matchPattern(op.getRhs(), m_Constant(&exponent)))
      return failure();
    double value = exponent.getValueAsDouble();
    if (value != 2.0 && value != 3.0)
      return failure();
    Value x = op.getLhs();
    Value result = arith::MulFOp::create(rewriter, op.getLoc(), x, x);
    if (value == 3.0)
      result = arith::MulFOp::create(rewriter, op.getLoc(), result, x);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct FuseKernelOpsPass final
    : ms::impl::FuseKernelOpsPassBase<FuseKernelOpsPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!kernel->hasAttr(kFusedOpsAttrName))
      return;
    MLIRContext *context = &getContext();
    // A producer fuses into its consumer when nothing else reads it: its
    // values are then computed once, inside the consumer's loop.
    linalg::ControlFusionFn onlyUser = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      Operation *consumer = fused->getOwner();
      return producer && llvm::all_of(producer->getUsers(),
                                      [&](Operation *user) {
                                        return user == consumer;
                                      });
    };
    RewritePatternSet patterns(context);
    patterns.add<GeneralizeMovement<linalg::TransposeOp>,
                 GeneralizeMovement<linalg::BroadcastOp>, PowToMultiply>(
        context);
    linalg::populateElementwiseOpsFusionPatterns(patterns, onlyUser);
    // Reshapes move through elementwise ops but not into contractions and
    // reductions, whose loop order the CPU lowering chooses for a 2-D
    // operand (splitting a matmul's columns into heads makes its inner
    // loop short).
    linalg::ControlFusionFn notIntoReductions = [](OpOperand *fused) {
      auto hasReduction = [](Operation *op) {
        auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
        return linalgOp && linalgOp.getNumReductionLoops() > 0;
      };
      return !hasReduction(fused->getOwner()) &&
             !hasReduction(fused->get().getDefiningOp());
    };
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      notIntoReductions);
    tensor::populateFoldTensorEmptyPatterns(patterns);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    // Not converging leaves a correct, less fused kernel.
    (void)applyPatternsGreedily(
        kernel, std::move(patterns),
        GreedyRewriteConfig().setUseTopDownTraversal());
  }
};
} // namespace
