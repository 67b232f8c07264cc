//===- ShardingInterfaceImpl.cpp - msgraph's sharding rules ---------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Each msgraph op is described to upstream sharding as a loop nest: its
// iterators, one indexing map per operand and result, and how reduction
// loops combine. Propagation picks a sharding of the loops from the
// annotated operands and results; partitioning clones the op on the local
// shards and, when a summed loop is split, all-reduces the partial results.
// Loops an op cannot split (a softmax's or layer_norm's axis, a mean) are
// never sharded: propagation gathers them first. Ops without a structure
// run on replicated values.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/Transforms/ShardingInterfaceImpl.h"
#include "ms/Dialect/Fusion/IR/FusionRoles.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterfaceImpl.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ms;
using shard::ReductionKind;
using shard::Sharding;
using shard::ShardingArray;
using shard::ShardingOption;
using utils::IteratorType;

using dist::LoopStructure;

static int64_t rankOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? type.getRank() : -1;
}

/// The map of an operand broadcast numpy-style to loops `0 .. rank` (the
/// result's dims): aligned right, size-1 dims that the result does not
/// have as 1 read index 0.
static AffineMap broadcastMap(Value operand, ArrayRef<int64_t> resultShape,
                              MLIRContext *ctx) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t rank = resultShape.size(), offset = rank - type.getRank();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t loop = offset + d;
    if (type.getDimSize(d) == 1 && resultShape[loop] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(loop, ctx));
  }
  return AffineMap::get(rank, 0, exprs, ctx);
}

static std::optional<LoopStructure> elementwiseStructure(Operation *op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape())
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  int64_t rank = resultType.getRank();
  LoopStructure s;
  s.iterators.assign(rank, IteratorType::parallel);
  s.whole.assign(rank, false);
  for (Value operand : op->getOperands()) {
    int64_t r = rankOf(operand);
    if (r < 0 || r > rank)
      return std::nullopt;
    // Every operand dim is the result's or broadcasts (1); anything else
    // (a shape operand) is not elementwise data.
    auto type = cast<RankedTensorType>(operand.getType());
    for (int64_t d = 0; d < r; ++d)
      if (type.getDimSize(d) != 1 &&
          type.getDimSize(d) != resultType.getDimSize(rank - r + d))
        return std::nullopt;
    s.maps.push_back(broadcastMap(operand, resultType.getShape(), ctx));
  }
  s.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  return s;
}

/// matmul: loops (batch..., m, n, k); operands of rank >= 2.
static std::optional<LoopStructure> matmulStructure(graph::MatMulOp op) {
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  auto result = cast<RankedTensorType>(op.getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2 || !result.hasStaticShape())
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  int64_t batch = result.getRank() - 2, loops = result.getRank() + 1;
  int64_t m = batch, n = batch + 1, k = batch + 2;
  auto operandMap = [&](RankedTensorType type, bool isLhs) {
    SmallVector<AffineExpr> exprs;
    int64_t offset = batch - (type.getRank() - 2);
    for (int64_t d = 0; d + 2 < type.getRank(); ++d) {
      int64_t loop = offset + d;
      if (type.getDimSize(d) == 1 && result.getDimSize(loop) != 1)
        exprs.push_back(getAffineConstantExpr(0, ctx));
      else
        exprs.push_back(getAffineDimExpr(loop, ctx));
    }
    exprs.push_back(getAffineDimExpr(isLhs ? m : k, ctx));
    exprs.push_back(getAffineDimExpr(isLhs ? k : n, ctx));
    return AffineMap::get(loops, 0, exprs, ctx);
  };
  LoopStructure s;
  s.iterators.assign(loops, IteratorType::parallel);
  s.iterators[k] = IteratorType::reduction;
  s.whole.assign(loops, false);
  s.maps = {operandMap(lhs, true), operandMap(rhs, false),
            AffineMap::getMultiDimIdentityMap(loops - 1, ctx)};
  s.maps.back() = AffineMap::get(loops, 0, s.maps.back().getResults(), ctx);
  s.reductionKinds = {ReductionKind::Sum};
  return s;
}

/// Reductions over `axes`: loops are the input's dims.
static std::optional<LoopStructure>
reductionStructure(Operation *op, ArrayRef<int64_t> axes, bool keepDims,
                   ReductionKind kind, bool splittable) {
  int64_t rank = rankOf(op->getOperand(0));
  if (rank <= 0)
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes)
    reduced[axis < 0 ? axis + rank : axis] = true;
  LoopStructure s;
  SmallVector<AffineExpr> resultExprs;
  for (int64_t d = 0; d < rank; ++d) {
    s.iterators.push_back(reduced[d] ? IteratorType::reduction
                                     : IteratorType::parallel);
    s.whole.push_back(reduced[d] && !splittable);
    if (reduced[d]) {
      s.reductionKinds.push_back(kind);
      // A kept dim (size 1) gets a loop of its own that is never split
      // (withConstantsAsLoops); the reduction loop stays splittable.
      if (keepDims)
        resultExprs.push_back(getAffineConstantExpr(0, ctx));
    } else {
      resultExprs.push_back(getAffineDimExpr(d, ctx));
    }
  }
  s.maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
            AffineMap::get(rank, 0, resultExprs, ctx)};
  return s;
}

/// Ops whose dims from `axis` on are normalized together (softmax along
/// one axis, layer_norm over the trailing dims): those loops stay whole.
static std::optional<LoopStructure>
normalizationStructure(Operation *op, int64_t axis, bool trailing) {
  int64_t rank = rankOf(op->getOperand(0));
  if (rank <= 0 || op->getNumResults() != 1)
    return std::nullopt;
  if (axis < 0)
    axis += rank;
  MLIRContext *ctx = op->getContext();
  LoopStructure s;
  s.iterators.assign(rank, IteratorType::parallel);
  s.whole.assign(rank, false);
  for (int64_t d = axis; d < (trailing ? rank : axis + 1); ++d)
    s.whole[d] = true;
  s.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  // layer_norm's scale and bias cover the trailing dims.
  for (Value operand : op->getOperands().drop_front()) {
    int64_t r = rankOf(operand);
    if (r < 0 || r > rank)
      return std::nullopt;
    SmallVector<AffineExpr> exprs;
    for (int64_t d = rank - r; d < rank; ++d)
      exprs.push_back(getAffineDimExpr(d, ctx));
    s.maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  s.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  return s;
}

/// attention: loops (b, h, s, t, d, dv) over query B x H x S x D and
/// key/value B x Hkv x T x D/Dv. The batch, the heads (with their keys and
/// values when there are as many), the queries (unless causal: a query's
/// position sets its mask) and the value features split; the keys (the
/// softmax runs over them) and the head dim (scores sum over it before the
/// softmax) stay whole.
static std::optional<LoopStructure> attentionStructure(graph::AttentionOp op) {
  auto q = cast<RankedTensorType>(op.getQuery().getType());
  auto k = cast<RankedTensorType>(op.getKey().getType());
  auto v = cast<RankedTensorType>(op.getValue().getType());
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  enum { B, H, S, T, D, DV, kLoops };
  auto dim = [&](int64_t loop) { return getAffineDimExpr(loop, ctx); };
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  bool sameHeads =
      k.getDimSize(1) == q.getDimSize(1) && v.getDimSize(1) == q.getDimSize(1);
  bool sameBatch =
      k.getDimSize(0) == q.getDimSize(0) && v.getDimSize(0) == q.getDimSize(0);
  AffineExpr kvBatch = sameBatch ? dim(B) : zero;
  AffineExpr kvHead = sameHeads ? dim(H) : zero;
  LoopStructure s;
  s.iterators.assign(kLoops, IteratorType::parallel);
  s.whole = {false, !sameHeads, op.getIsCausal(), true, true, false};
  s.maps.push_back(
      AffineMap::get(kLoops, 0, {dim(B), dim(H), dim(S), dim(D)}, ctx));
  s.maps.push_back(
      AffineMap::get(kLoops, 0, {kvBatch, kvHead, dim(T), dim(D)}, ctx));
  s.maps.push_back(
      AffineMap::get(kLoops, 0, {kvBatch, kvHead, dim(T), dim(DV)}, ctx));
  if (Value mask = op.getMask()) {
    auto type = cast<RankedTensorType>(mask.getType());
    if (type.getRank() != 4)
      return std::nullopt;
    int64_t loops[] = {B, H, S, T};
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < 4; ++d)
      exprs.push_back(type.getDimSize(d) == 1 ? zero : dim(loops[d]));
    s.maps.push_back(AffineMap::get(kLoops, 0, exprs, ctx));
  }
  s.maps.push_back(
      AffineMap::get(kLoops, 0, {dim(B), dim(H), dim(S), dim(DV)}, ctx));
  return s;
}

/// conv: loops (n, m, c); spatial dims stay whole (windows overlap). The
/// batch and the output channels split; the input channels are summed
/// (partial sums, all-reduced), unless a bias would be added on every rank
/// or groups tie output channels to input channels.
static std::optional<LoopStructure> convStructure(graph::ConvOp op) {
  auto input = cast<RankedTensorType>(op.getInput().getType());
  auto weight = cast<RankedTensorType>(op.getWeight().getType());
  if (input.getRank() < 3 || weight.getRank() != input.getRank())
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  enum { N, M, C, kLoops };
  auto dim = [&](int64_t loop) { return getAffineDimExpr(loop, ctx); };
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  auto map = [&](AffineExpr first, AffineExpr second, int64_t rank) {
    SmallVector<AffineExpr> exprs = {first, second};
    exprs.append(rank - 2, zero);
    return AffineMap::get(kLoops, 0, exprs, ctx);
  };
  bool grouped = op.getGroup() != 1;
  LoopStructure s;
  s.iterators.assign(kLoops, IteratorType::parallel);
  s.whole = {false, grouped, true};
  if (!grouped && !op.getBias()) {
    s.iterators[C] = IteratorType::reduction;
    s.whole[C] = false;
    s.reductionKinds = {ReductionKind::Sum};
  }
  s.maps.push_back(map(dim(N), dim(C), input.getRank()));
  s.maps.push_back(map(dim(M), dim(C), weight.getRank()));
  if (op.getBias())
    s.maps.push_back(AffineMap::get(kLoops, 0, {dim(M)}, ctx));
  s.maps.push_back(map(dim(N), dim(M), input.getRank()));
  return s;
}

/// Whether `op` takes dim `d` of its input whole (start 0, step 1, to the
/// end).
static bool isWholeDim(graph::SliceOp op, int64_t d) {
  auto type = cast<RankedTensorType>(op.getInput().getType());
  return op.getStarts()[d] == 0 && op.getSteps()[d] == 1 &&
         op.getEnds()[d] == type.getDimSize(d);
}

/// gather: loops are the result's dims, data[p..., indices[q...], r...],
/// then the gathered axis `v` as a summed loop: every loop splits. A split
/// `v` (an embedding table split by vocabulary, Megatron's
/// VocabParallelEmbedding) gathers on each process the rows it holds and
/// zeros elsewhere (partitionVocabularyGather): partial results, summed.
static std::optional<LoopStructure> gatherStructure(graph::GatherOp op) {
  int64_t rank = rankOf(op.getInput()), indices = rankOf(op.getIndices());
  int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
  if (rank <= 0 || indices < 0 || axis < 0 || axis >= rank)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  int64_t results = rank - 1 + indices, loops = results + 1;
  SmallVector<AffineExpr> data, index;
  for (int64_t d = 0; d < rank; ++d)
    data.push_back(getAffineDimExpr(d < axis    ? d
                                    : d == axis ? results
                                                : d - 1 + indices,
                                    ctx));
  for (int64_t d = 0; d < indices; ++d)
    index.push_back(getAffineDimExpr(axis + d, ctx));
  LoopStructure s;
  s.iterators.assign(loops, IteratorType::parallel);
  s.iterators[results] = IteratorType::reduction;
  s.reductionKinds = {ReductionKind::Sum};
  s.whole.assign(loops, false);
  s.maps = {
      AffineMap::get(loops, 0, data, ctx), AffineMap::get(loops, 0, index, ctx),
      AffineMap::get(
          loops, 0,
          AffineMap::getMultiDimIdentityMap(results, ctx).getResults(), ctx)};
  return s;
}

/// concat and slice: loops are the result's dims; the dims the op cuts
/// (a concat's joined axis, the dims a slice does not take whole) stay
/// whole, the others split on every side.
static std::optional<LoopStructure> windowStructure(Operation *op,
                                                    ArrayRef<bool> cut) {
  int64_t rank = cut.size();
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    exprs.push_back(cut[d] ? getAffineConstantExpr(0, ctx)
                           : getAffineDimExpr(d, ctx));
  LoopStructure s;
  s.iterators.assign(rank, IteratorType::parallel);
  s.whole.assign(cut.begin(), cut.end());
  for (size_t i = 0; i < op->getNumOperands() + 1; ++i)
    s.maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  return s;
}

/// reshape: loops are the result's dims. Input and result dims form groups
/// of equal products; a group splits only along its first (major) dim,
/// which row-major order makes the same contiguous blocks on both sides
/// (768 -> 12x64 split in 2 is 384 -> 6x64). The group's other input dims
/// index 0 (never split); size-1 dims stand alone.
static std::optional<LoopStructure> reshapeStructure(graph::ReshapeOp op) {
  auto in = cast<RankedTensorType>(op.getInput().getType());
  auto out = cast<RankedTensorType>(op.getType());
  ArrayRef<int64_t> a = in.getShape(), b = out.getShape();
  MLIRContext *ctx = op.getContext();
  int64_t rank = b.size();
  SmallVector<AffineExpr> inputExprs(a.size(), getAffineConstantExpr(0, ctx));
  SmallVector<size_t> minor;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (i < a.size() && a[i] == 1 && (j >= b.size() || b[j] != 1)) {
      ++i;
      continue;
    }
    if (j < b.size() && b[j] == 1 && (i >= a.size() || a[i] != 1)) {
      ++j;
      continue;
    }
    if (i >= a.size() || j >= b.size())
      return std::nullopt;
    size_t first = i;
    int64_t loop = j;
    int64_t left = a[i++], right = b[j++];
    while (left != right) {
      if (left < right) {
        if (i >= a.size())
          return std::nullopt;
        left *= a[i++];
      } else {
        if (j >= b.size())
          return std::nullopt;
        right *= b[j++];
      }
    }
    inputExprs[first] = getAffineDimExpr(loop, ctx);
    // The group's other result dims are not tied to the input: never
    // split them.
    for (size_t k = loop + 1; k < j; ++k)
      minor.push_back(k);
  }
  LoopStructure s;
  s.iterators.assign(rank, IteratorType::parallel);
  s.whole.assign(rank, false);
  for (size_t k : minor)
    s.whole[k] = true;
  // Size-1 result dims standing alone are never split either.
  for (int64_t k = 0; k < rank; ++k)
    if (b[k] == 1)
      s.whole[k] = true;
  s.maps.push_back(AffineMap::get(rank, 0, inputExprs, ctx));
  // The shape operand, if any, is whole.
  if (op.getShape())
    s.maps.push_back(
        AffineMap::get(rank, 0, {getAffineConstantExpr(0, ctx)}, ctx));
  s.maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  return s;
}

std::optional<LoopStructure> mlir::ms::dist::getLoopStructure(Operation *op) {
  using R = std::optional<LoopStructure>;
  if (llvm::any_of(op->getOperandTypes(),
                   [](Type t) {
                     auto type = dyn_cast<RankedTensorType>(t);
                     return !type || !type.hasStaticShape();
                   }) ||
      llvm::any_of(op->getResultTypes(), [](Type t) {
        auto type = dyn_cast<RankedTensorType>(t);
        return !type || !type.hasStaticShape();
      }))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, R>(op)
      .Case([](graph::MatMulOp op) { return matmulStructure(op); })
      .Case([](graph::ReduceSumOp op) {
        return reductionStructure(op, op.getAxes(), op.getKeepDims(),
                                  ReductionKind::Sum, true);
      })
      .Case([](graph::ReduceMaxOp op) {
        return reductionStructure(op, op.getAxes(), op.getKeepDims(),
                                  ReductionKind::Max, true);
      })
      .Case([](graph::ReduceMinOp op) {
        return reductionStructure(op, op.getAxes(), op.getKeepDims(),
                                  ReductionKind::Min, true);
      })
      .Case([](graph::ReduceMeanOp op) {
        return reductionStructure(op, op.getAxes(), op.getKeepDims(),
                                  ReductionKind::Generic, false);
      })
      .Case<graph::SoftmaxOp, graph::LogSoftmaxOp>([](auto op) {
        return normalizationStructure(op, op.getAxis(), false);
      })
      .Case([](graph::LayerNormOp op) {
        return normalizationStructure(op, op.getAxis(), true);
      })
      .Case([](graph::ReshapeOp op) { return reshapeStructure(op); })
      .Case([](graph::AttentionOp op) { return attentionStructure(op); })
      .Case([](graph::ConvOp op) { return convStructure(op); })
      .Case([](graph::GatherOp op) { return gatherStructure(op); })
      .Case([](graph::ConcatOp op) -> R {
        int64_t rank = rankOf(op.getResult());
        int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
        SmallVector<bool> cut(rank, false);
        cut[axis] = true;
        return windowStructure(op, cut);
      })
      .Case([](graph::SliceOp op) -> R {
        auto type = cast<RankedTensorType>(op.getInput().getType());
        SmallVector<bool> cut;
        for (int64_t d = 0; d < type.getRank(); ++d)
          cut.push_back(!isWholeDim(op, d));
        return windowStructure(op, cut);
      })
      // Its shape operand holds the result's extents at run time.
      .Case([](graph::ExpandOp op) -> R {
        if (op.getShape())
          return std::nullopt;
        return elementwiseStructure(op);
      })
      .Case([](graph::TransposeOp op) -> R {
        int64_t rank = rankOf(op.getResult());
        MLIRContext *ctx = op.getContext();
        LoopStructure s;
        s.iterators.assign(rank, IteratorType::parallel);
        s.whole.assign(rank, false);
        // result dim i is input dim perm[i]: input dim d is loop
        // perm^-1[d].
        ArrayRef<int64_t> perm = op.getPermutation();
        SmallVector<AffineExpr> exprs(rank);
        for (int64_t i = 0; i < rank; ++i)
          exprs[perm[i]] = getAffineDimExpr(i, ctx);
        s.maps = {AffineMap::get(rank, 0, exprs, ctx),
                  AffineMap::getMultiDimIdentityMap(rank, ctx)};
        return s;
      })
      .Default([](Operation *op) -> R {
        if (fusion::getFusionRole(op) == fusion::FusionRole::Elementwise)
          return elementwiseStructure(op);
        return std::nullopt;
      });
}

/// Gives each constant index (a broadcast dim, a reshape group's minor
/// dims) a loop of its own that is never split: upstream propagation only
/// reads indexing maps of loop dims.
static LoopStructure withConstantsAsLoops(LoopStructure s, MLIRContext *ctx) {
  SmallVector<SmallVector<AffineExpr>> exprs;
  for (AffineMap map : s.maps) {
    SmallVector<AffineExpr> &list = exprs.emplace_back();
    for (AffineExpr expr : map.getResults()) {
      if (isa<AffineConstantExpr>(expr)) {
        expr = getAffineDimExpr(s.iterators.size(), ctx);
        s.iterators.push_back(IteratorType::parallel);
        s.whole.push_back(true);
      }
      list.push_back(expr);
    }
  }
  for (auto [map, list] : llvm::zip(s.maps, exprs))
    map = AffineMap::get(s.iterators.size(), 0, list, ctx);
  return s;
}

/// For ops without a structure: every operand and result dim its own loop,
/// never sharded.
static LoopStructure replicatedStructure(Operation *op) {
  int64_t loops = 0;
  for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (auto type = dyn_cast<RankedTensorType>(t))
      loops += type.getRank();
  MLIRContext *ctx = op->getContext();
  LoopStructure s;
  s.iterators.assign(loops, IteratorType::parallel);
  s.whole.assign(loops, true);
  int64_t next = 0;
  for (Type t :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    SmallVector<AffineExpr> exprs;
    if (auto type = dyn_cast<RankedTensorType>(t))
      for (int64_t d = 0; d < type.getRank(); ++d)
        exprs.push_back(getAffineDimExpr(next++, ctx));
    s.maps.push_back(AffineMap::get(loops, 0, exprs, ctx));
  }
  return s;
}

static LoopStructure structureOf(Operation *op) {
  if (std::optional<LoopStructure> s = dist::getLoopStructure(op))
    return withConstantsAsLoops(*s, op->getContext());
  return replicatedStructure(op);
}

/// Whether `value` is a weight: a constant, seen through its annotations.
static bool isWeight(Value value) {
  while (auto annotation = value.getDefiningOp<shard::ShardOp>())
    value = annotation.getSrc();
  return value.getDefiningOp<graph::ConstantOp>() != nullptr;
}

/// The mesh axes each loop of `s` is split over, from the operands' and
/// results' shardings (upstream's getGridAxisAssignmentForLoopIterators
/// assumes every index is a loop, but broadcast dims index 0).
static ShardingArray assignLoops(const LoopStructure &s,
                                 ArrayRef<Sharding> operandShardings,
                                 ArrayRef<Sharding> resultShardings) {
  ShardingArray loops(s.iterators.size());
  for (auto [sharding, map] : llvm::zip(
           llvm::concat<const Sharding>(operandShardings, resultShardings),
           s.maps)) {
    if (!sharding)
      continue;
    for (auto [axes, expr] :
         llvm::zip(sharding.getSplitAxes(), map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr);
          dim && loops[dim.getPosition()].empty())
        loops[dim.getPosition()] = llvm::to_vector(axes.asArrayRef());
  }
  return loops;
}

/// Partitions `op`, a gather whose data is split along the gathered axis
/// over mesh axes `axes` (a vocabulary-parallel embedding): the process at
/// position r along `axes` holds rows [r * L, (r + 1) * L) of the axis's
/// V. It gathers with each index moved into its rows (negative ones
/// counted from V first; those outside its rows read row 0), zeros what
/// it gathered for indices outside its rows, and the partial results are
/// summed over `axes`: each element comes from the one process holding
/// its row. An index outside [-V, V) gives zeros.
static LogicalResult partitionVocabularyGather(
    graph::GatherOp op, ArrayRef<shard::GridAxis> axes,
    ArrayRef<Value> partitionedOperands, ArrayRef<Sharding> resultShardings,
    IRMapping &partitionMap, SymbolTableCollection &symbolTable,
    OpBuilder &builder) {
  Location loc = op.getLoc();
  Sharding sharding = resultShardings.front();
  shard::GridOp grid = shard::getGrid(op, sharding.getGridAttr(), symbolTable);
  auto dataType = cast<RankedTensorType>(op.getInput().getType());
  int64_t rank = dataType.getRank();
  int64_t axis = op.getAxis() < 0 ? op.getAxis() + rank : op.getAxis();
  int64_t devices = 1;
  for (shard::GridAxis a : axes)
    devices *= grid.getShape()[a];
  int64_t total = dataType.getDimSize(axis), rows = total / devices;
  Value data = partitionedOperands[0], indices = partitionedOperands[1];
  auto indexType = cast<RankedTensorType>(indices.getType());
  auto elem = cast<IntegerType>(indexType.getElementType());
  auto scalar = [&](int64_t value) -> Value {
    auto type = RankedTensorType::get({}, elem);
    return graph::ConstantOp::create(
        builder, loc,
        DenseElementsAttr::get(type, APInt(elem.getWidth(), value, true)));
  };
  // Each process's first row: its element of [0, L, 2L, ...], sliced at
  // compile time (one per-rank weight).
  SmallVector<APInt> firsts;
  for (int64_t r = 0; r < devices; ++r)
    firsts.push_back(APInt(elem.getWidth(), r * rows, true));
  Value all = graph::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(RankedTensorType::get({devices}, elem), firsts));
  Value first = shard::AllSliceOp::create(builder, loc, all, grid, axes, 0);
  first = graph::ReshapeOp::create(
      builder, loc, RankedTensorType::get({}, elem), first, Value());
  Value zero = scalar(0);
  Value negative = graph::LessOp::create(builder, loc, indices, zero);
  Value counted = graph::AddOp::create(builder, loc, indices, scalar(total));
  Value wrapped =
      graph::WhereOp::create(builder, loc, negative, counted, indices);
  Value local = graph::SubOp::create(builder, loc, wrapped, first);
  Value above = graph::GreaterEqualOp::create(builder, loc, local, zero);
  Value below = graph::LessOp::create(builder, loc, local, scalar(rows));
  Value inside = graph::AndOp::create(builder, loc, above, below);
  Value clamped = graph::WhereOp::create(builder, loc, inside, local, zero);
  Value gathered =
      graph::GatherOp::create(builder, loc, data, clamped, op.getAxisAttr());
  Type expected = shard::shardType(op.getType(), grid, sharding);
  if (gathered.getType() != expected)
    return op.emitOpError("cannot gather split rows into a result of type ")
           << expected << ": found " << gathered.getType();
  // The mask has the indices' dims at the result's: ones around them.
  SmallVector<int64_t> maskShape(axis, 1);
  llvm::append_range(maskShape, indexType.getShape());
  maskShape.append(rank - axis - 1, 1);
  Value mask = graph::ReshapeOp::create(
      builder, loc, RankedTensorType::get(maskShape, builder.getI1Type()),
      inside, Value());
  Type resultElem = dataType.getElementType();
  Value none = graph::ConstantOp::create(
      builder, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, resultElem),
                             builder.getZeroAttr(resultElem)));
  Value masked = graph::WhereOp::create(builder, loc, mask, gathered, none);
  Value summed = shard::AllReduceOp::create(builder, loc, masked.getType(),
                                            sharding.getGrid(), axes, masked,
                                            ReductionKind::Sum);
  partitionMap.map(op.getResult(), summed);
  return success();
}

namespace {
template <typename Op>
struct GraphOpShardingModel
    : public shard::ShardingInterface::ExternalModel<GraphOpShardingModel<Op>,
                                                     Op> {
  SmallVector<IteratorType> getLoopIteratorTypes(Operation *op) const {
    return structureOf(op).iterators;
  }
  SmallVector<AffineMap> getIndexingMaps(Operation *op) const {
    return structureOf(op).maps;
  }
  SmallVector<ReductionKind>
  getReductionLoopIteratorKinds(Operation *op) const {
    return structureOf(op).reductionKinds;
  }

  FailureOr<ShardingOption>
  getShardingOption(Operation *op, ArrayRef<Sharding> operandShardings,
                    ArrayRef<Sharding> resultShardings) const {
    LoopStructure s = structureOf(op);
    FlatSymbolRefAttr grid;
    for (const Sharding &sharding :
         llvm::concat<const Sharding>(operandShardings, resultShardings))
      if (sharding)
        grid = sharding.getGridAttr();
    // Upstream annotates every operand and result as a ranked tensor.
    auto ranked = [](Type t) { return isa<RankedTensorType>(t); };
    if (!grid || !llvm::all_of(op->getOperandTypes(), ranked) ||
        !llvm::all_of(op->getResultTypes(), ranked))
      return ShardingOption::makeEmpty();
    FailureOr<ShardingOption> option =
        ShardingOption(ShardingArray(s.iterators.size()), grid);
    if (!llvm::all_of(s.whole, [](bool w) { return w; })) {
      option = shard::detail::defaultGetShardingOption(op, operandShardings,
                                                       resultShardings);
      // Results that disagree with the operands are resharded by their
      // users: the operands decide.
      if (failed(option))
        option = shard::detail::defaultGetShardingOption(
            op, operandShardings,
            std::vector<Sharding>(resultShardings.size()));
      // Operands that split different loops over one mesh axis (a
      // sequence-split activation times a column-split weight): the
      // largest keeps its layout, the others are resharded to match; of
      // equal sizes a weight keeps it (resharded, it would be gathered on
      // every run and held whole on every rank, and an activation's
      // gather serves all the products that read it).
      if (failed(option)) {
        SmallVector<unsigned> order;
        for (unsigned i = 0; i < operandShardings.size(); ++i)
          if (operandShardings[i])
            order.push_back(i);
        auto elements = [&](unsigned i) {
          auto type = dyn_cast<ShapedType>(op->getOperand(i).getType());
          return type && type.hasStaticShape() ? type.getNumElements() : 0;
        };
        llvm::stable_sort(order, [&](unsigned a, unsigned b) {
          return std::make_pair(elements(a), isWeight(op->getOperand(a))) >
                 std::make_pair(elements(b), isWeight(op->getOperand(b)));
        });
        for (unsigned i : order) {
          std::vector<Sharding> alone(operandShardings.size());
          alone[i] = operandShardings[i];
          option = shard::detail::defaultGetShardingOption(
              op, alone, std::vector<Sharding>(resultShardings.size()));
          if (succeeded(option))
            break;
        }
      }
    }
    if (failed(option))
      return option;
    // Upstream marks the option empty when the last annotated operand is
    // replicated, even if others are split; any annotation is information.
    option->empty = false;
    option->grid = grid;
    option->shardingArray.resize(s.iterators.size());
    // Loops the op cannot split stay whole: their operands are gathered.
    for (auto [i, axes] : llvm::enumerate(option->shardingArray))
      if (s.whole[i])
        axes.clear();
    // So do loops that some dim they index cannot be divided along (a
    // reshape group's major dim smaller than the devices).
    auto gridOp = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, grid);
    if (!gridOp)
      return option;
    SmallVector<Type> types(op->getOperandTypes());
    llvm::append_range(types, op->getResultTypes());
    for (auto [type, map] : llvm::zip(types, s.maps))
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim)
          continue;
        SmallVector<shard::GridAxis> &axes =
            option->shardingArray[dim.getPosition()];
        int64_t devices = 1;
        for (shard::GridAxis axis : axes)
          devices *= gridOp.getShape()[axis];
        int64_t size = cast<RankedTensorType>(type).getDimSize(d);
        if (devices > 1 && !ShapedType::isDynamic(size) && size % devices)
          axes.clear();
      }
    return option;
  }

  LogicalResult partition(Operation *op, ArrayRef<Value> partitionedOperands,
                          ArrayRef<Sharding> operandShardings,
                          ArrayRef<Sharding> resultShardings,
                          IRMapping &partitionMap,
                          SymbolTableCollection &symbolTable,
                          OpBuilder &builder) const {
    // Values nobody split (ops on constants only, which propagation leaves
    // unannotated) compute whole, as written.
    auto whole = [](const Sharding &sharding) {
      return !sharding || shard::isFullReplication(sharding);
    };
    if (llvm::all_of(operandShardings, whole) &&
        llvm::all_of(resultShardings, whole)) {
      builder.clone(*op, partitionMap);
      return success();
    }
    for (auto [i, sharding] : llvm::enumerate(resultShardings))
      if (!sharding)
        return op->emitOpError("cannot compute on shards: result ")
               << i << " has no sharding while an operand is split";
    LoopStructure s = structureOf(op);
    ShardingArray loops = assignLoops(s, operandShardings, resultShardings);
    for (auto [i, axes] : llvm::enumerate(loops))
      if (i < s.whole.size() && s.whole[i] && !axes.empty())
        return op->emitOpError("cannot compute on shards split along loop ")
               << i << ", which it must see whole";
    if (auto reshape = dyn_cast<graph::ReshapeOp>(op)) {
      // The local result's type says its shape; the global shape operand
      // would contradict it.
      shard::GridOp grid = shard::getGrid(
          op, resultShardings.front().getGridAttr(), symbolTable);
      Type type =
          shard::shardType(reshape.getType(), grid, resultShardings.front());
      Value local = graph::ReshapeOp::create(
          builder, op->getLoc(), type, partitionedOperands.front(), Value());
      partitionMap.map(reshape.getResult(), local);
      return success();
    }
    if (auto slice = dyn_cast<graph::SliceOp>(op)) {
      // A dim taken whole ends at its local extent; the others keep their
      // bounds (they are whole on every process).
      auto local = cast<RankedTensorType>(partitionedOperands[0].getType());
      SmallVector<int64_t> ends(slice.getEnds());
      for (int64_t d = 0; d < local.getRank(); ++d)
        if (isWholeDim(slice, d))
          ends[d] = local.getDimSize(d);
      auto sliced = graph::SliceOp::create(
          builder, op->getLoc(), partitionedOperands[0], slice.getStartsAttr(),
          builder.getDenseI64ArrayAttr(ends), slice.getStepsAttr());
      shard::GridOp grid = shard::getGrid(
          op, resultShardings.front().getGridAttr(), symbolTable);
      Type expected =
          shard::shardType(slice.getType(), grid, resultShardings.front());
      if (sliced.getType() != expected)
        return op->emitOpError("cannot slice shards into a result of type ")
               << expected << ": found " << sliced.getType();
      partitionMap.map(slice.getResult(), sliced.getResult());
      return success();
    }
    if (auto gather = dyn_cast<graph::GatherOp>(op)) {
      // The gathered axis is the loop after the result's dims.
      int64_t axisLoop = rankOf(gather.getResult());
      if (!loops[axisLoop].empty())
        return partitionVocabularyGather(gather, loops[axisLoop],
                                         partitionedOperands, resultShardings,
                                         partitionMap, symbolTable, builder);
    }
    shard::partitionTriviallyShardableOperation(
        *op, partitionedOperands, operandShardings, resultShardings,
        partitionMap, symbolTable, builder);
    if (!shard::isAtLeastOneReductionIteratorSharded(s.iterators, loops))
      return success();
    // Each process computed a partial result over its part of the reduced
    // loops: combine them.
    SmallVector<shard::GridAxis> axes =
        shard::getReductionGridAxes(s.iterators, loops);
    ReductionKind kind = s.reductionKinds.empty() ? ReductionKind::Generic
                                                  : s.reductionKinds.front();
    if (kind == ReductionKind::Generic)
      return op->emitOpError("cannot combine partial results of a split "
                             "reduction of this kind");
    Sharding grid = resultShardings.front();
    for (Value result : op->getResults()) {
      Value local = partitionMap.lookup(result);
      Value reduced =
          shard::AllReduceOp::create(builder, op->getLoc(), local.getType(),
                                     grid.getGrid(), axes, local, kind);
      partitionMap.map(result, reduced);
    }
    return success();
  }
};

template <typename... Ops>
void attachAll(MLIRContext *ctx) {
  (Ops::template attachInterface<GraphOpShardingModel<Ops>>(*ctx), ...);
}
} // namespace

void mlir::ms::dist::registerShardingInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, graph::GraphDialect *) {
    attachAll<
#define GET_OP_LIST
#include "ms/Dialect/Graph/IR/GraphOps.cpp.inc"
        >(ctx);
  });
}
