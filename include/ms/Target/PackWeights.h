//===- PackWeights.h - constant weights stored in a kernel's layout -*- C++
//-*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// What the targets' weight-packing passes (ms-cpu-pack-weights,
// ms-npu-pack-weights) share: a constant weight named in another layout or
// type (`#msgraph.relayout`, computed by the module writer), and a kernel
// argument given that layout when every call passes such a constant.
//
//===----------------------------------------------------------------------===//

#ifndef MS_TARGET_PACKWEIGHTS_H
#define MS_TARGET_PACKWEIGHTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::ms {
/// Builds one layout of a weight from another (a constant folds).
using WeightRelayout = function_ref<Value(OpBuilder &, Location, Value)>;

/// `weight`, a constant, reshaped to `shape`, transposed by `permutation`
/// and stored as `packedType` (f32 rounded to bf16 or f16 if that is its
/// element type). The packed constant names the layout (msgraph.relayout)
/// and the module writer computes it: constants live as long as the
/// compiler's context, and a packed copy beside each weight would hold a
/// model's weights twice. A splat is packed here. `weight` itself if it
/// holds no dense or mapped elements.
Value relayoutWeight(OpBuilder &b, Location loc, Value weight,
                     RankedTensorType packedType, ArrayRef<int64_t> shape,
                     ArrayRef<int64_t> permutation);

/// Gives kernel arguments packed types, remembering the constants packed so
/// far (each is packed once, however many calls and kernels pass it).
class KernelWeightPacker {
public:
  /// The calls of each kernel of `module` (a `func.func` with `ms.kernel`).
  static DenseMap<Operation *, SmallVector<func::CallOp>>
  getKernelCalls(ModuleOp module);

  /// Gives kernel argument `arg` the type `packedType` if every caller
  /// passes a constant that `pack` folds into a constant of that type.
  /// Returns `unpack` of the argument, built at the kernel's start, for its
  /// user to read; null (nothing changed) if some weight does not fold.
  Value packArgument(func::FuncOp kernel, ArrayRef<func::CallOp> callers,
                     BlockArgument arg, RankedTensorType packedType,
                     WeightRelayout pack, WeightRelayout unpack);

  /// Erases the constants that only their packed copies replaced.
  void eraseReplaced();

private:
  /// The packed constant of each constant packed so far.
  DenseMap<Value, Value> packedOf;
};
/// Stores in `narrow` (f16 or bf16) each constant f32 weight that every
/// call of a kernel of `module` passes for an operand of an
/// `msgraph.matmul` (its only use, read as it is: no broadcast batch
/// dimension) and widens the kernel's argument back with `msgraph.cast`:
/// a target whose products multiply in `narrow` rounds the same way (to
/// nearest, ties to even) and reads half the bytes.
void packMatmulWeights(ModuleOp module, Type narrow);
} // namespace mlir::ms

#endif // MS_TARGET_PACKWEIGHTS_H
