//===- DecomposeReshards.cpp - reshards as single steps -------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"

namespace mlir::ms::dist {
#define GEN_PASS_DEF_DECOMPOSERESHARDSPASS
#include "ms/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace mlir::ms::dist

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::dist;
using shard::GridAxis;
using shard::Sharding;

/// A sharding's split axes, one list per dim, without trailing empty dims.
using Axes = SmallVector<SmallVector<GridAxis>>;

static Axes normalized(Axes axes) {
  while (!axes.empty() && axes.back().empty())
    axes.pop_back();
  return axes;
}

static Axes axesOf(const Sharding &sharding) {
  Axes axes;
  for (shard::GridAxesAttr dim : sharding.getSplitAxes())
    axes.push_back(llvm::to_vector(dim.asArrayRef()));
  return normalized(std::move(axes));
}

static ArrayRef<GridAxis> dimAxes(const Axes &axes, size_t d) {
  return d < axes.size() ? ArrayRef<GridAxis>(axes[d]) : ArrayRef<GridAxis>();
}

static bool hasPrefix(ArrayRef<GridAxis> list, ArrayRef<GridAxis> prefix) {
  return prefix.size() <= list.size() &&
         llvm::equal(prefix, list.take_front(prefix.size()));
}

/// The sharding upstream's reshard reaches from `source` towards `target`
/// in its one step (mirroring shard-partition's detection order: move a
/// last axis, split one more axis, unsplit a last axis), if any.
static std::optional<Axes> upstreamStep(const Axes &source,
                                        const Axes &target) {
  // Move the last axis of dim s to the end of dim t.
  for (size_t s = 0; s < source.size(); ++s)
    for (size_t t = 0; t < target.size(); ++t) {
      ArrayRef<GridAxis> from = dimAxes(source, s), to = dimAxes(target, t);
      if (s == t || from.empty() || to.empty() || from.back() != to.back() ||
          !llvm::equal(from.drop_back(), to.drop_back()))
        continue;
      Axes next = source;
      next.resize(std::max(next.size(), t + 1));
      GridAxis axis = next[s].pop_back_val();
      next[t].push_back(axis);
      return normalized(next);
    }
  // Split dim d by one more axis.
  for (size_t d = 0; d < target.size(); ++d) {
    ArrayRef<GridAxis> from = dimAxes(source, d), to = dimAxes(target, d);
    if (from.size() + 1 != to.size() || !hasPrefix(to, from))
      continue;
    Axes next = source;
    next.resize(std::max(next.size(), d + 1));
    next[d].push_back(to.back());
    return normalized(next);
  }
  // Unsplit the last axis of dim d.
  for (size_t d = 0; d < source.size(); ++d) {
    ArrayRef<GridAxis> from = dimAxes(source, d), to = dimAxes(target, d);
    if (from.empty() || from.size() != to.size() + 1 || !hasPrefix(from, to))
      continue;
    Axes next = source;
    next[d].pop_back();
    return normalized(next);
  }
  return std::nullopt;
}

bool mlir::ms::dist::isSingleStepReshard(Sharding source, Sharding target) {
  Axes from = axesOf(source), to = axesOf(target);
  if (from == to)
    return true;
  std::optional<Axes> step = upstreamStep(from, to);
  return step && *step == to;
}

/// A chain of shardings from `source` to `target`, each one upstream step
/// from the one before: first unsplit every axis the target does not keep
/// in place (last axes first), then split in the target's order.
static SmallVector<Axes> reshardChain(Axes source, const Axes &target) {
  SmallVector<Axes> chain;
  Axes current = source;
  while (current != target) {
    bool changed = false;
    for (size_t d = 0; d < current.size() && !changed; ++d)
      if (!hasPrefix(dimAxes(target, d), current[d])) {
        current[d].pop_back();
        changed = true;
      }
    for (size_t d = 0; d < target.size() && !changed; ++d)
      if (dimAxes(current, d).size() < target[d].size()) {
        current.resize(std::max(current.size(), d + 1));
        current[d].push_back(target[d][current[d].size()]);
        changed = true;
      }
    current = normalized(current);
    chain.push_back(current);
  }
  return chain;
}

namespace {
struct DecomposeReshardsPass final
    : dist::impl::DecomposeReshardsPassBase<DecomposeReshardsPass> {
  using DecomposeReshardsPassBase::DecomposeReshardsPassBase;

  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<shard::ShardOp> reshards;
    bool failed = false;
    getOperation().walk([&](shard::ShardOp op) {
      if (!checkDivisible(op, symbols))
        failed = true;
      // Upstream reshards every chained pair of shard ops.
      if (op.getSrc().getDefiningOp<shard::ShardOp>())
        reshards.push_back(op);
    });
    if (failed)
      return signalPassFailure();
    for (shard::ShardOp op : reshards) {
      auto source = op.getSrc().getDefiningOp<shard::ShardOp>();
      Sharding from(source.getSharding()), to(op.getSharding());
      if (!from.getStaticHaloSizes().empty() ||
          !to.getStaticHaloSizes().empty() ||
          !from.getStaticShardedDimsOffsets().empty() ||
          !to.getStaticShardedDimsOffsets().empty()) {
        op.emitError("expected a sharding without halos or explicit shard "
                     "offsets");
        return signalPassFailure();
      }
      if (isSingleStepReshard(from, to))
        continue;
      OpBuilder b(op);
      Value current = op.getSrc();
      SmallVector<Axes> chain = reshardChain(axesOf(from), axesOf(to));
      chain.pop_back();
      for (const Axes &axes : chain) {
        SmallVector<shard::GridAxesAttr> split;
        for (const SmallVector<GridAxis> &dim : axes)
          split.push_back(shard::GridAxesAttr::get(&getContext(), dim));
        Value sharding =
            shard::ShardingOp::create(b, op.getLoc(), from.getGridAttr(), split)
                .getResult();
        Value used =
            shard::ShardOp::create(b, op.getLoc(), current, sharding, true);
        current = shard::ShardOp::create(b, op.getLoc(), used, sharding, false);
      }
      op.getSrcMutable().assign(current);
    }
  }

  /// Checks that every dim `op`'s sharding splits is divisible by its
  /// device count.
  bool checkDivisible(shard::ShardOp op, SymbolTableCollection &symbols) {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    shard::GridOp grid = shard::getGrid(op, symbols);
    if (!type || !grid)
      return true;
    Sharding sharding(op.getSharding());
    for (auto [d, axes] : llvm::enumerate(sharding.getSplitAxes())) {
      int64_t devices = 1;
      for (GridAxis axis : axes.asArrayRef())
        devices *= grid.getShape()[axis];
      if (d < static_cast<size_t>(type.getRank()) &&
          !ShapedType::isDynamic(type.getDimSize(d)) &&
          type.getDimSize(d) % devices != 0) {
        Operation *user = op.getAnnotateForUsers() && !op->use_empty()
                              ? *op->user_begin()
                              : op.getSrc().getDefiningOp();
        InFlightDiagnostic diag =
            (user ? user : op.getOperation())->emitError();
        diag << "cannot split dim " << d << " (size " << type.getDimSize(d)
             << ") of a " << type << " over " << devices
             << " devices: the size is not divisible";
        return false;
      }
    }
    return true;
  }
};
} // namespace
