//===- ContractionKernels.cpp - register-tiled contraction kernels --------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Rewrites each f32 contraction (a linalg.generic computing
// `C[...] += A[..., k] * B[..., k]` over one reduction loop k) whose result
// rows are contiguous into a register-tiled kernel: an scf.forall over the
// other loops, the column blocks and the row blocks, each iteration keeping
// a rows x lanes block of C in vector registers across the whole k loop
// (one vector load of B and one broadcast of A per row and k, fused
// multiply-adds) and writing it once. The columns block is outside the rows
// block, so a panel of B stays in cache while the rows of A stream by.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CPU/CPUTarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ms {
#define GEN_PASS_DEF_CPUCONTRACTIONKERNELSPASS
#include "ms/Target/CPU/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

namespace {
/// How a contraction maps onto the register-tiled kernel.
struct ContractionPlan {
  /// The loops: the reduction, the row loop (in A and C, not in B), the
  /// column loop (innermost in B and C, not in A), and the other parallel
  /// loops (one iteration each).
  unsigned k, m, n;
  SmallVector<unsigned> outer;
  /// The operand numbers of A (has m and k) and B (has n and k).
  unsigned a, b;
  /// Rows and columns of one register block.
  int64_t rows, columns;
  /// The reduction's block size when it is split into blocks, else 0.
  int64_t kBlock = 0;
  /// The elementwise op applied to the result in registers, if any.
  linalg::GenericOp epilogue;
};
} // namespace

/// Returns the loop that result `i` of `map` is, or -1 if it is not a loop.
static int64_t loopAt(AffineMap map, unsigned i) {
  auto d = dyn_cast<AffineDimExpr>(map.getResult(i));
  return d ? static_cast<int64_t>(d.getPosition()) : -1;
}

/// Whether `map` reads loop `loop`.
static bool reads(AffineMap map, unsigned loop) {
  return map.isFunctionOfDim(loop);
}

/// True if the body of `op` is `yield(out + in0 * in1)` (either order).
static bool isMultiplyAccumulate(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 3 || yield.getNumOperands() != 1)
    return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body.getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  if ((add.getLhs() != acc && add.getRhs() != acc) || product == acc)
    return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return false;
  Value x = body.getArgument(0), y = body.getArgument(1);
  return (mul.getLhs() == x && mul.getRhs() == y) ||
         (mul.getLhs() == y && mul.getRhs() == x);
}

/// Plans `op`, or returns std::nullopt if it is not a contraction this
/// kernel covers.
static std::optional<ContractionPlan> planContraction(linalg::GenericOp op,
                                                      int64_t lanes,
                                                      int64_t maxRows,
                                                      int64_t maxK) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !isMultiplyAccumulate(op))
    return std::nullopt;
  for (Type type : op->getOperandTypes())
    if (!cast<ShapedType>(type).getElementType().isF32())
      return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
      return std::nullopt;
  ContractionPlan plan;
  int reductions = 0;
  for (auto [i, it] : llvm::enumerate(iterators))
    if (it == utils::IteratorType::reduction) {
      plan.k = i;
      ++reductions;
    }
  AffineMap out = maps[2];
  if (reductions != 1 || out.getNumResults() != ranges.size() - 1 ||
      out.getNumResults() < 2)
    return std::nullopt;
  // Columns: C's innermost loop, innermost in B too and not in A.
  plan.n = loopAt(out, out.getNumResults() - 1);
  plan.b = 2;
  for (unsigned i = 0; i < 2; ++i) {
    AffineMap map = maps[i];
    if (map.getNumResults() > 0 &&
        loopAt(map, map.getNumResults() - 1) == plan.n)
      plan.b = i;
  }
  if (plan.b == 2)
    return std::nullopt;
  plan.a = 1 - plan.b;
  AffineMap aMap = maps[plan.a], bMap = maps[plan.b];
  if (reads(aMap, plan.n) || !reads(aMap, plan.k) || !reads(bMap, plan.k))
    return std::nullopt;
  // Rows: the loop of C closest to the columns that A reads and B does not.
  int64_t m = -1;
  for (int64_t i = out.getNumResults() - 2; i >= 0 && m < 0; --i) {
    unsigned loop = loopAt(out, i);
    if (reads(aMap, loop) && !reads(bMap, loop))
      m = loop;
  }
  if (m < 0)
    return std::nullopt;
  plan.m = m;
  for (unsigned i = 0; i < ranges.size(); ++i)
    if (i != plan.k && i != plan.m && i != plan.n)
      plan.outer.push_back(i);
  // The widest block of columns (up to two vectors) and the tallest block
  // of rows that divide the extents.
  if (ranges[plan.n] % (2 * lanes) == 0)
    plan.columns = 2 * lanes;
  else if (ranges[plan.n] % lanes == 0)
    plan.columns = lanes;
  else
    return std::nullopt;
  plan.rows = 1;
  for (int64_t r = maxRows; r >= 1; --r)
    if (ranges[plan.m] % r == 0) {
      plan.rows = r;
      break;
    }
  // A reduction longer than maxK runs in blocks: the largest divisor of
  // its length from maxK / 4 to maxK (none: one block).
  if (maxK > 0 && ranges[plan.k] > maxK)
    for (int64_t kb = maxK; kb >= std::max<int64_t>(1, maxK / 4); --kb)
      if (ranges[plan.k] % kb == 0) {
        plan.kBlock = kb;
        break;
      }
  return plan;
}

/// Returns the elementwise linalg.generic that is the only user of `op`'s
/// result, if the kernel can apply it to its registers: it iterates over
/// C's dims in C's order (identity maps for C and its own result), its
/// other operands are read along the columns (the column loop innermost)
/// or not at all (one value per block row), and its body is elementwise
/// scalar ops.
static linalg::GenericOp findEpilogue(linalg::GenericOp op,
                                      const ContractionPlan &plan) {
  Value result = op->getResult(0);
  if (!result.hasOneUse())
    return nullptr;
  OpOperand &use = *result.getUses().begin();
  auto epilogue = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumReductionLoops() != 0 ||
      !epilogue.hasPureTensorSemantics() ||
      epilogue.isDpsInit(&use) ||
      epilogue.payloadUsesValueFromOperand(epilogue.getDpsInitOperand(0)))
    return nullptr;
  unsigned rank = epilogue.getNumLoops();
  if (!epilogue.getMatchingIndexingMap(&use).isIdentity() ||
      !epilogue.getIndexingMapsArray().back().isIdentity() ||
      rank != cast<ShapedType>(result.getType()).getRank())
    return nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    // Index 0 of a unit dim is allowed (a per-row scale of shape [M, 1]).
    AffineMap map = epilogue.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation(/*allowZeroInResults=*/true))
      return nullptr;
    // The columns are the epilogue's last loop.
    bool readsColumns = map.isFunctionOfDim(rank - 1);
    if (readsColumns && loopAt(map, map.getNumResults() - 1) != rank - 1)
      return nullptr;
    if (!isa<FloatType, IntegerType>(getElementTypeOrSelf(input->get())))
      return nullptr;
  }
  if (!getElementTypeOrSelf(epilogue->getResult(0)).isF32())
    return nullptr;
  for (Operation &bodyOp : epilogue.getRegion().front().without_terminator())
    if (!bodyOp.hasTrait<OpTrait::Elementwise>() ||
        bodyOp.getNumRegions() != 0 ||
        !llvm::all_of(bodyOp.getResultTypes(),
                      [](Type t) { return t.isIntOrIndexOrFloat(); }))
      return nullptr;
  (void)plan;
  return epilogue;
}

/// Replaces `op` by the register-tiled kernel of `plan`.
static void buildKernel(RewriterBase &rewriter, linalg::GenericOp op,
                        const ContractionPlan &plan) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value aTensor = op.getDpsInputOperand(plan.a)->get();
  Value bTensor = op.getDpsInputOperand(plan.b)->get();
  Value init = op.getDpsInitOperand(0)->get();
  Type f32 = rewriter.getF32Type();
  auto vecType = VectorType::get({plan.columns}, f32);
  linalg::GenericOp epilogue = plan.epilogue;
  // C filled with a constant (zero, mostly): the registers start from it
  // and the fill is not needed.
  auto fill = init.getDefiningOp<linalg::FillOp>();
  // The kernel writes the epilogue's result, else C.
  Value destInit = epilogue ? epilogue.getDpsInitOperand(0)->get()
                   : fill   ? fill.getOutputs()[0]
                            : init;
  AffineMap outMap = maps[2];
  if (epilogue)
    rewriter.setInsertionPoint(epilogue);

  // Forall dims: the outer loops, then column blocks, then row blocks.
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (unsigned loop : plan.outer) {
    lbs.push_back(rewriter.getIndexAttr(0));
    ubs.push_back(rewriter.getIndexAttr(ranges[loop]));
    steps.push_back(rewriter.getIndexAttr(1));
  }
  lbs.append({rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)});
  ubs.append({rewriter.getIndexAttr(ranges[plan.n]),
              rewriter.getIndexAttr(ranges[plan.m])});
  steps.append({rewriter.getIndexAttr(plan.columns),
                rewriter.getIndexAttr(plan.rows)});

  // One forall over the blocks of C for k in [kStart, kStart + kLength):
  // the first block of k starts from C's initial value, the last applies
  // the epilogue; partial sums in between live in the destination (the
  // epilogue's result has C's shape and type).
  auto emitBlock = [&](Value destIn, Value kStart, int64_t kLength,
                       bool first, bool last) -> Value {
    auto forall = scf::ForallOp::create(rewriter, loc, lbs, ubs, steps,
                                        ValueRange{destIn}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    OpBuilder &b = rewriter;
    Location l = loc;
    SmallVector<Value> ivs = forall.getInductionVars();
    Value dest = forall.getRegionOutArgs()[0];
    Value n0 = ivs[plan.outer.size()], m0 = ivs[plan.outer.size() + 1];
    // The index of loop `loop` for row `row` of the block at `k`.
    auto loopValue = [&](unsigned loop, int64_t row, Value k) -> Value {
      if (loop == plan.k)
        return k;
      if (loop == plan.n)
        return n0;
      if (loop == plan.m)
        return row == 0 ? m0
                        : Value(arith::AddIOp::create(
                              b, l, m0,
                              arith::ConstantIndexOp::create(b, l, row)));
      return ivs[llvm::find(plan.outer, loop) - plan.outer.begin()];
    };
    auto indices = [&](AffineMap map, int64_t row, Value k) {
      SmallVector<Value> values;
      for (unsigned i = 0; i < map.getNumResults(); ++i)
        values.push_back(loopValue(loopAt(map, i), row, k));
      return values;
    };
    Value zero = arith::ConstantOp::create(b, l, b.getF32FloatAttr(0));
    // The block of C starts from its initial value (the first block of k),
    // else from the partial sums of the blocks before.
    SmallVector<Value> accs;
    Value filled;
    if (first && fill)
      filled = vector::BroadcastOp::create(b, l, vecType, fill.getInputs()[0]);
    for (int64_t r = 0; r < plan.rows; ++r)
      accs.push_back(
          filled ? filled
                 : Value(vector::TransferReadOp::create(
                       b, l, vecType, first && epilogue ? init : dest,
                       indices(maps[2], r, Value()), zero,
                       ArrayRef<bool>{true})));
    Value c0 = arith::ConstantIndexOp::create(b, l, 0);
    Value kEnd = arith::AddIOp::create(
        b, l, kStart, arith::ConstantIndexOp::create(b, l, kLength));
    Value c1 = arith::ConstantIndexOp::create(b, l, 1);
    auto kLoop = scf::ForOp::create(
        b, l, kStart, kEnd, c1, accs,
        [&](OpBuilder &kb, Location kl, Value k, ValueRange carried) {
          Value bVec = vector::TransferReadOp::create(
              kb, kl, vecType, bTensor, indices(maps[plan.b], 0, k), zero,
              ArrayRef<bool>{true});
          SmallVector<Value> next;
          for (int64_t r = 0; r < plan.rows; ++r) {
            Value a = tensor::ExtractOp::create(
                kb, kl, aTensor, indices(maps[plan.a], r, k));
            Value aVec = vector::BroadcastOp::create(kb, kl, vecType, a);
            next.push_back(
                vector::FMAOp::create(kb, kl, aVec, bVec, carried[r]));
          }
          scf::YieldOp::create(kb, kl, next);
        });
    // Write the block into its slice of C (rank-reduced to rows x
    // columns).
    SmallVector<OpFoldResult> offsets, sizes, strides;
    for (unsigned i = 0; i < maps[2].getNumResults(); ++i) {
      unsigned loop = loopAt(maps[2], i);
      offsets.push_back(loopValue(loop, 0, Value()));
      sizes.push_back(b.getIndexAttr(loop == plan.m   ? plan.rows
                                     : loop == plan.n ? plan.columns
                                                      : 1));
      strides.push_back(b.getIndexAttr(1));
    }
    auto tileType = RankedTensorType::get({plan.rows, plan.columns}, f32);
    Value tile = tensor::ExtractSliceOp::create(b, l, tileType, dest,
                                                offsets, sizes, strides);
    // The epilogue on row `r`'s registers: its body cloned on vectors, its
    // other operands read along the columns or broadcast.
    IRMapping captured; // values from above the body, broadcast once
    auto applyEpilogue = [&](int64_t r, Value acc) -> Value {
      IRMapping mapping;
      Block &body = epilogue.getRegion().front();
      unsigned rank = epilogue.getNumLoops();
      for (OpOperand *input : epilogue.getDpsInputOperands()) {
        BlockArgument arg = body.getArgument(input->getOperandNumber());
        if (input->get() == op->getResult(0)) {
          mapping.map(arg, acc);
          continue;
        }
        AffineMap map = epilogue.getMatchingIndexingMap(input);
        SmallVector<Value> idx;
        for (unsigned j = 0; j < map.getNumResults(); ++j) {
          int64_t loop = loopAt(map, j);
          idx.push_back(loop < 0 ? c0
                                 : loopValue(loopAt(outMap, loop), r, Value()));
        }
        Type elem = getElementTypeOrSelf(input->get());
        auto type = VectorType::get({plan.columns}, elem);
        Value value;
        if (map.isFunctionOfDim(rank - 1)) {
          Value pad = arith::ConstantOp::create(
              b, l, cast<TypedAttr>(b.getZeroAttr(elem)));
          value = vector::TransferReadOp::create(b, l, type, input->get(), idx,
                                                 pad, ArrayRef<bool>{true});
        } else {
          value = vector::BroadcastOp::create(
              b, l, type, tensor::ExtractOp::create(b, l, input->get(), idx));
        }
        mapping.map(arg, value);
      }
      for (Operation &bodyOp : body.without_terminator()) {
        for (Value operand : bodyOp.getOperands()) {
          if (mapping.contains(operand))
            continue;
          if (!captured.contains(operand))
            captured.map(operand,
                         vector::BroadcastOp::create(
                             b, l,
                             VectorType::get({plan.columns}, operand.getType()),
                             operand));
          mapping.map(operand, captured.lookup(operand));
        }
        Operation *clone = b.clone(bodyOp, mapping);
        for (OpResult result : clone->getResults())
          result.setType(VectorType::get({plan.columns}, result.getType()));
      }
      return mapping.lookup(body.getTerminator()->getOperand(0));
    };
    for (int64_t r = 0; r < plan.rows; ++r) {
      Value row = arith::ConstantIndexOp::create(b, l, r);
      Value value = kLoop.getResult(r);
      if (last && epilogue)
        value = applyEpilogue(r, value);
      tile = vector::TransferWriteOp::create(b, l, value, tile,
                                             ValueRange{row, c0},
                                             ArrayRef<bool>{true})
                 .getResult();
    }
    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(b, l, tile, dest, offsets,
                                          sizes, strides);
    return forall.getResult(0);
  };
  int64_t kSize = ranges[plan.k];
  Value result;
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(rewriter, loc, v).getResult();
  };
  if (plan.kBlock == 0 || plan.kBlock >= kSize) {
    result = emitBlock(destInit, index(0), kSize, true, true);
  } else {
    // Blocks of k outside the forall: a block of A's rows and a panel of
    // B stay in cache across the column and row blocks.
    result = emitBlock(destInit, index(0), plan.kBlock, true, false);
    if (kSize / plan.kBlock > 2) {
      auto blocks = scf::ForOp::create(rewriter, loc, index(plan.kBlock),
                                       index(kSize - plan.kBlock),
                                       index(plan.kBlock), ValueRange{result});
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(blocks.getBody());
      Value next = emitBlock(blocks.getRegionIterArgs()[0],
                             blocks.getInductionVar(), plan.kBlock, false,
                             false);
      scf::YieldOp::create(rewriter, loc, next);
      result = blocks.getResult(0);
    }
    result = emitBlock(result, index(kSize - plan.kBlock), plan.kBlock, false,
                       true);
  }
  if (epilogue) {
    rewriter.replaceOp(epilogue, result);
    rewriter.eraseOp(op);
  } else {
    rewriter.replaceOp(op, result);
  }
  if (fill && fill->use_empty())
    rewriter.eraseOp(fill);
}

namespace {
struct CPUContractionKernelsPass final
    : ms::impl::CPUContractionKernelsPassBase<CPUContractionKernelsPass> {
  using CPUContractionKernelsPassBase::CPUContractionKernelsPassBase;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<std::pair<linalg::GenericOp, ContractionPlan>> planned;
    SmallVector<linalg::LinalgOp> named;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
        named.push_back(op);
    });
    // Named matmuls as generics (the form the plan reads).
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<ContractionPlan> plan =
              planContraction(op, lanes, rows, kBlock)) {
        plan->epilogue = findEpilogue(op, *plan);
        planned.emplace_back(op, *plan);
      }
    });
    for (auto &[op, plan] : planned) {
      rewriter.setInsertionPoint(op);
      buildKernel(rewriter, op, plan);
    }
  }
};
} // namespace
