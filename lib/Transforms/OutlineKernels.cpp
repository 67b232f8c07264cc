//===- OutlineKernels.cpp - one kernel per msgraph op (O0) ----------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "ms/Dialect/Fusion/IR/FusionOps.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ms {
#define GEN_PASS_DEF_OUTLINEKERNELSPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Returns the entry function as findEntryFunction describes it, without
/// the single-block check.
static func::FuncOp lookupEntryFunction(ModuleOp module, StringRef name) {
  if (!name.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func)
      module.emitError("expected an entry function named '")
          << name << "', but found none";
    return func;
  }
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  func::FuncOp found;
  int publicCount = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPublic() && !func.isExternal() &&
        !func->hasAttr(kKernelAttrName)) {
      found = func;
      ++publicCount;
    }
  }
  if (publicCount != 1) {
    module.emitError("expected @main or exactly one public function as the "
                     "entry, but found ")
        << publicCount << " public functions";
    return nullptr;
  }
  return found;
}

func::FuncOp mlir::ms::findEntryFunction(ModuleOp module, StringRef name) {
  func::FuncOp func = lookupEntryFunction(module, name);
  if (func && !func.getBody().hasOneBlock()) {
    func.emitError("expected a single-block entry function");
    return nullptr;
  }
  return func;
}

/// True for a statically shaped tensor type with no elements.
static bool isEmptyTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() && tensor.getNumElements() == 0;
}

/// Distinct member names beyond this many are left out of a fused kernel's
/// name (its `msfusion.ops` attribute lists them all).
static constexpr size_t kMaxNamedOps = 4;

/// Moves the body of `group` into a new kernel function `fused_<index>_<op
/// names>` and replaces the group by a call.
static void outlineGroup(fusion::GroupOp group, int64_t index,
                         OpBuilder &moduleBuilder, SymbolTable &symbols) {
  MLIRContext *context = group.getContext();
  SmallVector<StringRef> names = group.getMemberOpNames();
  std::string name = "fused_" + std::to_string(index);
  for (StringRef op : ArrayRef(names).take_front(kMaxNamedOps))
    name += "_" + op.str();
  auto type = FunctionType::get(context, group.getInputs().getTypes(),
                                group.getResultTypes());
  auto kernel =
      func::FuncOp::create(moduleBuilder, group.getLoc(), name, type);
  kernel->setAttr(kKernelAttrName, UnitAttr::get(context));
  SmallVector<Attribute> qualified;
  for (StringRef op : names)
    qualified.push_back(StringAttr::get(
        context, graph::GraphDialect::getDialectNamespace() + "." + op));
  kernel->setAttr(kFusedOpsAttrName, ArrayAttr::get(context, qualified));
  symbols.insert(kernel);
  kernel.getBody().takeBody(group.getBody());
  fusion::YieldOp yield = cast<fusion::YieldOp>(
      kernel.getBody().front().getTerminator());
  OpBuilder b(yield);
  func::ReturnOp::create(b, yield.getLoc(), yield.getValues());
  yield.erase();
  OpBuilder callBuilder(group);
  auto call =
      func::CallOp::create(callBuilder, group.getLoc(), kernel, group.getInputs());
  group.replaceAllUsesWith(call.getResults());
  group.erase();
}

namespace {
struct OutlineKernelsPass final
    : ms::impl::OutlineKernelsPassBase<OutlineKernelsPass> {
  using OutlineKernelsPassBase::OutlineKernelsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entryFunc = findEntryFunction(module, entry);
    if (!entryFunc)
      return signalPassFailure();
    auto *dialect = getContext().getLoadedDialect<graph::GraphDialect>();
    SymbolTable symbols(module);
    OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
    int64_t index = 0;
    for (Operation &op :
         llvm::make_early_inc_range(entryFunc.getBody().front())) {
      if (auto group = dyn_cast<fusion::GroupOp>(op)) {
        outlineGroup(group, index++, moduleBuilder, symbols);
        continue;
      }
      // Constants become weights; the runtime executes host ops itself.
      if (op.getDialect() != dialect || op.hasTrait<OpTrait::ConstantLike>() ||
          op.hasTrait<OpTrait::ms::HostExecuted>())
        continue;
      // An op whose results hold no elements computes nothing: its results
      // become empty constants instead of a kernel.
      if (llvm::all_of(op.getResultTypes(), isEmptyTensor)) {
        OpBuilder b(&op);
        for (Value result : op.getResults()) {
          auto type = cast<RankedTensorType>(result.getType());
          result.replaceAllUsesWith(graph::ConstantOp::create(
              b, op.getLoc(), DenseElementsAttr::get(type, ArrayRef<Attribute>{})));
        }
        op.erase();
        continue;
      }
      // Empty operands carry no data: the kernel makes its own instead of
      // taking a zero-sized buffer (which no calling convention passes as a
      // plain pointer).
      SmallVector<Value> passed;
      for (Value operand : op.getOperands())
        if (!isEmptyTensor(operand.getType()))
          passed.push_back(operand);
      auto type = FunctionType::get(&getContext(), ValueRange(passed).getTypes(),
                                    op.getResultTypes());
      auto kernel = func::FuncOp::create(moduleBuilder, op.getLoc(),
                                         "kernel_" + std::to_string(index++),
                                         type);
      kernel->setAttr(kKernelAttrName, UnitAttr::get(&getContext()));
      symbols.insert(kernel);
      Block *body = kernel.addEntryBlock();
      OpBuilder b = OpBuilder::atBlockEnd(body);
      IRMapping mapping;
      unsigned next = 0;
      for (Value operand : op.getOperands()) {
        if (!isEmptyTensor(operand.getType())) {
          mapping.map(operand, body->getArgument(next++));
          continue;
        }
        auto tensorType = cast<RankedTensorType>(operand.getType());
        mapping.map(operand,
                    graph::ConstantOp::create(
                        b, op.getLoc(),
                        DenseElementsAttr::get(tensorType, ArrayRef<Attribute>{})));
      }
      Operation *clone = b.clone(op, mapping);
      func::ReturnOp::create(b, op.getLoc(), clone->getResults());
      OpBuilder callBuilder(&op);
      auto call = func::CallOp::create(callBuilder, op.getLoc(), kernel, passed);
      op.replaceAllUsesWith(call.getResults());
      op.erase();
    }
  }
};
} // namespace
