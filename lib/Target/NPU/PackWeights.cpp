//===- PackWeights.cpp - constant matmul weights in the cube's type -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// When the cube multiplies fp16 or bf16, a matmul's constant f32 weight is
// stored in that type at compile time: MTE2 then reads half the bytes (GEMMs
// are bound by MTE2 reading f32) and converts nothing. The module writer
// rounds as MTE2 does (to nearest, ties to even), so the results are the
// same bit for bit. The kernel widens its argument back with msgraph.cast;
// ms-npu-lower-kernels folds that widening into the contraction's loads.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/PackWeights.h"
#include "ms/Target/NPU/NPUTarget.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"

namespace mlir::ms {
#define GEN_PASS_DEF_NPUPACKWEIGHTSPASS
#include "ms/Target/NPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
struct NPUPackWeightsPass final
    : mlir::ms::impl::NPUPackWeightsPassBase<NPUPackWeightsPass> {
  using NPUPackWeightsPassBase::NPUPackWeightsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    Type narrow = precision == "f16"    ? Type(builder.getF16Type())
                  : precision == "bf16" ? Type(builder.getBF16Type())
                                        : Type();
    if (!narrow) {
      if (precision != "f32") {
        module.emitError("expected precision f16, bf16 or f32, found '")
            << precision << "'";
        signalPassFailure();
      }
      return;
    }
    packMatmulWeights(module, narrow);
  }
};
} // namespace
