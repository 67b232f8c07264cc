//===- FormGroups.cpp - partition the entry function into fused groups ----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Grouping runs in two sweeps over the entry block: roots first (each grows
// its producers and consumers), then chains of the elementwise ops left.
// Membership is recorded first and materialized at the end, so the block is
// not modified while groups grow. The rules are F1-F7 of
// docs/spec/msfusion.md.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Fusion/Transforms/Passes.h"

#include "ms/Dialect/Fusion/IR/FusionRoles.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <limits>

namespace mlir::ms::fusion {
#define GEN_PASS_DEF_FORMGROUPSPASS
#include "ms/Dialect/Fusion/Transforms/Passes.h.inc"
} // namespace mlir::ms::fusion

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::fusion;

/// Constants up to this many elements are cloned into any group; a larger
/// splat only into elementwise members (it folds into a scalar there).
static constexpr int64_t kMaxClonedElements = 16;

/// True for a statically shaped, non-empty tensor of numbers.
static bool isKernelTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() > 0 &&
         !isa<graph::StringType>(tensor.getElementType());
}

/// True when the constant defining `value`, if any, is cloned into a group
/// for its use by `user` (F8) rather than passed in.
static bool isClonedConstant(Value value, Operation *user) {
  auto constant = value.getDefiningOp<graph::ConstantOp>();
  if (!constant)
    return false;
  auto attr = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!attr || !isKernelTensor(attr.getType()))
    return false;
  if (attr.getNumElements() <= kMaxClonedElements)
    return true;
  return attr.isSplat() &&
         getFusionRole(user) == FusionRole::Elementwise;
}

/// Returns the shape of `value` (a ranked tensor).
static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// F2b: whether `op` is a row reduction of `rows`-shaped values to `shape`
/// (false when `rows` is empty).
static bool isRowReductionOf(Operation *op, ArrayRef<int64_t> rows,
                             ArrayRef<int64_t> shape) {
  return !rows.empty() && isRowReduction(op) &&
         shapeOf(op->getOperand(0)) == rows &&
         shapeOf(op->getResult(0)) == shape;
}

namespace {
/// The groups being formed over one block.
class Grouping {
public:
  explicit Grouping(Block &block) : block(block) {
    int64_t position = 0;
    for (Operation &op : block)
      positions[&op] = position++;
  }

  /// Forms the groups (F1-F7) and materializes them (F8). Fails if the
  /// groups could not be ordered, which the cycle rule rules out.
  LogicalResult run();

private:
  /// F1: whether `op` may be a member at all.
  bool isCandidate(Operation *op) const;
  /// Whether `op` is a candidate with role `role` not yet in a group.
  bool isFree(Operation *op, FusionRole role) const {
    return !groupOf.count(op) && isCandidate(op) && getFusionRole(op) == role;
  }
  int newGroup() {
    members.emplace_back();
    return members.size() - 1;
  }
  void add(int group, Operation *op) {
    groupOf[op] = group;
    members[group].push_back(op);
  }
  /// F6: whether `group` plus `ops` would depend on itself through an op
  /// outside it (groups contracted to one node).
  bool wouldCycle(int group, ArrayRef<Operation *> ops) const;
  /// Adds `op` to `group` if that creates no cycle.
  bool tryAdd(int group, Operation *op) {
    if (wouldCycle(group, op))
      return false;
    add(group, op);
    return true;
  }
  /// Moves the members of `from` into `into` if that creates no cycle.
  void tryMerge(int into, int from) {
    SmallVector<Operation *> moved = std::move(members[from]);
    members[from].clear();
    if (wouldCycle(into, moved)) {
      members[from] = std::move(moved);
      return;
    }
    for (Operation *op : moved)
      add(into, op);
  }
  /// F2c: returns the free root that absorbs producers (F3) if it is the
  /// only user of `op` and reads it as its data operand, else null.
  Operation *onlyRootUser(Operation *op) const {
    if (!op->hasOneUse())
      return nullptr;
    OpOperand &use = *op->getUses().begin();
    Operation *root = use.getOwner();
    if (use.getOperandNumber() != 0 || !isFree(root, FusionRole::Root) ||
        !absorbsProducers(root))
      return nullptr;
    return root;
  }
  /// F3: adds the elementwise producer of `operand` once all its users are
  /// members, and recursively its producers of its own shape.
  void growProducers(int group, Value operand);
  /// F2: adds the elementwise users of the group's values that keep the
  /// root's shape, transitively. For a row reduction (F2b), `rows` is the
  /// shape of its operand: users of that shape that read the group's
  /// reduced values broadcast along the rows join too, and so do row
  /// reductions of such values to the root's shape.
  void growConsumers(int group, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> rows);
  /// F8: replaces the members of `group` by one msfusion.group.
  void materialize(ArrayRef<Operation *> group);

  Block &block;
  DenseMap<Operation *, int64_t> positions;
  DenseMap<Operation *, int> groupOf;
  std::vector<SmallVector<Operation *>> members;
};
} // namespace

bool Grouping::isCandidate(Operation *op) const {
  if (!isa_and_nonnull<graph::GraphDialect>(op->getDialect()) ||
      op->hasTrait<OpTrait::ConstantLike>() || op->getNumResults() == 0)
    return false;
  FusionRole role = getFusionRole(op);
  if (role != FusionRole::Elementwise && role != FusionRole::Root &&
      role != FusionRole::Movement)
    return false;
  return llvm::all_of(op->getOperandTypes(), isKernelTensor) &&
         llvm::all_of(op->getResultTypes(), isKernelTensor);
}

bool Grouping::wouldCycle(int group, ArrayRef<Operation *> ops) const {
  // Walk back from every value the grown group would read from outside; an
  // op before the group's first member cannot depend on it, unless it is in
  // a group whose other members might.
  SmallVector<Operation *> grown(members[group]);
  llvm::append_range(grown, ops);
  int64_t first = std::numeric_limits<int64_t>::max();
  for (Operation *member : grown)
    first = std::min(first, positions.lookup(member));
  auto inGrown = [&](Operation *x) { return llvm::is_contained(grown, x); };

  SmallVector<Operation *> worklist;
  DenseSet<Operation *> visited;
  auto pushOperands = [&](Operation *from) {
    for (Value operand : from->getOperands())
      if (Operation *def = operand.getDefiningOp())
        if (!inGrown(def) && visited.insert(def).second)
          worklist.push_back(def);
  };
  for (Operation *member : grown)
    pushOperands(member);
  while (!worklist.empty()) {
    Operation *x = worklist.pop_back_val();
    for (Value operand : x->getOperands())
      if (Operation *def = operand.getDefiningOp(); def && inGrown(def))
        return true;
    auto other = groupOf.find(x);
    if (other != groupOf.end() && other->second != group) {
      for (Operation *mate : members[other->second])
        if (visited.insert(mate).second)
          worklist.push_back(mate);
    } else if (positions.lookup(x) < first) {
      continue;
    }
    pushOperands(x);
  }
  return false;
}

void Grouping::growProducers(int group, Value operand) {
  // Candidates are producers of the root's operand and, transitively, the
  // operands of added producers that those do not broadcast (each element
  // is then read once per element of the root's operand). A candidate
  // joins once all its users are members; one whose other users join
  // later is tried again.
  SmallVector<Value> candidates = {operand};
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t i = 0; i < candidates.size(); ++i) {
      Operation *producer = candidates[i].getDefiningOp();
      if (!producer || !isFree(producer, FusionRole::Elementwise) ||
          !llvm::all_of(producer->getUsers(), [&](Operation *user) {
            auto it = groupOf.find(user);
            return it != groupOf.end() && it->second == group;
          }) ||
          !tryAdd(group, producer))
        continue;
      grew = true;
      for (Value next : producer->getOperands())
        if (shapeOf(next) == shapeOf(candidates[i]) &&
            !llvm::is_contained(candidates, next))
          candidates.push_back(next);
    }
  }
}

void Grouping::growConsumers(int group, ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> rows) {
  auto isGroupShape = [&](ArrayRef<int64_t> s) {
    return s == shape || (!rows.empty() && s == rows);
  };
  auto inGroup = [&](Value v) {
    auto it = groupOf.find(v.getDefiningOp());
    return it != groupOf.end() && it->second == group;
  };
  // Members are appended while the loop runs; index, do not iterate.
  for (size_t i = 0; i < members[group].size(); ++i) {
    Operation *member = members[group][i];
    bool moved = getFusionRole(member) == FusionRole::Movement;
    for (Value result : member->getResults()) {
      // A reshape or transpose of a member joins and ends the growth on
      // its side: the group writes that value in the new layout.
      for (Operation *user : result.getUsers())
        if (isFree(user, FusionRole::Movement) &&
            user->getOperand(0) == result)
          tryAdd(group, user);
      if (moved || !isGroupShape(shapeOf(result)))
        continue;
      for (Operation *user : result.getUsers()) {
        // F2b: another reduction of the same rows (a variance after a
        // mean, a sum of exponentials after a maximum).
        if (isFree(user, FusionRole::Root) &&
            isRowReductionOf(user, rows, shape) &&
            user->getOperand(0) == result) {
          tryAdd(group, user);
          continue;
        }
        if (!isFree(user, FusionRole::Elementwise))
          continue;
        // F2c: a value only another root reads, computed from a group
        // value that is written out anyway, is left to that root: it
        // computes it in its loop instead of this group writing a second
        // tensor (unless that root joins this group: F2b).
        Operation *root = onlyRootUser(user);
        if (root && !isRowReductionOf(root, rows, shape) &&
            llvm::any_of(user->getOperands(), [&](Value v) {
              return inGroup(v) && !v.hasOneUse();
            }))
          continue;
        ArrayRef<int64_t> userShape = shapeOf(user->getResult(0));
        if (!isGroupShape(userShape))
          continue;
        // Every operand the user takes from the group has the user's
        // shape, or is a reduced value read along the rows (F2b): any
        // other member value read at a broadcast index would be
        // recomputed per read.
        bool readsOnce = llvm::all_of(user->getOperands(), [&](Value v) {
          ArrayRef<int64_t> s = shapeOf(v);
          return !inGroup(v) || s == userShape ||
                 (!rows.empty() && userShape == rows && s == shape);
        });
        if (readsOnce)
          tryAdd(group, user);
      }
    }
  }
}

LogicalResult Grouping::run() {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  // Roots, in program order.
  for (Operation *op : ops) {
    if (!isFree(op, FusionRole::Root))
      continue;
    int group = newGroup();
    add(group, op);
    // Consumers first: a producer whose value the consumers read too (the
    // input of a decomposed norm) joins once they are members.
    growConsumers(group, shapeOf(op->getResult(0)),
                  isRowReduction(op) ? shapeOf(op->getOperand(0))
                                     : ArrayRef<int64_t>());
    if (absorbsProducers(op))
      growProducers(group, op->getOperand(0));
  }
  // Chains: an elementwise op joins the root-less group of an operand of its
  // own shape, else starts one; the chains of its other operands of that
  // shape merge into it.
  SmallVector<bool> hasRoot(members.size(), true);
  for (Operation *op : ops) {
    if (!isFree(op, FusionRole::Elementwise))
      continue;
    ArrayRef<int64_t> shape = shapeOf(op->getResult(0));
    auto chainOf = [&](Value operand) {
      auto it = groupOf.find(operand.getDefiningOp());
      if (it == groupOf.end() || hasRoot[it->second] ||
          shapeOf(operand) != shape)
        return -1;
      return it->second;
    };
    for (Value operand : op->getOperands()) {
      int chain = chainOf(operand);
      if (chain >= 0 && tryAdd(chain, op))
        break;
    }
    if (!groupOf.count(op)) {
      add(newGroup(), op);
      hasRoot.push_back(false);
    }
    int joined = groupOf.lookup(op);
    for (Value operand : op->getOperands()) {
      int chain = chainOf(operand);
      if (chain >= 0 && chain != joined)
        tryMerge(joined, chain);
    }
  }
  // F7: a group of one op compiles as at O0, unless its loop nests fuse.
  for (SmallVector<Operation *> &group : members) {
    if (group.size() < 2 && !(group.size() == 1 && fusesAlone(group.front())))
      continue;
    llvm::sort(group, [&](Operation *a, Operation *b) {
      return positions.lookup(a) < positions.lookup(b);
    });
    materialize(group);
  }
  // A group sits at its last member; users of earlier members move after
  // it.
  if (!sortTopologically(&block))
    return block.getParentOp()->emitError(
        "fusion formed groups that cannot be ordered");
  return success();
}

void Grouping::materialize(ArrayRef<Operation *> group) {
  auto isMember = [&](Operation *op) { return llvm::is_contained(group, op); };
  llvm::SetVector<Value> inputs;
  SmallVector<Value> results;
  for (Operation *member : group) {
    for (Value operand : member->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!(def && isMember(def)) && !isClonedConstant(operand, member))
        inputs.insert(operand);
    }
    for (Value result : member->getResults())
      if (llvm::any_of(result.getUsers(),
                       [&](Operation *user) { return !isMember(user); }))
        results.push_back(result);
  }

  Operation *last = group.back();
  OpBuilder b(last);
  // The group reports errors at its root, else at its first op.
  const auto *root = llvm::find_if(group, [](Operation *op) {
    return getFusionRole(op) == FusionRole::Root;
  });
  Location loc = (root != group.end() ? *root : group.front())->getLoc();
  auto groupOp = GroupOp::create(b, loc,
                                 ValueRange(results).getTypes(),
                                 inputs.getArrayRef());
  Block *body = b.createBlock(&groupOp.getBody());
  IRMapping mapping;
  for (Value input : inputs)
    mapping.map(input, body->addArgument(input.getType(), input.getLoc()));
  SmallVector<Operation *> constants;
  for (Operation *member : group) {
    for (Value operand : member->getOperands()) {
      if (mapping.contains(operand) || !isClonedConstant(operand, member))
        continue;
      Operation *constant = operand.getDefiningOp();
      mapping.map(operand, b.clone(*constant)->getResult(0));
      constants.push_back(constant);
    }
    b.clone(*member, mapping);
  }
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(mapping.lookup(result));
  YieldOp::create(b, groupOp.getLoc(), yielded);

  for (auto [result, replacement] : llvm::zip(results, groupOp.getResults()))
    result.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      return !isMember(use.getOwner());
    });
  for (Operation *member : llvm::reverse(group))
    member->erase();
  // A constant only the group used is a weight no more.
  for (Operation *constant : constants)
    if (constant->use_empty())
      constant->erase();
}

namespace {
struct FormGroupsPass final
    : fusion::impl::FormGroupsPassBase<FormGroupsPass> {
  using FormGroupsPassBase::FormGroupsPassBase;

  void runOnOperation() override {
    func::FuncOp entryFunc = findEntryFunction(getOperation(), entry);
    if (!entryFunc)
      return signalPassFailure();
    Grouping grouping(entryFunc.getBody().front());
    if (failed(grouping.run()))
      return signalPassFailure();
  }
};
} // namespace
