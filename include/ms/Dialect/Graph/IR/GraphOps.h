//===- GraphOps.h - msgraph operations --------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_IR_GRAPHOPS_H
#define MS_DIALECT_GRAPH_IR_GRAPHOPS_H

#include "ms/Dialect/Graph/IR/GraphDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::OpTrait::ms {
/// Marks ops the runtime executes itself (plan steps of kind "host"): kernel
/// outlining leaves them in the entry function.
template <typename ConcreteType>
class HostExecuted
    : public ::mlir::OpTrait::TraitBase<ConcreteType, HostExecuted> {};
} // namespace mlir::OpTrait::ms

#define GET_OP_CLASSES
#include "ms/Dialect/Graph/IR/GraphOps.h.inc"

namespace mlir::ms::graph {

/// Computes the numpy-style broadcast of two shapes, with dynamic dimensions
/// as ShapedType::kDynamic. Fails when two static dimensions differ and
/// neither is 1.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                ArrayRef<int64_t> rhs);

/// Returns true when two ranked tensor types have the same element type and
/// rank and every pair of dimensions is equal or has a dynamic member.
bool areCompatibleTensorTypes(Type lhs, Type rhs);

/// Returns the join of two compatible ranked tensor types: each dimension is
/// the static one where either is static. Returns null if incompatible.
RankedTensorType refineTensorType(Type current, Type inferred);

/// Normalizes `axis` (possibly negative) for a tensor of rank `rank`; fails
/// when it is outside [-rank, rank).
FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);

} // namespace mlir::ms::graph

#endif // MS_DIALECT_GRAPH_IR_GRAPHOPS_H
