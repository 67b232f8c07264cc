//===- ShardingInterfaceImpl.h - msgraph's sharding rules -------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_TRANSFORMS_SHARDINGINTERFACEIMPL_H
#define MS_DIALECT_DIST_TRANSFORMS_SHARDINGINTERFACEIMPL_H

namespace mlir {
class DialectRegistry;
namespace ms::dist {
/// Attaches upstream's `shard::ShardingInterface` to every msgraph op: ops
/// with a loop structure (elementwise with broadcasting, matmul,
/// reductions, softmax, layer_norm, transpose) shard along their loops; the
/// others compute on whole (replicated) values. docs/spec/msdist.md lists
/// the rules.
void registerShardingInterfaceExternalModels(DialectRegistry &registry);
} // namespace ms::dist
} // namespace mlir

#endif // MS_DIALECT_DIST_TRANSFORMS_SHARDINGINTERFACEIMPL_H
