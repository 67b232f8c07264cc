//===- DeduplicateKernels.cpp - identical kernels compiled once -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The layers of a deep model outline into kernels that differ only in
// their names: the same ops on the same shapes, their weights arguments.
// This pass keeps one kernel of each such set and points every call at it,
// so that code generation, the slowest part of a compilation, runs once
// per distinct kernel instead of once per layer.
//
//===----------------------------------------------------------------------===//

#include "ms/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ms {
#define GEN_PASS_DEF_DEDUPLICATEKERNELSPASS
#include "ms/Transforms/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// A hash of what makes two kernels the same: the function type, the
/// attributes but the name, and every op of the body (name, attributes,
/// types), ignoring which values the ops use. Equal kernels hash equal.
static llvm::hash_code hashKernel(func::FuncOp kernel) {
  llvm::hash_code hash = hash_value(kernel.getFunctionType());
  for (NamedAttribute attr : kernel->getAttrs())
    if (attr.getName() != SymbolTable::getSymbolAttrName())
      hash = llvm::hash_combine(hash, attr.getName(), attr.getValue());
  kernel.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Whether `a` and `b` compute the same thing: the same type, attributes
/// but the name, and bodies equivalent up to value names and locations.
static bool isSameKernel(func::FuncOp a, func::FuncOp b) {
  if (a.getFunctionType() != b.getFunctionType())
    return false;
  auto otherAttrs = [](func::FuncOp f) {
    SmallVector<NamedAttribute> attrs;
    for (NamedAttribute attr : f->getAttrs())
      if (attr.getName() != SymbolTable::getSymbolAttrName())
        attrs.push_back(attr);
    return attrs;
  };
  if (otherAttrs(a) != otherAttrs(b))
    return false;
  return OperationEquivalence::isRegionEquivalentTo(
      &a.getBody(), &b.getBody(), OperationEquivalence::IgnoreLocations);
}

namespace {
struct DeduplicateKernelsPass final
    : ms::impl::DeduplicateKernelsPassBase<DeduplicateKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Kernels by hash, in module order: the first of each set stays.
    DenseMap<size_t, SmallVector<func::FuncOp>> kept;
    DenseMap<StringAttr, StringAttr> replacement;
    SmallVector<func::FuncOp> duplicates;
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr(kKernelAttrName) || kernel.isExternal())
        continue;
      SmallVector<func::FuncOp> &same =
          kept[static_cast<size_t>(hashKernel(kernel))];
      auto it = llvm::find_if(same, [&](func::FuncOp other) {
        return isSameKernel(other, kernel);
      });
      if (it == same.end()) {
        same.push_back(kernel);
        continue;
      }
      replacement[kernel.getSymNameAttr()] = it->getSymNameAttr();
      duplicates.push_back(kernel);
    }
    if (duplicates.empty())
      return;
    module.walk([&](func::CallOp call) {
      if (StringAttr to = replacement.lookup(call.getCalleeAttr().getAttr()))
        call.setCalleeAttr(FlatSymbolRefAttr::get(to));
    });
    for (func::FuncOp kernel : duplicates)
      kernel.erase();
  }
};
} // namespace
