//===- FusionOps.cpp - msfusion operations --------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The verifier checks the constraints of docs/spec/msfusion.md; each
// diagnostic names its constraint.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Fusion/IR/FusionOps.h"

#include "ms/Dialect/Fusion/IR/FusionRoles.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::fusion;

#define GET_OP_CLASSES
#include "ms/Dialect/Fusion/IR/FusionOps.cpp.inc"

/// True for a statically shaped tensor type with no elements.
static bool hasNoElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 0;
}

YieldOp GroupOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

Operation *GroupOp::getRoot() {
  for (Operation &op : getBody().front())
    if (getFusionRole(&op) == FusionRole::Root)
      return &op;
  return nullptr;
}

SmallVector<StringRef> GroupOp::getMemberOpNames() {
  SmallVector<StringRef> names;
  for (Operation &op : getBody().front()) {
    if (op.hasTrait<OpTrait::IsTerminator>() ||
        op.hasTrait<OpTrait::ConstantLike>())
      continue;
    StringRef name = op.getName().stripDialect();
    if (!llvm::is_contained(names, name))
      names.push_back(name);
  }
  return names;
}

LogicalResult GroupOp::verifyRegions() {
  Block &body = getBody().front();
  // (C1) the block arguments are the inputs.
  if (body.getArgumentTypes() != getInputs().getTypes())
    return emitOpError("expected the body's arguments to have the inputs' "
                       "types (group_c1), but found ")
           << body.getNumArguments() << " arguments for "
           << getInputs().size() << " inputs";
  // (C2) the terminator yields the results.
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield)
    return emitOpError("expected the body to end in msfusion.yield "
                       "(group_c2)");
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("expected msfusion.yield to yield the results' types "
                       "(group_c2), but found ")
           << yield.getValues().size() << " values for "
           << getNumResults() << " results";
  if (getNumResults() == 0)
    return emitOpError("expected at least one result (group_c2)");
  // (C3) each result is computed in the body, once.
  SmallPtrSet<Value, 4> yielded;
  for (Value value : yield.getValues()) {
    if (!value.getDefiningOp())
      return emitOpError("expected each result to be computed in the body, "
                         "but a block argument is yielded (group_c3)");
    if (!yielded.insert(value).second)
      return emitOpError("expected each value to be yielded once "
                         "(group_c3)");
  }
  // (C4) members are side-effect-free msgraph ops run on the device.
  auto *graphDialect = getContext()->getLoadedDialect<graph::GraphDialect>();
  int computing = 0, roots = 0;
  SmallVector<Operation *> rowReductions;
  for (Operation &op : body.without_terminator()) {
    if (op.getDialect() != graphDialect)
      return op.emitOpError("expected only msgraph ops in an msfusion.group "
                            "(group_c4)");
    FusionRole role = getFusionRole(&op);
    if (role == FusionRole::Host || !isMemoryEffectFree(&op))
      return op.emitOpError("expected no host-executed or side-effecting op "
                            "in an msfusion.group (group_c4)");
    if (role != FusionRole::Cheap && !op.hasTrait<OpTrait::ConstantLike>())
      ++computing;
    if (role == FusionRole::Root) {
      ++roots;
      if (isRowReduction(&op))
        rowReductions.push_back(&op);
    }
  }
  // (C5) something to compute.
  if (computing == 0)
    return emitOpError("expected at least one op other than a constant "
                       "(group_c5)");
  // (C6) one heavy op at most, or row reductions of the same rows.
  auto sameRows = [&](Operation *op) {
    Operation *first = rowReductions.front();
    return op->getOperand(0).getType() == first->getOperand(0).getType() &&
           op->getResult(0).getType() == first->getResult(0).getType();
  };
  if (roots > 1 && (roots != static_cast<int>(rowReductions.size()) ||
                    !llvm::all_of(rowReductions, sameRows)))
    return emitOpError("expected at most one root op, or row reductions "
                       "of one shape, but found ")
           << roots << " (group_c6)";
  // (C7) no empty tensors at the boundary: the kernel ABI has no zero-size
  // buffer.
  for (Type type : llvm::concat<const Type>(getInputs().getTypes(),
                                            getResultTypes()))
    if (hasNoElements(type) || !cast<RankedTensorType>(type).hasStaticShape())
      return emitOpError("expected statically shaped inputs and results with "
                         "elements (group_c7), but found ")
             << type;
  return success();
}
