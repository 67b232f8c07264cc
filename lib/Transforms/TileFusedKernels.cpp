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

/// Returns the result position of `map` that is exactly loop `loop`, or -1.
static int positionOf(AffineMap map, int64_t loop) {
  for (unsigned i = 0; i < map.getNumResults(); ++i)
    if (auto d = dyn_cast<AffineDimExpr>(map.getResult(i));
        d && d.getPosition() == loop)
      return i;
  return -1;
}

/// Returns which loops of `anchor` can be tiled with every linalg op of the
/// kernel fused into the tile loop: anchor loop `a` qualifies if, following
/// the indexing maps from the anchor to each producer (inputs and inits
/// computed by linalg ops of the kernel), it is one parallel loop of every
/// op, reached the same way on every path. Nothing qualifies if the kernel
/// holds tensor ops other than linalg ops, tensor.empty, constants and
/// reshapes of the kernel's arguments (extracts, reshapes between ops).
static SmallVector<bool> findTileableLoops(func::FuncOp kernel,
                                           linalg::LinalgOp anchor) {
  unsigned rank = anchor.getNumLoops();
  SmallVector<bool> tileable(rank, false);
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (isa<func::FuncOp, func::ReturnOp, tensor::EmptyOp>(op) ||
        op->hasTrait<OpTrait::ConstantLike>() ||
        op->getParentOfType<linalg::LinalgOp>())
      return WalkResult::advance();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op) &&
        isa<BlockArgument>(op->getOperand(0)))
      return WalkResult::advance();
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureTensorSemantics())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return tileable;

  // loopOf[op][a]: the loop of `op` that anchor loop `a` becomes, or -1.
  DenseMap<Operation *, SmallVector<int64_t>> loopOf;
  SmallVector<linalg::LinalgOp> worklist = {anchor};
  SmallVector<int64_t> identity;
  for (unsigned a = 0; a < rank; ++a)
    identity.push_back(a);
  loopOf[anchor] = identity;
  SmallVector<bool> ok(rank, true);
  while (!worklist.empty()) {
    linalg::LinalgOp consumer = worklist.pop_back_val();
    SmallVector<int64_t> loops = loopOf[consumer];
    SmallVector<utils::IteratorType> iterators =
        consumer.getIteratorTypesArray();
    for (unsigned a = 0; a < rank; ++a)
      if (loops[a] < 0 || iterators[loops[a]] != utils::IteratorType::parallel)
        ok[a] = false;
    for (OpOperand &operand : consumer->getOpOperands()) {
      auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
      if (!producer)
        continue;
      AffineMap map = consumer.getMatchingIndexingMap(&operand);
      AffineMap producerMap = producer.getIndexingMapMatchingResult(
          cast<OpResult>(operand.get()));
      SmallVector<int64_t> mapped(rank, -1);
      for (unsigned a = 0; a < rank; ++a) {
        int position = loops[a] < 0 ? -1 : positionOf(map, loops[a]);
        if (position < 0)
          continue;
        if (auto d = dyn_cast<AffineDimExpr>(producerMap.getResult(position)))
          mapped[a] = d.getPosition();
      }
      auto [it, inserted] = loopOf.try_emplace(producer, mapped);
      if (inserted) {
        worklist.push_back(producer);
        continue;
      }
      // Another path reaches the producer: the loops must agree.
      for (unsigned a = 0; a < rank; ++a)
        if (it->second[a] != mapped[a])
          ok[a] = false;
    }
  }
  // Every linalg op must be reached (it is then fused into the loop).
  bool all = true;
  kernel.walk([&](linalg::LinalgOp op) {
    if (!op->getParentOfType<linalg::LinalgOp>() && !loopOf.count(op))
      all = false;
  });
  if (!all)
    return tileable;
  return ok;
}

/// Whether a linalg op of `kernel` reduces, and each one that does is a
/// row reduction: its reduction loops innermost, read by one input alone,
/// as that input's trailing dimensions in order (a sum, max or sum of
/// squares along contiguous rows; not a matrix product, not a sum down
/// columns).
static bool hasOnlyRowReductions(func::FuncOp kernel) {
  bool any = false, other = false;
  kernel.walk([&](linalg::LinalgOp op) {
    unsigned reductions = op.getNumReductionLoops();
    if (reductions == 0 || op->getParentOfType<linalg::LinalgOp>())
      return;
    any = true;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    unsigned first = iterators.size() - reductions;
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if ((iterator == utils::IteratorType::reduction) != (i >= first))
        other = true;
    int readers = 0;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (llvm::none_of(llvm::seq<unsigned>(first, iterators.size()),
                        [&](unsigned i) { return map.isFunctionOfDim(i); }))
        continue;
      ++readers;
      unsigned results = map.getNumResults();
      if (results < reductions) {
        other = true;
        continue;
      }
      for (unsigned i = 0; i < reductions; ++i)
        if (map.getResult(results - reductions + i) !=
            getAffineDimExpr(first + i, op.getContext()))
          other = true;
    }
    other |= readers > 1;
  });
  return any && !other;
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
    // With row-reductions-only the result is elementwise over the rows'
    // reductions (softmax, a norm): a kernel ending in its reduction writes
    // the result in place, which a tile of one row could only sum on one
    // thread.
    if (!anchor || anchor->getNumResults() != 1 ||
        (rowReductionsOnly &&
         (anchor.getNumReductionLoops() != 0 || !hasOnlyRowReductions(kernel))))
      return;
    SmallVector<int64_t> ranges = anchor.getStaticLoopRanges();
    if (ranges.size() < 2 || ShapedType::isDynamicShape(ranges))
      return;
    SmallVector<bool> tileable = findTileableLoops(kernel, anchor);
    // The innermost loop stays whole (contiguous, vectorizable); so do
    // reduction loops. From the inside out, each tileable loop takes the
    // largest divisor of its extent that keeps a tile within the budget.
    SmallVector<int64_t> sizes(ranges.size(), 0);
    int64_t tile = ranges.back();
    int64_t tiles = 1;
    for (int i = ranges.size() - 2; i >= 0; --i) {
      if (!tileable[i]) {
        tile *= ranges[i];
        continue;
      }
      int64_t budget = std::max<int64_t>(1, tileElements / tile);
      int64_t size = 1;
      for (int64_t d = std::min(ranges[i], budget); d >= 1; --d)
        if (ranges[i] % d == 0) {
          size = d;
          break;
        }
      sizes[i] = size;
      tile *= size;
      tiles *= ranges[i] / size;
    }
    // Tiles longer than the budget (whole long rows) only where there are
    // at least min-tiles of them: few long rows are better split another
    // way (the target's reductions over many blocks).
    if (tiles < 2 || (tile > tileElements && tiles < minTiles))
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
