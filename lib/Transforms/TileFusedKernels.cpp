//===- TileFusedKernels.cpp - tile a fused kernel, fuse its producers -----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ms {
#define GEN_PASS_DEF_TILEFUSEDKERNELSPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// True when result `expr` of `map` is loop `dim`.
static bool isDim(AffineMap map, unsigned expr, unsigned dim) {
  if (expr >= map.getNumResults())
    return false;
  auto d = dyn_cast<AffineDimExpr>(map.getResult(expr));
  return d && d.getPosition() == dim;
}

/// The number of leading loops along which every linalg op of `kernel` can
/// be tiled together: parallel in each op, and each op's results and
/// operands produced inside the kernel indexed by those loops, in order, in
/// their leading dimensions. Returns 0 if the kernel holds tensor ops other
/// than linalg ops, tensor.empty and constants (reshapes, extracts).
static unsigned countTileableLoops(func::FuncOp kernel) {
  unsigned count = std::numeric_limits<unsigned>::max();
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (isa<func::FuncOp, func::ReturnOp, tensor::EmptyOp>(op) ||
        op->hasTrait<OpTrait::ConstantLike>() ||
        op->getParentOfType<linalg::LinalgOp>())
      return WalkResult::advance();
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureTensorSemantics())
      return WalkResult::interrupt();
    SmallVector<utils::IteratorType> iterators =
        linalgOp.getIteratorTypesArray();
    unsigned n = 0;
    while (n < iterators.size() &&
           iterators[n] == utils::IteratorType::parallel) {
      bool aligned = true;
      for (OpOperand &operand : linalgOp->getOpOperands()) {
        bool inKernel = isa_and_nonnull<linalg::LinalgOp>(
            operand.get().getDefiningOp());
        if (!linalgOp.isDpsInit(&operand) && !inKernel)
          continue;
        AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
        aligned &= isDim(map, n, n);
      }
      if (!aligned)
        break;
      ++n;
    }
    count = std::min(count, n);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || count == std::numeric_limits<unsigned>::max())
    return 0;
  return count;
}

namespace {
struct TileFusedKernelsPass final
    : ms::impl::TileFusedKernelsPassBase<TileFusedKernelsPass> {
  using TileFusedKernelsPassBase::TileFusedKernelsPassBase;

  void runOnOperation() override {
    func::FuncOp kernel = getOperation();
    if (!kernel->hasAttr(kFusedOpsAttrName) ||
        !kernel.getBody().hasOneBlock())
      return;
    auto ret = cast<func::ReturnOp>(kernel.getBody().front().getTerminator());
    if (ret.getNumOperands() != 1)
      return;
    auto anchor = ret.getOperand(0).getDefiningOp<linalg::LinalgOp>();
    if (!anchor || anchor->getNumResults() != 1)
      return;
    unsigned tileable = countTileableLoops(kernel);
    // The innermost loop stays whole (contiguous, vectorizable).
    SmallVector<int64_t> ranges = anchor.getStaticLoopRanges();
    tileable = std::min<unsigned>(tileable, ranges.size() - 1);
    if (tileable == 0 || ShapedType::isDynamicShape(ranges))
      return;
    // Leading loops get tile size 1 until the rest fits the budget; the
    // last tiled loop takes the largest divisor that fits.
    SmallVector<int64_t> sizes(ranges.size(), 0);
    int64_t inner = 1;
    for (int64_t range : ArrayRef(ranges).drop_front(tileable))
      inner *= range;
    int64_t budget = std::max<int64_t>(1, tileElements / inner);
    for (int i = tileable - 1; i >= 0; --i) {
      int64_t size = 1;
      for (int64_t d = std::min(ranges[i], budget); d >= 1; --d)
        if (ranges[i] % d == 0) {
          size = d;
          break;
        }
      sizes[i] = size;
      budget = std::max<int64_t>(1, budget / ranges[i]);
    }
    int64_t tiles = 1;
    for (unsigned i = 0; i < tileable; ++i)
      tiles *= ranges[i] / sizes[i];
    if (tiles < 2)
      return;

    scf::SCFTilingOptions tiling;
    tiling.setTileSizes(getAsIndexOpFoldResult(&getContext(), sizes));
    tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tiling);
    IRRewriter rewriter(&getContext());
    rewriter.setInsertionPoint(anchor);
    FailureOr<scf::SCFTileAndFuseResult> tiled =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(anchor.getOperation()), options);
    // Not tileable after all: the kernel stays correct, untiled.
    if (failed(tiled))
      return;
    Value result = anchor->getResult(0);
    rewriter.replaceAllUsesWith(result, tiled->replacements.lookup(result));
  }
};
} // namespace
