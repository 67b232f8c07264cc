//===- ExpandArith.cpp - arith ops LLVM has no instruction for ------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Upstream `arith-expand` also expands min and max into compares and
// selects; LLVM's loop vectorizer recognizes reductions of its min and max
// intrinsics, not those chains, so this pass leaves min and max to
// arith-to-llvm.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUEXPANDARITHPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
struct CPUExpandArithPass final
    : ms::impl::CPUExpandArithPassBase<CPUExpandArithPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateExpandBFloat16Patterns(patterns);
    arith::populateExpandScalingExtTruncPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
