//===- FusionRoles.h - what each msgraph op can be in a group ---*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The one table of how msgraph ops take part in fusion: the grouping pass
// and the group verifier read it, and a new op gets its role here
// (docs/AddingAnOp.md).
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_FUSION_IR_FUSIONROLES_H
#define MS_DIALECT_FUSION_IR_FUSIONROLES_H

#include "mlir/IR/Operation.h"

namespace mlir::ms::fusion {

/// How an op takes part in a fused group.
enum class FusionRole {
  /// A small constant: cloned into every group that uses it.
  Cheap,
  /// One result element from the operand elements at the same (broadcast)
  /// index: joins a root's group or a chain.
  Elementwise,
  /// A heavy op (contraction, convolution, reduction, softmax,
  /// normalization, pooling): at most one per group; elementwise producers
  /// and consumers gather around it.
  Root,
  /// A reshape or transpose: joins the group that computes its operand,
  /// which then writes its result in the new layout (no copy kernel).
  Movement,
  /// Computed in a kernel of its own, as at O0 (data movement whose
  /// lowering reads its operands at computed indices, big constants).
  Opaque,
  /// Executed by the runtime on the host: never in a group.
  Host,
};

/// Returns the fusion role of `op`, an msgraph op (Opaque for any other).
FusionRole getFusionRole(Operation *op);

/// True for a Root whose main operand may absorb its elementwise producers
/// (reductions, softmax, normalizations): the producer is recomputed per
/// element the root reads, which for these ops is once.
bool absorbsProducers(Operation *root);

/// True for a Root whose lowering is several loop nests over the same rows
/// (softmax, log-softmax, layer and instance normalization): alone, it is
/// still a group, so that its loop nests fuse into one kernel tiled by rows
/// (a GPT-2 block's first LayerNorm took 145 us as eight loop nests with
/// three full-size intermediates, ONNX Runtime 26 us).
bool fusesAlone(Operation *root);

/// True for a sum, mean, maximum or minimum that reduces trailing axes of
/// its operand to 1 and keeps them: each row formed by those axes gives one
/// result element. Row reductions over the same rows may share a group
/// (norms and softmax written as ops: a mean then a variance, a maximum
/// then a sum).
bool isRowReduction(Operation *op);

} // namespace mlir::ms::fusion

#endif // MS_DIALECT_FUSION_IR_FUSIONROLES_H
