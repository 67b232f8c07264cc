//===- Materialize.cpp - msdist specs to shard annotations ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Dist/Transforms/Passes.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"

namespace mlir::ms::dist {
#define GEN_PASS_DEF_MATERIALIZEPASS
#include "ms/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace mlir::ms::dist

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::dist;

namespace {
/// Builds `shard` annotations for specs over one mesh.
class Annotator {
public:
  Annotator(MeshAttr mesh, OpBuilder &b) : mesh(mesh), b(b) {}

  /// Returns the sharding of `spec` (null: replicated) for a value of
  /// `type`, or emits an error at `loc` naming `what` and fails.
  FailureOr<Value> sharding(SpecAttr spec, RankedTensorType type, Location loc,
                            const Twine &what) {
    SmallVector<shard::GridAxesAttr> splitAxes;
    if (spec) {
      std::string error = checkSpec(spec, mesh, type.getRank());
      if (!error.empty())
        return emitError(loc) << what << ": " << error;
      for (auto [d, dim] : llvm::enumerate(spec.getDims())) {
        SmallVector<shard::GridAxis> axes;
        int64_t devices = 1;
        for (Attribute name : cast<ArrayAttr>(dim)) {
          int64_t axis = mesh.lookupAxis(cast<StringAttr>(name).getValue());
          axes.push_back(static_cast<shard::GridAxis>(axis));
          devices *= mesh.getShape()[axis];
        }
        if (type.getDimSize(d) % devices != 0)
          return emitError(loc)
                 << what << ": dim " << d << " (size " << type.getDimSize(d)
                 << ") is not divisible by the " << devices
                 << " devices of its mesh axes";
        splitAxes.push_back(shard::GridAxesAttr::get(b.getContext(), axes));
      }
    }
    return shard::ShardingOp::create(b, loc, kGridName, splitAxes).getResult();
  }

  /// Returns `value` annotated as laid out by `sharding` where it is
  /// defined (`annotateForUsers` false) or where it is used.
  Value annotate(Value value, Value sharding, bool annotateForUsers) {
    return shard::ShardOp::create(b, value.getLoc(), value, sharding,
                                  annotateForUsers)
        .getResult();
  }

  MeshAttr mesh;
  OpBuilder &b;
};

/// Returns the name of entry argument `i` for diagnostics.
std::string argumentName(func::FuncOp func, unsigned i) {
  if (auto name = func.getArgAttrOfType<StringAttr>(i, "ms.name"))
    return "input '" + name.str() + "'";
  return "argument " + std::to_string(i);
}

struct MaterializePass final
    : dist::impl::MaterializePassBase<MaterializePass> {
  using MaterializePassBase::MaterializePassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto mesh = module->getAttrOfType<MeshAttr>(kMeshAttrName);
    if (!mesh) {
      if (module->hasAttr(kMeshAttrName)) {
        module.emitError("expected ")
            << kMeshAttrName << " to be an #msdist.mesh attribute";
        return signalPassFailure();
      }
      return;
    }
    func::FuncOp func = findEntryFunction(module, entry);
    if (!func)
      return signalPassFailure();
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    if (!module.lookupSymbol(kGridName))
      shard::GridOp::create(b, module.getLoc(), kGridName,
                            mesh.getShape().asArrayRef());
    Annotator annotator(mesh, b);

    // Arguments: the caller's values are whole on every rank.
    Block &body = func.getBody().front();
    b.setInsertionPointToStart(&body);
    for (BlockArgument arg : body.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      unsigned i = arg.getArgNumber();
      auto spec = func.getArgAttrOfType<SpecAttr>(i, kSpecAttrName);
      func.removeArgAttr(i, kSpecAttrName);
      if (!type || type.getRank() == 0) {
        if (spec) {
          func.emitError() << argumentName(func, i)
                           << ": expected a ranked tensor of rank >= 1 to "
                              "shard, but found "
                           << arg.getType();
          return signalPassFailure();
        }
        continue;
      }
      if (failed(annotateValue(annotator, arg, spec, type, func.getLoc(),
                               argumentName(func, i))))
        return signalPassFailure();
    }

    // A constrained constant read only through transposes (ONNX Gemm's
    // transB weights) is transposed at compile time and constrained after,
    // so that no rank transposes its slice on every run.
    SmallVector<ConstraintOp> constraints;
    func.walk([&](ConstraintOp op) { constraints.push_back(op); });
    for (ConstraintOp op : constraints)
      foldTransposes(op);

    // Constraints: the value is laid out as the spec says.
    WalkResult walk = func.walk([&](ConstraintOp op) {
      b.setInsertionPoint(op);
      Value input = op.getInput();
      op.getResult().replaceAllUsesWith(input);
      // Entry arguments and constants stay whole where they are defined
      // (the caller and the module file hold them whole); their users
      // slice them.
      Value root = input;
      while (auto annotation = root.getDefiningOp<shard::ShardOp>())
        root = annotation.getSrc();
      bool whole = isa<BlockArgument>(root) ||
                   (root.getDefiningOp() &&
                    root.getDefiningOp()->hasTrait<OpTrait::ConstantLike>());
      FailureOr<Value> where =
          annotator.sharding(whole ? SpecAttr() : op.getSpec(), op.getType(),
                             op.getLoc(), "msdist.constraint");
      FailureOr<Value> users = annotator.sharding(
          op.getSpec(), op.getType(), op.getLoc(), "msdist.constraint");
      if (failed(where) || failed(users))
        return WalkResult::interrupt();
      Value defined = annotator.annotate(input, *where, false);
      Value used = annotator.annotate(defined, *users, true);
      input.replaceAllUsesExcept(used, defined.getDefiningOp());
      op.erase();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    // Results: whole on every rank unless a spec says otherwise.
    WalkResult results = func.walk([&](func::ReturnOp ret) {
      b.setInsertionPoint(ret);
      for (OpOperand &operand : ret->getOpOperands()) {
        unsigned j = operand.getOperandNumber();
        auto spec = func.getResultAttrOfType<SpecAttr>(j, kSpecAttrName);
        func.removeResultAttr(j, StringAttr::get(&getContext(), kSpecAttrName));
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type || type.getRank() == 0)
          continue;
        FailureOr<Value> sharding =
            annotator.sharding(spec, type, ret.getLoc(), "result " + Twine(j));
        if (failed(sharding))
          return WalkResult::interrupt();
        operand.set(annotator.annotate(operand.get(), *sharding, true));
      }
      return WalkResult::advance();
    });
    if (results.wasInterrupted())
      return signalPassFailure();
  }

  /// Replaces `transpose(constraint(C, spec))` by
  /// `constraint(transpose(C), permuted spec)` with the transpose folded,
  /// when every user of the constraint is a transpose of a constant.
  void foldTransposes(ConstraintOp op) {
    Operation *constant = op.getInput().getDefiningOp();
    if (!constant || !constant->hasTrait<OpTrait::ConstantLike>() ||
        op->use_empty() || !llvm::all_of(op->getUsers(), [](Operation *user) {
          return isa<graph::TransposeOp>(user);
        }))
      return;
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      auto transpose = cast<graph::TransposeOp>(user);
      OpBuilder b(transpose);
      auto moved = graph::TransposeOp::create(
          b, transpose.getLoc(), transpose.getType(), op.getInput(),
          transpose.getPermutationAttr());
      SmallVector<OpFoldResult> folded;
      auto value = failed(moved->fold(folded)) || folded.size() != 1
                       ? Attribute()
                       : dyn_cast_if_present<Attribute>(folded.front());
      if (!value || !isa<ElementsAttr>(value)) {
        moved.erase();
        continue;
      }
      moved.erase();
      Value whole = graph::ConstantOp::create(b, constant->getLoc(),
                                              cast<ElementsAttr>(value));
      // Result dim i is input dim perm[i].
      ArrayRef<Attribute> dims = op.getSpec().getDims().getValue();
      SmallVector<Attribute> permuted;
      for (int64_t from : transpose.getPermutation())
        permuted.push_back(from < static_cast<int64_t>(dims.size())
                               ? dims[from]
                               : b.getArrayAttr({}));
      while (!permuted.empty() && cast<ArrayAttr>(permuted.back()).empty())
        permuted.pop_back();
      auto spec = SpecAttr::get(op.getContext(), b.getArrayAttr(permuted));
      transpose.replaceAllUsesWith(
          ConstraintOp::create(b, op.getLoc(), whole, spec).getResult());
      transpose.erase();
    }
    if (op->use_empty())
      op.erase();
    if (constant->use_empty())
      constant->erase();
  }

  /// Annotates `value` (defined whole) for its users with `spec`.
  LogicalResult annotateValue(Annotator &annotator, Value value, SpecAttr spec,
                              RankedTensorType type, Location loc,
                              const std::string &what) {
    FailureOr<Value> whole = annotator.sharding(nullptr, type, loc, what);
    FailureOr<Value> used = annotator.sharding(spec, type, loc, what);
    if (failed(whole) || failed(used))
      return failure();
    Value defined = annotator.annotate(value, *whole, false);
    Value forUsers = annotator.annotate(defined, *used, true);
    value.replaceAllUsesExcept(forUsers, defined.getDefiningOp());
    return success();
  }
};
} // namespace
