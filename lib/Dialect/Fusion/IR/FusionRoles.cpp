//===- FusionRoles.cpp - what each msgraph op can be in a group -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Fusion/IR/FusionRoles.h"

#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::fusion;

/// Constants up to this many elements are cloned into the groups that use
/// them; larger ones stay weights.
static constexpr int64_t kMaxClonedConstantElements = 16;

FusionRole mlir::ms::fusion::getFusionRole(Operation *op) {
  if (op->hasTrait<OpTrait::ms::HostExecuted>())
    return FusionRole::Host;
  if (auto constant = dyn_cast<graph::ConstantOp>(op)) {
    auto value = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (value && (value.isSplat() ||
                  value.getNumElements() <= kMaxClonedConstantElements))
      return FusionRole::Cheap;
    return FusionRole::Opaque;
  }
  // Unary ops carry the Elementwise trait; broadcasting binary ops, where,
  // cast and expand read their operands at the (broadcast) result index.
  if (op->hasTrait<OpTrait::Elementwise>())
    return FusionRole::Elementwise;
  return llvm::TypeSwitch<Operation *, FusionRole>(op)
      .Case<graph::AddOp, graph::SubOp, graph::MulOp, graph::DivOp,
            graph::ModOp, graph::FModOp, graph::PowOp, graph::MaxOp,
            graph::MinOp, graph::PReluOp, graph::AndOp, graph::OrOp,
            graph::XorOp, graph::ShiftLeftOp, graph::ShiftRightOp,
            graph::EqualOp, graph::LessOp, graph::LessEqualOp,
            graph::GreaterOp, graph::GreaterEqualOp, graph::WhereOp,
            graph::CastOp, graph::ExpandOp>(
          [](Operation *) { return FusionRole::Elementwise; })
      .Case<graph::MatMulOp, graph::AttentionOp, graph::ConvOp,
            graph::ReduceSumOp,
            graph::ReduceMeanOp, graph::ReduceMaxOp, graph::ReduceMinOp,
            graph::ReduceProdOp, graph::ArgMaxOp, graph::ArgMinOp,
            graph::SoftmaxOp, graph::LogSoftmaxOp, graph::BatchNormOp,
            graph::LayerNormOp, graph::InstanceNormOp, graph::LRNOp,
            graph::MaxPoolOp, graph::AvgPoolOp>(
          [](Operation *) { return FusionRole::Root; })
      .Case<graph::ReshapeOp, graph::TransposeOp>(
          [](Operation *) { return FusionRole::Movement; })
      .Default([](Operation *) { return FusionRole::Opaque; });
}

bool mlir::ms::fusion::absorbsProducers(Operation *root) {
  return isa<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
             graph::ReduceMinOp, graph::ReduceProdOp, graph::ArgMaxOp,
             graph::ArgMinOp, graph::SoftmaxOp, graph::LogSoftmaxOp,
             graph::BatchNormOp, graph::LayerNormOp, graph::InstanceNormOp>(
      root);
}

bool mlir::ms::fusion::fusesAlone(Operation *root) {
  return isa<graph::SoftmaxOp, graph::LogSoftmaxOp, graph::LayerNormOp,
             graph::InstanceNormOp>(root);
}

bool mlir::ms::fusion::isRowReduction(Operation *op) {
  if (!isa<graph::ReduceSumOp, graph::ReduceMeanOp, graph::ReduceMaxOp,
           graph::ReduceMinOp>(op))
    return false;
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result || input.getRank() != result.getRank() ||
      input.getShape() == result.getShape())
    return false;
  int64_t kept = 0;
  while (kept < input.getRank() &&
         input.getDimSize(kept) == result.getDimSize(kept))
    ++kept;
  return llvm::all_of(result.getShape().drop_front(kept),
                      [](int64_t dim) { return dim == 1; });
}
