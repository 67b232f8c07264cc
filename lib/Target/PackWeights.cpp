//===- PackWeights.cpp - constant weights stored in a kernel's layout -----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/PackWeights.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::ms;

Value mlir::ms::relayoutWeight(OpBuilder &b, Location loc, Value weight,
                               RankedTensorType packedType,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> permutation) {
  ElementsAttr elements = weight.getDefiningOp<graph::ConstantOp>().getValue();
  std::optional<graph::StoredBytes> stored = graph::getStoredBytes(elements);
  if (!stored)
    return weight;
  if (!stored->splat)
    return graph::ConstantOp::create(
        b, loc,
        graph::RelayoutElementsAttr::get(b.getContext(), packedType, elements,
                                         shape, permutation));
  auto dense = cast<DenseElementsAttr>(elements);
  Type to = packedType.getElementType();
  if (to == dense.getElementType())
    return graph::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(packedType, dense.getSplatValue<Attribute>()));
  APFloat value = dense.getSplatValue<APFloat>();
  bool lost;
  value.convert(cast<FloatType>(to).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
  return graph::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(packedType, value));
}

DenseMap<Operation *, SmallVector<func::CallOp>>
KernelWeightPacker::getKernelCalls(ModuleOp module) {
  SymbolTable symbols(module);
  DenseMap<Operation *, SmallVector<func::CallOp>> calls;
  module.walk([&](func::CallOp call) {
    Operation *callee = symbols.lookup(call.getCallee());
    if (callee && callee->hasAttr("ms.kernel"))
      calls[callee].push_back(call);
  });
  return calls;
}

/// Erases `value`'s op and the ops that fed only it (a failed fold).
static void eraseUnused(Value value) {
  Operation *op = value.getDefiningOp();
  while (op && op->use_empty()) {
    Operation *input =
        op->getNumOperands() ? op->getOperand(0).getDefiningOp() : nullptr;
    op->erase();
    op = input;
  }
}

Value KernelWeightPacker::packArgument(
    func::FuncOp kernel, ArrayRef<func::CallOp> callers, BlockArgument arg,
    RankedTensorType packedType, WeightRelayout pack, WeightRelayout unpack) {
  unsigned index = arg.getArgNumber();
  DenseMap<Value, Value> fresh; // packed for this argument
  SmallVector<Value> packed;
  auto discard = [&] {
    for (auto [weight, value] : fresh)
      eraseUnused(value);
    return Value();
  };
  for (func::CallOp call : callers) {
    Value weight = call.getOperand(index);
    Value folded = packedOf.lookup(weight);
    if (!folded)
      folded = fresh.lookup(weight);
    if (!folded) {
      auto constant = weight.getDefiningOp<graph::ConstantOp>();
      if (!constant)
        return discard();
      OpBuilder b(constant);
      b.setInsertionPointAfter(constant);
      folded = pack(b, constant.getLoc(), weight);
      fresh[weight] = folded;
    }
    // Not dense elements: the weight stays as it is.
    if (!folded.getDefiningOp<graph::ConstantOp>() ||
        folded.getType() != packedType)
      return discard();
    packed.push_back(folded);
  }
  for (auto [i, value] : llvm::enumerate(packed))
    callers[i]->setOperand(index, value);
  packedOf.insert(fresh.begin(), fresh.end());
  arg.setType(packedType);
  SmallVector<Type> inputs(kernel.front().getArgumentTypes());
  kernel.setType(
      FunctionType::get(kernel.getContext(), inputs, kernel.getResultTypes()));
  OpBuilder b = OpBuilder::atBlockBegin(&kernel.front());
  return unpack(b, arg.getLoc(), arg);
}

void KernelWeightPacker::eraseReplaced() {
  for (auto [original, packed] : packedOf)
    if (original.use_empty())
      original.getDefiningOp()->erase();
  packedOf.clear();
}
