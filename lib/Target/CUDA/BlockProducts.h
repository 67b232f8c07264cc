//===- BlockProducts.h - block products on tensor cores ---------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_LIB_TARGET_CUDA_BLOCKPRODUCTS_H
#define MS_LIB_TARGET_CUDA_BLOCKPRODUCTS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::ms {
/// Rewrites `op`, a product of a tile inside a tiled loop (`scf.forall`)
/// that ms-cuda-map-to-gpu runs as a block program, into a step of 256
/// iterations (the block's threads) whose warps compute the output on
/// tensor cores (mma.sync m16n8k16, f32 sums), where its operands are
/// halves of one type (f16 or bf16), or f32 that `precision` (null: f32)
/// rounds to one, or attention's probabilities (`kProbabilitiesAttrName`)
/// with the other operand's half type; returns whether it did (`op` is then
/// erased).
bool rewriteBlockProductOnTensorCores(linalg::GenericOp op, Type precision);
} // namespace mlir::ms

#endif // MS_LIB_TARGET_CUDA_BLOCKPRODUCTS_H
