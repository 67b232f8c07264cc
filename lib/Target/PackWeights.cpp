//===- PackWeights.cpp - constant weights stored in a kernel's layout -----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/PackWeights.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/SymbolTable.h"

#include <numeric>

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

/// Whether the contraction of `matmul` reads its operand `index` as it is
/// (a matrix, or a batch of them with no broadcast batch dim: the others
/// are reshaped first, and a reshaped weight's widening would run as a step
/// of its own).
static bool isReadAsIs(graph::MatMulOp matmul, unsigned index) {
  auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return false;
  ArrayRef<int64_t> lb = lhs.getShape().drop_back(2),
                    rb = rhs.getShape().drop_back(2);
  FailureOr<SmallVector<int64_t>> batch = graph::broadcastShapes(lb, rb);
  if (failed(batch))
    return false;
  ArrayRef<int64_t> own = index == 0 ? lb : rb;
  int64_t offset = int64_t(batch->size()) - int64_t(own.size());
  for (auto [i, size] : llvm::enumerate(own))
    if (size == 1 && (*batch)[i + offset] != 1)
      return false;
  return true;
}

void mlir::ms::packMatmulWeights(ModuleOp module, Type narrow) {
  DenseMap<Operation *, SmallVector<func::CallOp>> calls =
      KernelWeightPacker::getKernelCalls(module);
  KernelWeightPacker packer;
  for (auto kernel : module.getOps<func::FuncOp>()) {
    auto callers = calls.find(kernel);
    if (kernel.isExternal() || callers == calls.end())
      continue;
    kernel.walk([&](graph::MatMulOp matmul) {
      for (OpOperand &operand : matmul->getOpOperands()) {
        auto arg = dyn_cast<BlockArgument>(operand.get());
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!arg || arg.getOwner() != &kernel.front() || !arg.hasOneUse() ||
            !type || !type.hasStaticShape() || !type.getElementType().isF32() ||
            type.getNumElements() == 0 ||
            !isReadAsIs(matmul, operand.getOperandNumber()))
          continue;
        auto packedType = RankedTensorType::get(type.getShape(), narrow);
        SmallVector<int64_t> dims(type.getRank());
        std::iota(dims.begin(), dims.end(), 0);
        Value widened = packer.packArgument(
            kernel, callers->second, arg, packedType,
            [&](OpBuilder &b, Location loc, Value weight) {
              return relayoutWeight(b, loc, weight, packedType, type.getShape(),
                                    dims);
            },
            [&](OpBuilder &b, Location loc, Value packed) -> Value {
              return graph::CastOp::create(b, loc, type, packed);
            });
        if (widened)
          operand.set(widened);
      }
    });
  }
  packer.eraseReplaced();
}
