//===- PackConvWeights.cpp - constant conv weights in the kernels' layout
//--===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The contraction kernel vectorizes a convolution along its output
// positions, which fills its register blocks poorly when there are few of
// them: ResNet's 7x7 outputs (49 positions) in blocks of 32 lanes use 77%
// of them, and each block of weights is read once per position block.
// With more output channels than positions the channels are the better
// vector dim, which needs the weight with the channels innermost. This pass
// stores a constant weight that way once, at compile time; the kernel
// transposes it back in its indexing, which the kernel code generation
// folds into the convolution's read of the weight.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUPACKCONVWEIGHTSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Whether `conv` runs faster with its weight stored [C, K..., M]: a plain
/// (ungrouped) f32 convolution of static shapes with fewer output positions
/// than output channels, a multiple of 8 of them (whole vectors of AVX2 and
/// AVX-512).
static bool prefersChannelsInnermost(graph::ConvOp conv) {
  auto weightType = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  auto resultType = dyn_cast<RankedTensorType>(conv.getType());
  if (!weightType || !resultType || !weightType.hasStaticShape() ||
      !resultType.hasStaticShape() || !weightType.getElementType().isF32() ||
      conv.getGroup() != 1 || weightType.getRank() < 3)
    return false;
  int64_t positions = 1;
  for (int64_t size : resultType.getShape().drop_front(2))
    positions *= size;
  int64_t channels = resultType.getDimSize(1);
  return positions < channels && channels % 8 == 0;
}

namespace {
struct CPUPackConvWeightsPass final
    : ms::impl::CPUPackConvWeightsPassBase<CPUPackConvWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The calls of each kernel.
    DenseMap<Operation *, SmallVector<func::CallOp>> calls;
    module.walk([&](func::CallOp call) {
      if (Operation *callee = symbols.lookup(call.getCallee()))
        calls[callee].push_back(call);
    });
    packedOf.clear();
    for (auto kernel : module.getOps<func::FuncOp>()) {
      if (!kernel->hasAttr("ms.kernel") || kernel.isExternal())
        continue;
      auto callers = calls.find(kernel);
      if (callers == calls.end())
        continue;
      kernel.walk([&](graph::ConvOp conv) {
        auto arg = dyn_cast<BlockArgument>(conv.getWeight());
        if (arg && arg.getOwner() == &kernel.front() && arg.hasOneUse() &&
            prefersChannelsInnermost(conv))
          pack(kernel, callers->second, conv, arg);
      });
    }
    // Constants only their packed copies replaced are weights no more.
    for (auto [original, packed] : packedOf)
      if (original.use_empty())
        original.getDefiningOp()->erase();
  }

  /// The packed constant of each constant transposed so far.
  DenseMap<Value, Value> packedOf;

  /// Stores the weight `arg` of `conv` as [C, K..., M] if every caller
  /// passes a constant, which is transposed here.
  void pack(func::FuncOp kernel, ArrayRef<func::CallOp> callers,
            graph::ConvOp conv, BlockArgument arg) {
    auto type = cast<RankedTensorType>(arg.getType());
    int64_t rank = type.getRank();
    // [M, C, K...] -> [C, K..., M] and back.
    SmallVector<int64_t> toPacked, fromPacked = {rank - 1};
    for (int64_t i = 1; i < rank; ++i)
      toPacked.push_back(i);
    toPacked.push_back(0);
    for (int64_t i = 0; i + 1 < rank; ++i)
      fromPacked.push_back(i);
    SmallVector<int64_t> shape;
    for (int64_t i : toPacked)
      shape.push_back(type.getDimSize(i));
    auto packedType = RankedTensorType::get(shape, type.getElementType());

    unsigned index = arg.getArgNumber();
    // Each constant is transposed once, next to it, however many calls
    // pass it.
    DenseMap<Value, Value> fresh; // transposed for this weight
    SmallVector<Value> packed;
    for (func::CallOp call : callers) {
      Value weight = call.getOperand(index);
      auto constant = weight.getDefiningOp<graph::ConstantOp>();
      Value folded = packedOf.lookup(weight);
      if (!folded)
        folded = fresh.lookup(weight);
      if (constant && !folded) {
        OpBuilder b(constant);
        b.setInsertionPointAfter(constant);
        folded = b.createOrFold<graph::TransposeOp>(
            constant.getLoc(), packedType, weight,
            b.getDenseI64ArrayAttr(toPacked));
        fresh[weight] = folded;
        if (!folded.getDefiningOp<graph::ConstantOp>())
          folded = nullptr;
      }
      // Not a constant, or too large to fold: the weight stays as it is.
      if (!folded) {
        for (auto [weight, value] : fresh)
          value.getDefiningOp()->erase();
        return;
      }
      packed.push_back(folded);
    }
    for (auto [i, value] : llvm::enumerate(packed)) {
      func::CallOp call = callers[i];
      call->setOperand(index, value);
    }
    packedOf.insert(fresh.begin(), fresh.end());
    arg.setType(packedType);
    SmallVector<Type> inputs(kernel.front().getArgumentTypes());
    kernel.setType(FunctionType::get(kernel.getContext(), inputs,
                                     kernel.getResultTypes()));
    OpBuilder b(conv);
    Value weight = graph::TransposeOp::create(
        b, conv.getLoc(), type, arg, b.getDenseI64ArrayAttr(fromPacked));
    conv.getWeightMutable().assign(weight);
  }
};
} // namespace
