//===- PackWeights.cpp - constant matmul weights in the tensor cores' type ===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// With --precision bf16 or f16 the tensor cores multiply halves: a matmul's
// constant f32 weight is stored in that type at compile time, rounded as
// ms-cuda-tile-matmul rounds what it stages, and the kernel widens its
// argument back; ms-cuda-tile-matmul then reads the halves themselves.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/PackWeights.h"
#include "ms/Target/CUDA/CUDATarget.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDAPACKWEIGHTSPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
struct CUDAPackWeightsPass final
    : mlir::ms::impl::CUDAPackWeightsPassBase<CUDAPackWeightsPass> {
  using CUDAPackWeightsPassBase::CUDAPackWeightsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(&getContext());
    if (precision == "f32" || precision == "tf32")
      return;
    Type narrow = precision == "f16"    ? Type(builder.getF16Type())
                  : precision == "bf16" ? Type(builder.getBF16Type())
                                        : Type();
    if (!narrow) {
      module.emitError("expected precision f32, tf32, bf16 or f16, found '")
          << precision << "'";
      return signalPassFailure();
    }
    packMatmulWeights(module, narrow);
  }
};
} // namespace
