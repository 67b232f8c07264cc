//===- ExecutableVariants.cpp - one copy of the kernels per CPU -----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A module compiled for several CPUs (--target-cpu=x86-64-v4,x86-64-v3)
// carries the kernels once per CPU; the runtime loads the first copy the
// host can run. This pass makes the copies before code generation, which
// reads each copy's CPU from its `variant`.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/IR/SymbolTable.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUEXECUTABLEVARIANTSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
struct CPUExecutableVariantsPass final
    : ms::impl::CPUExecutableVariantsPassBase<CPUExecutableVariantsPass> {
  using CPUExecutableVariantsPassBase::CPUExecutableVariantsPassBase;

  void runOnOperation() override {
    if (targetCpus.size() < 2)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto executable :
         llvm::to_vector(module.getOps<exec::ExecutableOp>())) {
      if (executable.getTarget() != "cpu" || executable.getVariant())
        continue;
      OpBuilder b(executable);
      b.setInsertionPointAfter(executable);
      for (unsigned i = 1; i < targetCpus.size(); ++i) {
        auto copy = cast<exec::ExecutableOp>(b.clone(*executable));
        copy.setVariant(targetCpus[i]);
        copy->setAttr(kVariantOfAttrName,
                      FlatSymbolRefAttr::get(executable.getSymNameAttr()));
        copy.setSymName((executable.getSymName() + "_" + Twine(i)).str());
        // Renamed further if the name is taken.
        symbols.insert(copy, Block::iterator(copy));
        b.setInsertionPointAfter(copy);
      }
      executable.setVariant(targetCpus.front());
    }
  }
};
} // namespace
