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
#include "llvm/ADT/SmallBitVector.h"
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

/// Returns, for a tensor.expand_shape or tensor.collapse_shape that only
/// inserts or removes dims of size 1, the positions of those dims in the
/// larger shape; std::nullopt for any other op or reshape.
static std::optional<SmallVector<int64_t>> unitDimsOf(Operation *reshape) {
  ArrayRef<int64_t> large;
  SmallVector<ReassociationIndices> groups;
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(reshape)) {
    large = expand.getResultType().getShape();
    groups = expand.getReassociationIndices();
  } else if (auto collapse =
                 dyn_cast_or_null<tensor::CollapseShapeOp>(reshape)) {
    large = collapse.getSrcType().getShape();
    groups = collapse.getReassociationIndices();
  } else {
    return std::nullopt;
  }
  if (ShapedType::isDynamicShape(large))
    return std::nullopt;
  // To or from rank 0: every dim is a unit.
  if (groups.empty())
    return llvm::to_vector(llvm::seq<int64_t>(0, large.size()));
  // Each group keeps one dim (its only dim other than 1, else its last)
  // and the others are units.
  SmallVector<int64_t> units;
  for (const ReassociationIndices &group : groups) {
    auto nonUnit = llvm::make_filter_range(
        group, [&](int64_t d) { return large[d] != 1; });
    int64_t count = llvm::range_size(nonUnit);
    if (count > 1)
      return std::nullopt;
    int64_t kept = count == 1 ? *nonUnit.begin() : group.back();
    for (int64_t d : group)
      if (d != kept)
        units.push_back(d);
  }
  return units;
}

/// A linalg.generic that reads a value through a reshape inserting or
/// removing only dims of size 1 (a kept reduction axis, a broadcast
/// operand) reads the reshape's source instead, the unit dims dropped from
/// or added (as index 0) to its indexing map. A reshape between two ops
/// would keep them in separate loops.
struct ReadThroughUnitReshape final : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    for (OpOperand *operand : op.getDpsInputOperands()) {
      Operation *reshape = operand->get().getDefiningOp();
      std::optional<SmallVector<int64_t>> units = unitDimsOf(reshape);
      if (!units)
        continue;
      AffineMap map = op.getMatchingIndexingMap(operand);
      SmallVector<AffineExpr> exprs;
      if (isa<tensor::ExpandShapeOp>(reshape)) {
        for (auto [i, expr] : llvm::enumerate(map.getResults()))
          if (!llvm::is_contained(*units, static_cast<int64_t>(i)))
            exprs.push_back(expr);
      } else {
        auto results = map.getResults();
        size_t next = 0;
        int64_t rank = cast<RankedTensorType>(reshape->getOperand(0).getType())
                           .getRank();
        for (int64_t i = 0; i < rank; ++i)
          exprs.push_back(llvm::is_contained(*units, i)
                              ? rewriter.getAffineConstantExpr(0)
                              : results[next++]);
      }
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[operand->getOperandNumber()] =
          AffineMap::get(map.getNumDims(), 0, exprs, getContext());
      // Every loop must still be indexed by some operand.
      llvm::SmallBitVector indexed(map.getNumDims());
      for (AffineMap m : maps)
        for (AffineExpr e : m.getResults())
          if (auto d = dyn_cast<AffineDimExpr>(e))
            indexed.set(d.getPosition());
      if (!indexed.all())
        continue;
      rewriter.modifyOpInPlace(op, [&] {
        operand->set(reshape->getOperand(0));
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

/// True if `op` is a transpose (or broadcast) of a kernel argument as a
/// linalg.generic, or of a reshape of such a movement: fused into a
/// consumer it becomes that consumer's indexing of the argument (or of the
/// reshape), so it fuses even into one that reads each element many times
/// (a weight laid out for the kernel at compile time, read by a
/// convolution: ms-cpu-pack-weights; one in panels is unpacked by a
/// transpose, a reshape and a transpose).
static bool isArgumentMovement(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !generic.isAllParallelLoops() || !generic.isSingleYieldOp())
    return false;
  Value input = generic.getDpsInputOperand(0)->get();
  if (isa<BlockArgument>(input))
    return true;
  Operation *source = input.getDefiningOp();
  if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(source))
    return false;
  while (
      isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(source))
    source = source->getOperand(0).getDefiningOp();
  return isArgumentMovement(source);
}

struct FuseKernelOpsPass final
    : ms::impl::FuseKernelOpsPassBase<FuseKernelOpsPass> {
  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    MLIRContext *context = &getContext();
    if (!kernel->hasAttr(kFusedOpsAttrName)) {
      // A kernel of one op: only a transpose of an argument that the
      // target put there folds into the op's indexing.
      bool transposes = false;
      kernel.walk([&](linalg::TransposeOp op) {
        transposes |= isa<BlockArgument>(op.getInput());
      });
      if (!transposes)
        return;
      RewritePatternSet patterns(context);
      patterns
          .add<GeneralizeMovement<linalg::TransposeOp>, ReadThroughUnitReshape>(
              context);
      linalg::populateElementwiseOpsFusionPatterns(
          patterns, [](OpOperand *fused) {
            return isArgumentMovement(fused->get().getDefiningOp()) &&
                   fused->get().hasOneUse();
          });
      (void)applyPatternsGreedily(kernel, std::move(patterns));
      return;
    }
    // A producer fuses into its consumer when nothing else reads it and the
    // consumer reads each of its values once: they are then computed once,
    // inside the consumer's loop. A value read at a broadcast index (a
    // row's statistic read by every element of the row) keeps its own,
    // smaller loop.
    linalg::ControlFusionFn onlyUser = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return producer && consumer &&
             (consumer.getMatchingIndexingMap(fused).isPermutation() ||
              isArgumentMovement(producer)) &&
             llvm::all_of(producer->getUsers(), [&](Operation *user) {
               return user == consumer.getOperation();
             });
    };
    RewritePatternSet patterns(context);
    patterns.add<GeneralizeMovement<linalg::TransposeOp>,
                 GeneralizeMovement<linalg::BroadcastOp>, PowToMultiply,
                 ReadThroughUnitReshape>(
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
      // A reshape by unit dims is read through instead
      // (ReadThroughUnitReshape): expanding the ops around it would give
      // them unit loops.
      return !hasReduction(fused->getOwner()) &&
             !hasReduction(fused->get().getDefiningOp()) &&
             !unitDimsOf(fused->get().getDefiningOp()) &&
             !unitDimsOf(fused->getOwner());
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
