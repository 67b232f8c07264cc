//===- Passes.h - msdist passes ---------------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_DIST_TRANSFORMS_PASSES_H
#define MS_DIALECT_DIST_TRANSFORMS_PASSES_H

#include "ms/Dialect/Dist/IR/DistOps.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ms::dist {
#define GEN_PASS_DECL
#include "ms/Dialect/Dist/Transforms/Passes.h.inc"

/// Rewrites `all_slice(all_reduce(x))` over the same mesh axes into
/// `reduce_scatter(x)`.
void populateCombineCollectivesPatterns(RewritePatternSet &patterns);

/// Returns whether the reshard from `source` to `target` is one step
/// upstream `shard-partition` performs correctly.
bool isSingleStepReshard(shard::Sharding source, shard::Sharding target);

#define GEN_PASS_REGISTRATION
#include "ms/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace mlir::ms::dist

#endif // MS_DIALECT_DIST_TRANSFORMS_PASSES_H
