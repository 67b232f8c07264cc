//===- ShardingInterfaceImpl.h - msgraph's sharding rules -------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_TRANSFORMS_SHARDINGINTERFACEIMPL_H
#define MS_DIALECT_DIST_TRANSFORMS_SHARDINGINTERFACEIMPL_H

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

#include <optional>

namespace mlir {
class DialectRegistry;
namespace ms::dist {
/// An msgraph op as a loop nest: the facts behind its sharding rule, also
/// read by multi-copy splitting.
struct LoopStructure {
  /// One per loop.
  SmallVector<utils::IteratorType> iterators;
  /// One per operand, then one per result. A constant index (a broadcast
  /// dim, a reshape group's minor dims) reads one position: never split.
  SmallVector<AffineMap> maps;
  /// One per reduction loop, in loop order.
  SmallVector<shard::ReductionKind> reductionKinds;
  /// Loops that must stay whole (a softmax's axis, a mean's dims).
  SmallVector<bool> whole;
};

/// Returns `op`'s loop structure, or nullopt for ops without one (they
/// compute on whole values) and for ops with dynamic shapes.
std::optional<LoopStructure> getLoopStructure(Operation *op);

/// Attaches upstream's `shard::ShardingInterface` to every msgraph op: ops
/// with a loop structure (elementwise with broadcasting, matmul,
/// reductions, softmax, layer_norm, transpose, reshape, attention, conv,
/// gather, concat, slice) shard along their loops; the
/// others compute on whole (replicated) values. docs/spec/msdist.md lists
/// the rules.
void registerShardingInterfaceExternalModels(DialectRegistry &registry);
} // namespace ms::dist
} // namespace mlir

#endif // MS_DIALECT_DIST_TRANSFORMS_SHARDINGINTERFACEIMPL_H
