//===- InferShapes.cpp - refine dynamic dimensions ------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Dialect/Graph/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace mlir::ms::graph {
#define GEN_PASS_DEF_INFERSHAPESPASS
#include "ms/Dialect/Graph/Transforms/Passes.h.inc"
} // namespace mlir::ms::graph

using namespace mlir;
using namespace mlir::ms::graph;

/// Returns the static shape held by a constant 1-D i64 `shape` operand, or
/// nothing when it is not a constant or holds a non-positive entry.
static std::optional<SmallVector<int64_t>> getConstantShape(Value shape) {
  DenseIntElementsAttr attr;
  if (!shape || !matchPattern(shape, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (const APInt &v : attr.getValues<APInt>()) {
    if (v.isNegative())
      return std::nullopt;
    dims.push_back(v.getSExtValue());
  }
  return dims;
}

/// Returns the result types `op` would have given its current operands, or
/// an empty vector when nothing can be said.
static SmallVector<Type> inferResultTypes(Operation *op) {
  SmallVector<Type> types;
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    if (failed(infer.inferReturnTypes(
            op->getContext(), op->getLoc(), op->getOperands(),
            op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
            op->getRegions(), types)))
      types.clear();
    return types;
  }
  if (op->hasTrait<OpTrait::SameOperandsAndResultType>()) {
    types.assign(op->getNumResults(), op->getOperand(0).getType());
    return types;
  }
  auto withShape = [&](ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if ((int64_t)shape.size() == type.getRank())
      types.push_back(RankedTensorType::get(shape, type.getElementType()));
  };
  auto sameShapeAsInput = [&](Value input) {
    withShape(cast<RankedTensorType>(input.getType()).getShape());
  };
  TypeSwitch<Operation *>(op)
      .Case<ReshapeOp, ExpandOp>([&](auto op) {
        if (auto shape = getConstantShape(op.getShape()))
          withShape(*shape);
      })
      .Case<ConstantOfShapeOp>([&](ConstantOfShapeOp op) {
        if (auto shape = getConstantShape(op.getShape()))
          withShape(*shape);
      })
      .Case<CastOp>([&](CastOp op) { sameShapeAsInput(op.getInput()); })
      .Case<RangeOp>([&](RangeOp op) {
        DenseElementsAttr start, limit, delta;
        if (!matchPattern(op.getStart(), m_Constant(&start)) ||
            !matchPattern(op.getLimit(), m_Constant(&limit)) ||
            !matchPattern(op.getDelta(), m_Constant(&delta)))
          return;
        auto scalar = [](DenseElementsAttr attr) {
          if (isa<FloatType>(attr.getElementType()))
            return attr.getSplatValue<APFloat>().convertToDouble();
          return (double)attr.getSplatValue<APInt>().getSExtValue();
        };
        double d = scalar(delta);
        if (d == 0)
          return;
        double n = std::ceil((scalar(limit) - scalar(start)) / d);
        withShape({std::max<int64_t>((int64_t)n, 0)});
      })
      .Case<BatchNormOp, LayerNormOp, InstanceNormOp>(
          [&](auto op) { sameShapeAsInput(op.getInput()); })
      .Case<ResizeOp>([&](ResizeOp op) {
        auto input = cast<RankedTensorType>(op.getInput().getType());
        SmallVector<int64_t> shape;
        for (auto [dim, scale] :
             llvm::zip_equal(input.getShape(), op.getScales()))
          shape.push_back(ShapedType::isDynamic(dim)
                              ? dim
                              : (int64_t)std::floor(dim * scale));
        withShape(shape);
      });
  return types;
}

namespace {
struct InferShapesPass final : ms::graph::impl::InferShapesPassBase<InferShapesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto *dialect = getContext().getLoadedDialect<GraphDialect>();

    func.walk([&](Operation *op) {
      if (op->getDialect() != dialect || op->getNumResults() == 0)
        return;
      SmallVector<Type> inferred = inferResultTypes(op);
      if (inferred.size() != op->getNumResults())
        return;
      for (auto [result, type] : llvm::zip_equal(op->getResults(), inferred)) {
        RankedTensorType refined = refineTensorType(result.getType(), type);
        if (!refined || refined == result.getType())
          continue;
        refine(result, refined, dialect);
        ++numRefined;
      }
    });

    // Update the signature when the function has no callers to keep in
    // step; otherwise the returns keep the declared types through casts.
    Block &body = func.getBody().front();
    auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!ret)
      return;
    if (func.isPublic() || !SymbolTable::symbolKnownUseEmpty(
                               func, func->getParentOfType<ModuleOp>())) {
      // Public functions keep the signature the caller asked for.
      insertCastsForReturn(ret, func.getResultTypes());
      return;
    }
    func.setType(FunctionType::get(&getContext(), func.getArgumentTypes(),
                                   ret.getOperandTypes()));
  }

  /// Sets `value` to `type` and casts back for users outside msgraph.
  void refine(Value value, RankedTensorType type, Dialect *dialect) {
    Type old = value.getType();
    value.setType(type);
    for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
      Operation *user = use.getOwner();
      if (user->getDialect() == dialect || isa<func::ReturnOp>(user))
        continue;
      OpBuilder builder(user);
      Value cast =
          tensor::CastOp::create(builder, user->getLoc(), old, value);
      use.set(cast);
    }
  }

  /// Casts returned values back to the declared result types where shape
  /// inference made them more static.
  void insertCastsForReturn(func::ReturnOp ret, TypeRange declared) {
    OpBuilder builder(ret);
    for (auto [operand, type] : llvm::zip_equal(ret->getOpOperands(), declared))
      if (operand.get().getType() != type)
        operand.set(tensor::CastOp::create(builder, ret.getLoc(), type,
                                           operand.get()));
  }
};
} // namespace
