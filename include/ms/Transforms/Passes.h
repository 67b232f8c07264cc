//===- Passes.h - ms program-level passes -----------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TRANSFORMS_PASSES_H
#define MS_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ms {

#define GEN_PASS_DECL
#include "ms/Transforms/Passes.h.inc"

/// The attribute that marks outlined kernel functions.
inline constexpr char kKernelAttrName[] = "ms.kernel";

/// The attribute that lists the ops a fused kernel computes (qualified
/// names, program order).
inline constexpr char kFusedOpsAttrName[] = "msfusion.ops";

/// Returns the entry function of `module`: `name` if given, else @main, else
/// the only public function. Emits an error and returns null otherwise, or
/// when the function has other than one block.
func::FuncOp findEntryFunction(ModuleOp module, StringRef name);

/// Reorders the loops of `op` (a named op is generalized first): loop `i`
/// of the result is loop `permutation[i]` of `op`.
FailureOr<linalg::GenericOp>
interchangeLinalgLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                       ArrayRef<unsigned> permutation);

#define GEN_PASS_REGISTRATION
#include "ms/Transforms/Passes.h.inc"

} // namespace mlir::ms

#endif // MS_TRANSFORMS_PASSES_H
