//===- ExternDynamicShared.cpp - dynamic shared memory as PTX declares it -===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A launch's dynamic shared memory is PTX's `.extern .shared` array of no
// size; the GPU-to-NVVM lowering declares it as an internal zero-length
// global, which NVPTX prints as a one-byte static shared variable. Making the
// global external gives the array, aligned to kDynamicSharedAlignment (what
// the driver guarantees: a kernel needing more aligns its addresses at run
// time, as ms-cuda-tile-matmul does for TMA's swizzled boxes).
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CUDAEXTERNDYNAMICSHAREDPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
struct CUDAExternDynamicSharedPass final
    : mlir::ms::impl::CUDAExternDynamicSharedPassBase<
          CUDAExternDynamicSharedPass> {
  void runOnOperation() override {
    for (auto global : getOperation().getOps<LLVM::GlobalOp>()) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() !=
              static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared) ||
          !array || array.getNumElements() != 0 || global.getValueOrNull() ||
          !global.getInitializerRegion().empty())
        continue;
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(std::max<uint64_t>(global.getAlignment().value_or(1),
                                             kDynamicSharedAlignment));
    }
  }
};
} // namespace
