//===- PairContraction.h - bf16 contractions by pairs of k ------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// With --precision bf16, contractions multiply bfloat16 operands and sum in
// f32, two steps of the reduction at a time (AVX512-BF16's dot product
// `acc + a0 * b0 + a1 * b1`). Such a contraction is a linalg.generic in
// *pair form*: its reduction k split into the pairs c and, as its last
// loop, the pair's element t (extent 2); both inputs bf16, with t their
// innermost index (the two elements of a pair adjacent in memory) and
// read nowhere else; the body `out + extf(a) * extf(b)`. The pair form is
// exact IR (any lowering of the generic computes it); the register-tiled
// kernels of ms-cpu-contraction-kernels take it by pairs.
//
// Who writes it: ms-cpu-contraction-kernels (matmuls by weights stored in
// bf16 pairs, convolutions by bf16 weights: ms-cpu-pack-weights) and
// ms-cpu-winograd-convs (the 16 matmuls of a bf16 Winograd filter).
//
//===----------------------------------------------------------------------===//

#ifndef MS_LIB_TARGET_CPU_PAIRCONTRACTION_H
#define MS_LIB_TARGET_CPU_PAIRCONTRACTION_H

#include "WindowIndexing.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::ms {
/// True if `op` only moves or widens the elements of one tensor: a reshape,
/// a slice, a transpose or copy, or a linalg.generic of one input yielding
/// it (or its arith.extf) without reading its output.
inline bool isRelayout(Operation *op) {
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
          tensor::ExtractSliceOp, tensor::CastOp, linalg::TransposeOp,
          linalg::CopyOp>(op))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return false;
  Block &body = generic.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  if (auto extend = yielded.getDefiningOp<arith::ExtFOp>())
    yielded = extend.getIn();
  return yielded == body.getArgument(0);
}

/// Returns the argument of `kernel` with the argument attribute `name` that
/// `value` is computed from (a packed weight's unpacking: ms-cpu-pack-weights)
/// through ops that `through` accepts (any op when null), or null.
inline BlockArgument
findMarkedArgument(func::FuncOp kernel, Value value, StringRef name,
                   function_ref<bool(Operation *)> through = nullptr) {
  SmallVector<Value> worklist = {value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == &kernel.front() &&
          kernel.getArgAttr(arg.getArgNumber(), name))
        return arg;
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (op && (!through || through(op)))
      llvm::append_range(worklist, op->getOperands());
  }
  return nullptr;
}

/// True if `op` is a contraction in pair form (see the file comment).
inline bool isPairContraction(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || op.getNumLoops() < 2)
    return false;
  unsigned t = op.getNumLoops() - 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[t] != 2 ||
      op.getIteratorTypesArray()[t] != utils::IteratorType::reduction)
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!getElementTypeOrSelf(input->get()).isBF16())
      return false;
    AffineMap map = op.getMatchingIndexingMap(input);
    unsigned rank = map.getNumResults();
    if (rank == 0 ||
        map.getResult(rank - 1) != getAffineDimExpr(t, op.getContext()))
      return false;
    for (unsigned i = 0; i + 1 < rank; ++i)
      if (map.getResult(i).isFunctionOfDim(t))
        return false;
  }
  OpOperand *init = op.getDpsInitOperand(0);
  if (!getElementTypeOrSelf(init->get()).isF32() ||
      op.getMatchingIndexingMap(init).isFunctionOfDim(t))
    return false;
  Block &body = op.getRegion().front();
  arith::MulFOp mul = getAccumulatedProduct(op);
  if (!mul || body.getOperations().size() != 5)
    return false;
  auto extended = [&](Value v) -> Value {
    auto ext = v.getDefiningOp<arith::ExtFOp>();
    return ext ? ext.getIn() : Value();
  };
  Value x = extended(mul.getLhs()), y = extended(mul.getRhs());
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

/// Creates the pair-form contraction of `a` and `b` (bf16, read through
/// `maps[0]`, `maps[1]`, t their last index) into `init` (f32, `maps[2]`)
/// over loops of `iterators`, the last of them t.
inline linalg::GenericOp
createPairContraction(OpBuilder &b, Location loc, Value a, Value bValue,
                      Value init, ArrayRef<AffineMap> maps,
                      ArrayRef<utils::IteratorType> iterators) {
  return linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{a, bValue},
      ValueRange{init}, maps, iterators,
      [](OpBuilder &nb, Location l, ValueRange args) {
        Type f32 = nb.getF32Type();
        Value x = arith::ExtFOp::create(nb, l, f32, args[0]);
        Value y = arith::ExtFOp::create(nb, l, f32, args[1]);
        Value product = arith::MulFOp::create(nb, l, x, y);
        linalg::YieldOp::create(
            nb, l, Value(arith::AddFOp::create(nb, l, args[2], product)));
      });
}

/// Returns `value` (f32) rounded to bf16 (to nearest, ties to even), as
/// one elementwise linalg.generic.
inline Value roundToBF16(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), b.getBF16Type());
  auto identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{value},
             ValueRange{init}, ArrayRef<AffineMap>{identity, identity},
             iterators,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l,
                                       Value(arith::TruncFOp::create(
                                           nb, l, nb.getBF16Type(), args[0])));
             })
      .getResult(0);
}

/// Returns `value` with its dim `dim` (of even extent) split into pairs:
/// `[..., d, ...]` -> `[..., d / 2, 2, ...]`.
inline Value splitIntoPairs(OpBuilder &b, Location loc, Value value,
                            int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= 2;
  shape.insert(shape.begin() + dim + 1, 2);
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0, j = 0; i < type.getRank(); ++i) {
    groups.push_back({j++});
    if (i == dim)
      groups.back().push_back(j++);
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups);
}
} // namespace mlir::ms

#endif // MS_LIB_TARGET_CPU_PAIRCONTRACTION_H
