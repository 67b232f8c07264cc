//===- Passes.h - msfusion passes -------------------------------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_FUSION_TRANSFORMS_PASSES_H
#define MS_DIALECT_FUSION_TRANSFORMS_PASSES_H

#include "ms/Dialect/Fusion/IR/FusionOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ms::fusion {

#define GEN_PASS_DECL
#include "ms/Dialect/Fusion/Transforms/Passes.h.inc"

/// Rewrites matmul/scale/mask/softmax/matmul chains into msgraph.attention.
void populateRaiseAttentionPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "ms/Dialect/Fusion/Transforms/Passes.h.inc"

} // namespace mlir::ms::fusion

#endif // MS_DIALECT_FUSION_TRANSFORMS_PASSES_H
