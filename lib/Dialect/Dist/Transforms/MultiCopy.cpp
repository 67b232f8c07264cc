//===- MultiCopy.cpp - split regions around collectives into copies ------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Multi-copy parallelism: a region of the partitioned program around its
// collectives is cloned into N copies, each on a piece of a dim along which
// the pieces never meet (a parallel loop of every op's loop nest), so that
// one copy's communication runs while the next copy computes. The region,
// the dim and the order are found here; the plan's
// msexec-overlap-collectives puts the collectives on their own queue.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/Transforms/Passes.h"

#include "ms/Dialect/Dist/Transforms/ShardingInterfaceImpl.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <set>
#include <tuple>

namespace mlir::ms::dist {
#define GEN_PASS_DEF_MULTICOPYPASS
#include "ms/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace mlir::ms::dist

using namespace mlir;
using namespace mlir::ms;
using utils::IteratorType;

namespace {
/// How an op splits into copies: the dim of each operand and result that
/// is split (-1: the whole value goes to every copy).
struct SplitRule {
  SmallVector<int64_t> operands, results;
};

/// A region of ops split along one dim of each of its values.
struct CopyRegion {
  /// The ops, in the order they joined.
  llvm::SetVector<Operation *> ops;
  /// The split dim (or -1: whole) of every value an op of the region reads
  /// or produces.
  DenseMap<Value, int64_t> dims;
};
} // namespace

/// Collectives that move data between ranks: the communication to hide.
static bool isCommunication(Operation *op) {
  return isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
             shard::AllToAllOp>(op);
}

/// Names `op` for a remark: its op name and, from an ONNX model, its node.
static std::string describe(Operation *op) {
  std::string text = "'" + op->getName().getStringRef().str() + "'";
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    loc = fused.getLocations().front();
  if (auto name = dyn_cast<NameLoc>(loc))
    text += " (node '" + name.getName().str() + "')";
  return text;
}

/// Returns the extent of dim `dim` of ranked tensor `v`.
static int64_t sizeOf(Value v, int64_t dim) {
  return cast<RankedTensorType>(v.getType()).getDimSize(dim);
}

/// The rule of a collective split along `dim` of its operand (its result
/// has the same rank): any dim but the ones it gathers, scatters or
/// slices along.
static FailureOr<SplitRule> collectiveRule(Operation *op, int64_t dim,
                                           std::string &why) {
  SmallVector<int64_t> axes =
      llvm::TypeSwitch<Operation *, SmallVector<int64_t>>(op)
          .Case([](shard::AllGatherOp op) -> SmallVector<int64_t> {
            return {op.getGatherAxis().getSExtValue()};
          })
          .Case([](shard::ReduceScatterOp op) -> SmallVector<int64_t> {
            return {op.getScatterAxis().getSExtValue()};
          })
          .Case([](shard::AllSliceOp op) -> SmallVector<int64_t> {
            return {op.getSliceAxis().getSExtValue()};
          })
          .Case([](shard::AllToAllOp op) -> SmallVector<int64_t> {
            return {op.getSplitAxis().getSExtValue(),
                    op.getConcatAxis().getSExtValue()};
          })
          .Default([](Operation *) { return SmallVector<int64_t>(); });
  if (llvm::is_contained(axes, dim)) {
    why = "dim " + std::to_string(dim) +
          " is the axis the collective gathers, scatters or slices along";
    return failure();
  }
  return SplitRule{{dim}, {dim}};
}

/// The rule of msgraph op `op` split along dim `dim` of `value` (one of its
/// operands or results), or failure with the reason in `why`.
static FailureOr<SplitRule> graphRule(Operation *op, Value value, int64_t dim,
                                      std::string &why) {
  if (auto reshape = dyn_cast<graph::ReshapeOp>(op);
      reshape && reshape.getShape())
    return why = "the op takes its shape at run time", failure();
  // A copy keeps the attributes: a slice's bounds name the whole dims.
  if (isa<graph::SliceOp>(op))
    return why = "the op's bounds name whole dims", failure();
  std::optional<dist::LoopStructure> s = dist::getLoopStructure(op);
  if (!s)
    return why = "no rule splits this op", failure();
  SmallVector<Value> values(op->getOperands());
  llvm::append_range(values, op->getResults());
  auto *at = llvm::find(values, value);
  if (at == values.end())
    return why = "the value is not the op's", failure();
  AffineExpr expr = s->maps[at - values.begin()].getResult(dim);
  auto loopExpr = dyn_cast<AffineDimExpr>(expr);
  if (!loopExpr)
    return why = "dim " + std::to_string(dim) + " is broadcast by the op",
           failure();
  unsigned loop = loopExpr.getPosition();
  if (s->iterators[loop] == IteratorType::reduction)
    return why = "dim " + std::to_string(dim) + " is summed by the op",
           failure();
  if (s->whole[loop])
    return why = "dim " + std::to_string(dim) +
                 " is normalized, averaged or regrouped by the op as a whole",
           failure();
  SplitRule rule;
  for (auto [i, map] : llvm::enumerate(s->maps)) {
    int64_t split = -1;
    for (auto [d, e] : llvm::enumerate(map.getResults())) {
      if (e != loopExpr)
        continue;
      if (split >= 0)
        return why = "the op reads one loop along two dims", failure();
      split = d;
    }
    (i < op->getNumOperands() ? rule.operands : rule.results).push_back(split);
  }
  return rule;
}

/// The rule of `op` split along `dim` of `value`, checked against the
/// number of copies.
static FailureOr<SplitRule> splitRule(Operation *op, Value value, int64_t dim,
                                      int64_t copies, std::string &why) {
  FailureOr<SplitRule> rule = failure();
  if (isCommunication(op) || isa<shard::AllSliceOp>(op))
    rule = collectiveRule(op, dim, why);
  else if (isa<graph::ConstantOp>(op) || op->getNumRegions() ||
           !isa<graph::GraphDialect>(op->getDialect()))
    why = "no rule splits this op";
  else
    rule = graphRule(op, value, dim, why);
  if (failed(rule))
    return failure();
  for (auto [v, d] :
       llvm::zip_equal(llvm::concat<Value>(op->getOperands(), op->getResults()),
                       llvm::concat<int64_t>(rule->operands, rule->results))) {
    if (d >= 0 && ShapedType::isDynamic(sizeOf(v, d))) {
      why = "dim " + std::to_string(d) + " is dynamic";
      return failure();
    }
    if (d < 0 || sizeOf(v, d) % copies == 0)
      continue;
    why = "dim " + std::to_string(d) + " of size " +
          std::to_string(sizeOf(v, d)) + " is not divisible into " +
          std::to_string(copies) + " copies";
    return failure();
  }
  return rule;
}

namespace {
/// Grows regions from the collectives of one block and rewrites them.
class MultiCopy {
public:
  /// Prepares to split `block` into `copies` copies, remarking with `report`.
  MultiCopy(Block &block, int64_t copies, bool report)
      : block(block), copies(copies), report(report) {}

  /// Splits every region it can grow from the block's collectives.
  void run();

private:
  /// Grows a region from `seed` split along `dim` of its operand; returns
  /// it, or an empty region when the seed cannot split so.
  CopyRegion grow(Operation *seed, int64_t dim, std::string &why);
  /// Adds `op` split by `rule` to `region` unless a value would need two
  /// splits; sets `why` otherwise.
  bool tryAdd(CopyRegion &region, Operation *op, const SplitRule &rule,
              std::string &why);
  /// Clones `region` into the copies, slices its inputs, concatenates its
  /// values used after it and erases the original ops.
  void rewrite(CopyRegion &region);
  /// Orders the block so that each stage of copy i (compute, then its
  /// collective) precedes the same stage of copy i + 1.
  void schedule();

  Block &block;
  int64_t copies;
  bool report;
  /// Ops in a region, and the copies and joins made (never split again).
  DenseSet<Operation *> taken;
  /// Collectives not yet in a region (erased ops leave it).
  llvm::SetVector<Operation *> seeds;
  /// Scheduling keys of the rewritten ops: (stage, copy, position).
  DenseMap<Operation *, std::tuple<int64_t, int64_t, int64_t>> keys;
  /// Ops that stopped a region, with the reason (reported once).
  llvm::MapVector<Operation *, std::string> stops;
  /// Ops whose stop was reported.
  DenseSet<Operation *> reported;
};
} // namespace

bool MultiCopy::tryAdd(CopyRegion &region, Operation *op, const SplitRule &rule,
                       std::string &why) {
  DenseMap<Value, int64_t> own;
  for (auto [v, d] : llvm::zip_equal(
           llvm::concat<Value>(op->getOperands(), op->getResults()),
           llvm::concat<const int64_t>(rule.operands, rule.results))) {
    if (!own.try_emplace(v, d).second && own[v] != d) {
      why = "the op reads one value split two ways";
      return false;
    }
  }
  for (auto [v, d] : llvm::zip_equal(
           llvm::concat<Value>(op->getOperands(), op->getResults()),
           llvm::concat<const int64_t>(rule.operands, rule.results))) {
    auto it = region.dims.find(v);
    if (it != region.dims.end() && it->second != d) {
      why = it->second < 0 || d < 0
                ? "the region needs one of its values whole and split"
                : "the region would split one value along two dims";
      return false;
    }
  }
  for (auto [v, d] : llvm::zip_equal(
           llvm::concat<Value>(op->getOperands(), op->getResults()),
           llvm::concat<const int64_t>(rule.operands, rule.results)))
    region.dims[v] = d;
  region.ops.insert(op);
  return true;
}

CopyRegion MultiCopy::grow(Operation *seed, int64_t dim, std::string &why) {
  CopyRegion region;
  stops.clear();
  FailureOr<SplitRule> rule =
      splitRule(seed, seed->getOperand(0), dim, copies, why);
  if (failed(rule) || !tryAdd(region, seed, *rule, why))
    return CopyRegion();
  // Breadth first over producers of split operands and users of split
  // results: candidates (op, value, dim).
  SmallVector<std::tuple<Operation *, Value, int64_t>> work;
  auto push = [&](Operation *op) {
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == &block && region.dims.lookup(v) >= 0 &&
          !region.ops.contains(def))
        work.emplace_back(def, v, region.dims.lookup(v));
    for (Value v : op->getResults())
      if (region.dims.lookup(v) >= 0)
        for (Operation *user : v.getUsers())
          if (user->getBlock() == &block && !region.ops.contains(user) &&
              !user->hasTrait<OpTrait::IsTerminator>())
            work.emplace_back(user, v, region.dims.lookup(v));
  };
  push(seed);
  for (size_t next = 0; next < work.size(); ++next) {
    auto [op, value, d] = work[next];
    if (region.ops.contains(op) || taken.contains(op))
      continue;
    std::string reason;
    FailureOr<SplitRule> opRule = splitRule(op, value, d, copies, reason);
    if (succeeded(opRule) && tryAdd(region, op, *opRule, reason)) {
      push(op);
      continue;
    }
    // Constants and weights are region inputs, not stops.
    if (!isa<graph::ConstantOp, shard::AllSliceOp>(op))
      stops.try_emplace(op, reason);
  }
  return region;
}

void MultiCopy::rewrite(CopyRegion &region) {
  // Block order: clones keep the original dependencies.
  SmallVector<Operation *> ops(region.ops.begin(), region.ops.end());
  llvm::sort(ops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  DenseMap<Operation *, int64_t> position;
  for (auto [i, op] : llvm::enumerate(block))
    position[&op] = i;

  // The stage of each op: the collectives on its longest path from the
  // region's inputs.
  DenseMap<Operation *, int64_t> stage;
  for (Operation *op : ops) {
    int64_t s = 0;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && region.ops.contains(def))
        s = std::max(s, stage[def] + (isCommunication(def) ? 1 : 0));
    stage[op] = s;
  }
  auto stageAfter = [&](Operation *op) {
    return stage.lookup(op) + (isCommunication(op) ? 1 : 0);
  };

  auto pieceType = [&](Value v, int64_t d) -> Type {
    auto type = cast<RankedTensorType>(v.getType());
    if (d < 0)
      return type;
    SmallVector<int64_t> shape(type.getShape());
    shape[d] /= copies;
    return type.clone(shape);
  };

  // Inputs: one slice per copy, right after the value's definition.
  OpBuilder b(block.getParentOp()->getContext());
  SmallVector<IRMapping> maps(copies);
  llvm::SetVector<Value> inputs;
  for (Operation *op : ops)
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if ((!def || !region.ops.contains(def)) && region.dims.lookup(v) >= 0)
        inputs.insert(v);
    }
  for (Value v : inputs) {
    int64_t d = region.dims.lookup(v);
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&block);
    auto type = cast<RankedTensorType>(v.getType());
    int64_t piece = type.getDimSize(d) / copies;
    for (int64_t i = 0; i < copies; ++i) {
      SmallVector<int64_t> starts(type.getRank(), 0), ends(type.getShape()),
          steps(type.getRank(), 1);
      starts[d] = i * piece;
      ends[d] = (i + 1) * piece;
      auto slice = graph::SliceOp::create(b, v.getLoc(), pieceType(v, d), v,
                                          starts, ends, steps);
      maps[i].map(v, slice.getResult());
      taken.insert(slice);
    }
  }

  // The copies, each op cloned on its pieces.
  b.setInsertionPoint(ops.back());
  for (Operation *op : ops) {
    for (int64_t i = 0; i < copies; ++i) {
      Operation *clone = b.clone(*op, maps[i]);
      taken.insert(clone);
      for (auto [result, original] :
           llvm::zip_equal(clone->getResults(), op->getResults()))
        result.setType(pieceType(original, region.dims.lookup(original)));
      keys[clone] = {stage[op], i, position[op]};
    }
  }

  // Values used after the region: the copies concatenated.
  for (Operation *op : ops)
    for (Value v : op->getResults()) {
      bool usedOutside = llvm::any_of(v.getUsers(), [&](Operation *user) {
        return !region.ops.contains(user);
      });
      if (!usedOutside)
        continue;
      int64_t d = region.dims.lookup(v);
      SmallVector<Value> pieces;
      for (int64_t i = 0; i < copies; ++i)
        pieces.push_back(maps[i].lookup(v));
      auto concat = graph::ConcatOp::create(b, v.getLoc(), v.getType(), pieces,
                                            b.getI64IntegerAttr(d));
      keys[concat] = {stageAfter(op), copies, position[op]};
      taken.insert(concat);
      v.replaceUsesWithIf(concat.getResult(), [&](OpOperand &use) {
        return !region.ops.contains(use.getOwner());
      });
    }
  for (Operation *op : llvm::reverse(ops)) {
    keys.erase(op);
    taken.erase(op);
    seeds.remove(op);
    op->erase();
  }
}

void MultiCopy::schedule() {
  // Every op gets a key: rewritten ops have theirs; others take the latest
  // stage of what they read or of the rewritten ops before them (so that
  // unrelated work keeps its place instead of rising to the top), before
  // every copy of it.
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  DenseMap<Operation *, int64_t> after;
  DenseMap<Operation *, std::tuple<int64_t, int64_t, int64_t>> opKeys;
  int64_t seen = 0;
  for (auto [i, op] : llvm::enumerate(ops)) {
    auto it = keys.find(op);
    std::tuple<int64_t, int64_t, int64_t> key;
    if (it != keys.end()) {
      key = it->second;
      seen = std::max(seen, std::get<0>(key));
    } else {
      int64_t s = seen;
      for (Value v : op->getOperands())
        if (Operation *def = v.getDefiningOp())
          s = std::max(s, after.lookup(def));
      key = {s, -1, static_cast<int64_t>(i)};
    }
    opKeys[op] = key;
    after[op] = std::get<0>(key) +
                (isCommunication(op) && std::get<1>(key) >= 0 ? 1 : 0);
  }
  // Kahn's algorithm, smallest key first: a topological order that follows
  // the keys wherever the dependencies allow.
  DenseMap<Operation *, int64_t> pending;
  DenseMap<Operation *, int64_t> index;
  for (auto [i, op] : llvm::enumerate(ops))
    index[op] = i;
  using Entry = std::tuple<int64_t, int64_t, int64_t, int64_t>;
  std::set<Entry> ready;
  auto entry = [&](Operation *op) {
    auto [s, c, p] = opKeys[op];
    return Entry{s, c, p, index[op]};
  };
  for (Operation *op : ops) {
    llvm::SmallPtrSet<Operation *, 4> defs;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp(); def && index.count(def))
        defs.insert(def);
    pending[op] = defs.size();
    if (defs.empty())
      ready.insert(entry(op));
  }
  Operation *terminator = block.getTerminator();
  while (!ready.empty()) {
    Operation *op = ops[std::get<3>(*ready.begin())];
    ready.erase(ready.begin());
    op->moveBefore(terminator);
    llvm::SmallPtrSet<Operation *, 8> users;
    for (Operation *user : op->getUsers())
      if (index.count(user))
        users.insert(user);
    for (Operation *user : users)
      if (--pending[user] == 0)
        ready.insert(entry(user));
  }
}

void MultiCopy::run() {
  // The schedule follows operands only: values an op's regions capture
  // would not order it.
  if (llvm::any_of(block, [](Operation &op) { return op.getNumRegions(); }))
    return;
  for (Operation &op : block)
    if (isCommunication(&op))
      seeds.insert(&op);
  while (!seeds.empty()) {
    Operation *seed = seeds.front();
    seeds.remove(seed);
    if (taken.contains(seed))
      continue;
    // Batch first, then the next dims (a sequence after a batch of 1).
    auto type = cast<RankedTensorType>(seed->getOperand(0).getType());
    std::string firstWhy;
    CopyRegion region;
    for (int64_t d = 0; d < type.getRank() && region.ops.empty(); ++d) {
      std::string why;
      region = grow(seed, d, why);
      if (region.ops.empty() && firstWhy.empty())
        firstWhy = why;
      if (!region.ops.empty() && report) {
        int64_t collectives = llvm::count_if(region.ops, isCommunication);
        seed->emitRemark() << describe(seed) << ": split into " << copies
                           << " copies along dim " << d << ": a region of "
                           << region.ops.size() << " ops with " << collectives
                           << " collectives per copy";
      }
    }
    if (region.ops.empty()) {
      if (report)
        seed->emitRemark() << describe(seed) << ": not split: "
                           << (firstWhy.empty() ? "no dim of its operand "
                                                  "divides into the copies"
                                                : firstWhy);
      continue;
    }
    if (report)
      for (auto &[op, why] : stops)
        if (!region.ops.contains(op) && !taken.contains(op) &&
            reported.insert(op).second)
          op->emitRemark() << describe(op) << ": left whole: " << why;
    for (Operation *op : region.ops)
      taken.insert(op);
    rewrite(region);
    // Keep the block in a topological order for the next region.
    schedule();
  }
}

namespace {
struct MultiCopyPass final : dist::impl::MultiCopyPassBase<MultiCopyPass> {
  using Base::Base;
  void runOnOperation() override {
    if (copies < 2) {
      getOperation().emitError("expected at least 2 copies, found ")
          << static_cast<int64_t>(copies);
      return signalPassFailure();
    }
    for (Block &block : getOperation().getBody())
      MultiCopy(block, copies, report).run();
  }
};
} // namespace
