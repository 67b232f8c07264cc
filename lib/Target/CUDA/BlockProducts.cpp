//===- BlockProducts.cpp - a block program's products on tensor cores -----===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// A tiled loop whose iterations ms-cuda-map-to-gpu runs as blocks (the
// attention kernel: a block per batch, head and query tile) computes its
// products (scores Q K^T, then P V) with a thread per output, each summing
// its terms alone on the CUDA cores. Where the operands are halves, the
// block's 8 warps compute them on tensor cores instead: the product
// becomes one step of the block program, 256 iterations (one a thread),
// in which warp w takes some 16 x 8 fragments of the output and updates
// each, 16 terms at a time, by mma.sync m16n8k16 (f32 sums), each lane
// loading the elements of the fragments it holds where they are (global
// memory, or the tile's shared memory): up to 8 adjacent terms of a row of
// A or column of B as one access, where they are its innermost dimension.
//
//===----------------------------------------------------------------------===//

#include "BlockProducts.h"

#include "ms/Conversion/GraphToLinalg/GraphToLinalg.h"
#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::ms;

/// The block program's threads, as warps of kWarp lanes.
static constexpr int64_t kWarp = 32, kWarps = 8;
/// The shape of one mma.sync on halves (m16n8k16).
static constexpr int64_t kFragM = 16, kFragN = 8, kFragK = 16;
/// The most fragments one warp updates (4 accumulators each).
static constexpr int64_t kMaxSlots = 8;

/// The type the body of a product rounds `value`, one factor of its terms,
/// to: the half type of an `extf` of a block argument of that type, or of
/// an `extf(truncf)` of an f32 one (--precision); f32 for an f32 block
/// argument read as it is; null for anything else. `arg` is set to the
/// block argument.
static Type getRounding(Value value, BlockArgument &arg) {
  if (auto ext = value.getDefiningOp<arith::ExtFOp>()) {
    Value in = ext.getIn();
    Type rounding = in.getType();
    if (auto trunc = in.getDefiningOp<arith::TruncFOp>()) {
      in = trunc.getIn();
      if (!in.getType().isF32())
        return {};
    }
    arg = dyn_cast<BlockArgument>(in);
    return arg && isa<Float16Type, BFloat16Type>(rounding) ? rounding : Type();
  }
  arg = dyn_cast<BlockArgument>(value);
  return arg && value.getType().isF32() ? value.getType() : Type();
}

/// Whether `op` is a step of what ms-cuda-map-to-gpu runs as a block
/// program: directly in a tiled loop of static bounds and no results, or in
/// sequential loops without results there (which every thread runs). A
/// step elsewhere (under a branch, which thread 0 alone would run) could
/// not take its warps' lanes together.
static bool isBlockProgramStep(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto forall = dyn_cast<scf::ForallOp>(parent))
      return forall.getOutputs().empty() &&
             !ShapedType::isDynamicShape(forall.getStaticLowerBound()) &&
             !ShapedType::isDynamicShape(forall.getStaticUpperBound()) &&
             !ShapedType::isDynamicShape(forall.getStaticStep());
    auto loop = dyn_cast<scf::ForOp>(parent);
    if (!loop || loop->getNumResults() != 0)
      return false;
  }
  return false;
}

namespace {
/// A product `out[i, j] += a[i, k] * b[k, j]` (any layouts of the operands)
/// of static M x N x K that tensor cores compute in `type`.
struct BlockProduct {
  linalg::GenericOp op;
  int64_t m = 0, n = 0, k = 0;
  Type type;
  /// The input operands (0 or 1) read as A (M x K) and B (K x N).
  unsigned lhs = 0, rhs = 1;
};
} // namespace

/// Matches `op` as a BlockProduct (see rewriteBlockProductOnTensorCores).
static std::optional<BlockProduct> matchBlockProduct(linalg::GenericOp op,
                                                     Type precision) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 3 ||
      !isBlockProgramStep(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (iterators[0] != utils::IteratorType::parallel ||
      iterators[1] != utils::IteratorType::parallel ||
      iterators[2] != utils::IteratorType::reduction)
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (AffineMap map : maps)
    if (!map.isProjectedPermutation() || map.getNumResults() != 2)
      return std::nullopt;
  if (maps[2] != AffineMap::getMultiDimIdentityMap(3, ctx).getMajorSubMap(2))
    return std::nullopt;
  // The output is written while the inputs are read: no input may view
  // its buffer.
  auto root = [](Value v) {
    while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
      v = view.getViewSource();
    return v;
  };
  Value out = op.getDpsInits()[0];
  if (!getElementTypeOrSelf(out.getType()).isF32() ||
      llvm::any_of(op.getDpsInputs(),
                   [&](Value input) { return root(input) == root(out); }))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return std::nullopt;

  // The body: yield(out + x * y), x and y the factors of the two inputs.
  Block &body = op->getRegion(0).front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  BlockArgument acc = body.getArgument(2);
  if (!add || !add.getType().isF32())
    return std::nullopt;
  Value term = add.getLhs() == acc   ? add.getRhs()
               : add.getRhs() == acc ? add.getLhs()
                                     : Value();
  auto mul = term ? term.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return std::nullopt;
  BlockArgument x, y;
  Type xType = getRounding(mul.getLhs(), x),
       yType = getRounding(mul.getRhs(), y);
  if (!xType || !yType || x.getArgNumber() > 1 || y.getArgNumber() > 1 ||
      x.getArgNumber() == y.getArgNumber())
    return std::nullopt;

  BlockProduct p;
  p.op = op;
  p.m = ranges[0];
  p.n = ranges[1];
  p.k = ranges[2];
  auto uses = [&](unsigned input, unsigned dim) {
    return maps[input].isFunctionOfDim(dim);
  };
  if (uses(0, 0) && uses(0, 2) && uses(1, 2) && uses(1, 1)) {
    p.lhs = 0;
    p.rhs = 1;
  } else if (uses(1, 0) && uses(1, 2) && uses(0, 2) && uses(0, 1)) {
    p.lhs = 1;
    p.rhs = 0;
  } else {
    return std::nullopt;
  }
  Type lhsType = x.getArgNumber() == p.lhs ? xType : yType;
  Type rhsType = x.getArgNumber() == p.lhs ? yType : xType;
  // Attention's probabilities take V's half type; --precision rounds the
  // other f32 factors.
  if (lhsType.isF32() && op->hasAttr(kProbabilitiesAttrName))
    lhsType = rhsType;
  if (precision && isa<Float16Type, BFloat16Type>(precision)) {
    if (lhsType.isF32())
      lhsType = precision;
    if (rhsType.isF32())
      rhsType = precision;
  }
  if (lhsType != rhsType || !isa<Float16Type, BFloat16Type>(lhsType))
    return std::nullopt;
  p.type = lhsType;
  if (p.m == 0 || p.n == 0 || p.k == 0 ||
      llvm::divideCeil(llvm::divideCeil(p.m, kFragM) *
                           llvm::divideCeil(p.n, kFragN),
                       kWarps) > kMaxSlots)
    return std::nullopt;
  return p;
}

/// Emits `p` as a parallel step of kWarps * kWarp iterations. Fragment f
/// (rows 16 (f / ceil(N / 8)), columns 8 (f % ceil(N / 8))) is slot
/// f % slots of warp f / slots. With g = lane / 4 and t = lane % 4, the
/// lane holds of a fragment of A rows g and g + 8 at (mma.sync's) terms
/// 2t, 2t + 1 and 2t + 8, 2t + 9, of B column g at those terms (which
/// terms of the product those are: see `width` below), and of the
/// accumulators rows g and g + 8 at columns 2t, 2t + 1. Fragments past M
/// or N (tails) read A's last row or B's last column there and keep
/// nothing of them; terms past K are zeros in both.
static void emitBlockProduct(const BlockProduct &p) {
  linalg::GenericOp op = p.op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value v, int64_t c) -> Value {
    return c == 0 ? v : arith::AddIOp::create(b, loc, v, index(c)).getResult();
  };
  int64_t fragsN = llvm::divideCeil(p.n, kFragN),
          frags = llvm::divideCeil(p.m, kFragM) * fragsN;
  bool mTail = p.m % kFragM != 0, nTail = p.n % kFragN != 0,
       kTail = p.k % kFragK != 0;
  int64_t slots = llvm::divideCeil(frags, kWarps);
  // Where the slots divide a row of fragments, a warp's fragments share
  // their rows: their A fragments are one, loaded once a step.
  bool shareRows = fragsN % slots == 0;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value lhs = op.getDpsInputs()[p.lhs], rhs = op.getDpsInputs()[p.rhs],
        out = op.getDpsInits()[0];
  // The element of `operand` (read through `map`) at loop indices (i, j, k).
  auto place = [&](AffineMap map, Value i, Value j,
                   Value k) -> SmallVector<Value> {
    Value loops[] = {i, j, k};
    return llvm::map_to_vector(map.getResults(), [&](AffineExpr e) {
      return loops[cast<AffineDimExpr>(e).getPosition()];
    });
  };
  auto rounded = [&](Value v) -> Value {
    if (v.getType() == p.type)
      return v;
    if (!v.getType().isF32())
      v = arith::ExtFOp::create(b, loc, f32, v);
    return arith::TruncFOp::create(b, loc, p.type, v);
  };
  bool isBf16 = p.type.isBF16();
  auto pairType = VectorType::get({2}, p.type);
  // Two adjacent terms (a vector of two, rounded to p.type here if they
  // are not of it) as mma.sync takes them: a vector of two f16, or the
  // bits of two bf16 as an i32.
  auto asOperand = [&](Value v) -> Value {
    Type element = cast<VectorType>(v.getType()).getElementType();
    if (element != p.type) {
      if (!element.isF32())
        v = arith::ExtFOp::create(b, loc, VectorType::get({2}, f32), v);
      v = arith::TruncFOp::create(b, loc, pairType, v);
    }
    if (!isBf16)
      return v;
    v = vector::BitCastOp::create(b, loc, VectorType::get({1}, b.getI32Type()),
                                  v);
    return vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{0});
  };
  auto pair = [&](Value first, Value second) -> Value {
    return asOperand(vector::FromElementsOp::create(
        b, loc, pairType, ValueRange{rounded(first), rounded(second)}));
  };
  // Without a K tail, the lane takes its terms of a 16-term mma.sync from
  // `width` adjacent ones: of each chunk of 4 * width terms, lane t holds
  // terms width * t + [0, width), and step j of the chunk's width / 4
  // mma.syncs takes terms width * t + 4 j + {0, 1} as its terms 2t, 2t + 1
  // and + {2, 3} as 2t + 8, 2t + 9. A and B agree on that order, so the
  // sums are the same (mma.sync's own order of summing is unspecified);
  // with a K tail, the lane holds the terms 2t, 2t + 1, 2t + 8, 2t + 9 of
  // each 16 as mma.sync numbers them.
  int64_t width = kTail ? 2 : p.k % (4 * kFragN) == 0 ? 8 : 4;
  int64_t chunk = kTail ? kFragK : 4 * width;
  // The terms (past the lane's first one) of the lane's pairs in a chunk.
  SmallVector<int64_t> pairTerms = {0, 8};
  if (!kTail) {
    pairTerms.clear();
    for (int64_t c = 0; c < width; c += 2)
      pairTerms.push_back(c);
  }
  // An operand's adjacent terms load as one access of up to `width` (a
  // 128-bit one of 8 halves) where its terms are its innermost dimension
  // and its layout keeps the access aligned (getAlignedVectorWidth); else
  // one term at a time.
  auto getAccess = [&](Value operand, AffineMap map) -> int64_t {
    if (kTail || map.getDimPosition(1) != 2)
      return 1;
    return std::max<int64_t>(1,
                             std::min(width, getAlignedVectorWidth(operand)));
  };
  int64_t accessA = getAccess(lhs, maps[p.lhs]),
          accessB = getAccess(rhs, maps[p.rhs]);
  NVVM::MMATypes ptxType = isBf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  auto fragType = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});

  auto step = scf::ParallelOp::create(b, loc, ValueRange{index(0)},
                                      ValueRange{index(kWarps * kWarp)},
                                      ValueRange{index(1)});
  b.setInsertionPointToStart(step.getBody());
  Value thread = step.getInductionVars()[0];
  Value warp = arith::DivUIOp::create(b, loc, thread, index(kWarp));
  Value lane = arith::RemUIOp::create(b, loc, thread, index(kWarp));
  // (Each op's operands are made one statement before it, so that the
  // IR's order does not depend on the C++ compiler's.)
  Value g = arith::DivUIOp::create(b, loc, lane, index(4));
  Value t = arith::RemUIOp::create(b, loc, lane, index(4));
  Value t2 = arith::MulIOp::create(b, loc, t, index(2));
  // Each slot's fragment (the last one for slots past them, whose sums
  // are not stored: the condition is the same for the warp's lanes, which
  // all take part in every mma.sync).
  Value first = arith::MulIOp::create(b, loc, warp, index(slots));
  // Warps past the fragments skip the step.
  if (kWarps * slots > frags) {
    Value busy = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, first,
                                       index(frags));
    auto busyWarps = scf::IfOp::create(b, loc, busy);
    b.setInsertionPointToStart(busyWarps.thenBlock());
  }
  SmallVector<Value> valid, rows, cols, bCols;
  for (int64_t s = 0; s < slots; ++s) {
    Value f = add(first, s);
    valid.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, f,
                                          index(frags)));
    f = arith::MinUIOp::create(b, loc, f, index(frags - 1));
    Value fragRow = arith::DivUIOp::create(b, loc, f, index(fragsN));
    Value row = arith::MulIOp::create(b, loc, fragRow, index(kFragM));
    Value fragCol = arith::RemUIOp::create(b, loc, f, index(fragsN));
    Value col = arith::MulIOp::create(b, loc, fragCol, index(kFragN));
    rows.push_back(arith::AddIOp::create(b, loc, row, g));
    cols.push_back(arith::AddIOp::create(b, loc, col, t2));
    bCols.push_back(arith::AddIOp::create(b, loc, col, g));
  }
  // The lane's accumulators of slot s: element e at row + 8 (e / 2),
  // column + e % 2.
  auto accPlace = [&](int64_t s, int64_t e) {
    Value row = add(rows[s], 8 * (e / 2));
    Value col = add(cols[s], e % 2);
    return place(maps[2], row, col, Value());
  };
  // Whether the lane's accumulator e of slot s is an output: the slot is
  // a fragment, and the element is inside M and N at a tail.
  auto isOutput = [&](int64_t s, int64_t e) -> Value {
    Value inside = valid[s];
    auto below = [&](Value v, int64_t bound) {
      inside = arith::AndIOp::create(
          b, loc, inside,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                index(bound)));
    };
    if (mTail)
      below(add(rows[s], 8 * (e / 2)), p.m);
    if (nTail)
      below(add(cols[s], e % 2), p.n);
    return inside;
  };
  // A slot past the fragments, or an element past M or N, starts from
  // zero: reading another fragment's sums would race with their owner's
  // stores.
  SmallVector<Value> init;
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  for (int64_t s = 0; s < slots; ++s) {
    if (!mTail && !nTail) {
      auto read = scf::IfOp::create(
          b, loc, TypeRange(SmallVector<Type>(4, f32)), valid[s],
          /*addThenBlock=*/true, /*addElseBlock=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(read.thenBlock());
      SmallVector<Value> sums;
      for (int64_t e = 0; e < 4; ++e)
        sums.push_back(memref::LoadOp::create(b, loc, out, accPlace(s, e)));
      scf::YieldOp::create(b, loc, sums);
      b.setInsertionPointToStart(read.elseBlock());
      scf::YieldOp::create(b, loc, SmallVector<Value>(4, zero));
      llvm::append_range(init, read.getResults());
      continue;
    }
    for (int64_t e = 0; e < 4; ++e) {
      auto read = scf::IfOp::create(b, loc, TypeRange{f32}, isOutput(s, e),
                                    /*addThenBlock=*/true,
                                    /*addElseBlock=*/true);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(read.thenBlock());
      scf::YieldOp::create(
          b, loc,
          ValueRange{memref::LoadOp::create(b, loc, out, accPlace(s, e))});
      b.setInsertionPointToStart(read.elseBlock());
      scf::YieldOp::create(b, loc, ValueRange{zero});
      init.push_back(read.getResult(0));
    }
  }

  // A row of A or column of B past M or N reads the last one; a term past
  // K reads zero.
  auto clamp = [&](Value v, int64_t bound) -> Value {
    return arith::MinUIOp::create(b, loc, v, index(bound - 1));
  };
  auto loadTerm = [&](Value memref, ArrayRef<Value> indices,
                      Value term) -> Value {
    if (!kTail)
      return memref::LoadOp::create(b, loc, memref, indices);
    Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         term, index(p.k));
    Value v = memref::LoadOp::create(b, loc, memref, indices);
    Type type = v.getType();
    Value none = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0));
    return arith::SelectOp::create(b, loc, inside, v, none);
  };
  // The lane's pairs of `operand` (through `map`) in the chunk from term
  // `kt` (the lane's first), at row `i` of A or column `j` of B.
  auto loadPairs = [&](Value operand, AffineMap map, int64_t access, Value i,
                       Value j, Value kt) -> SmallVector<Value> {
    SmallVector<Value> pairs;
    if (access == 1) {
      for (int64_t c : pairTerms) {
        auto load = [&](int64_t e) {
          Value term = add(kt, c + e);
          Value at = kTail ? clamp(term, p.k) : term;
          return loadTerm(operand, place(map, i, j, at), term);
        };
        Value low = load(0);
        pairs.push_back(pair(low, load(1)));
      }
      return pairs;
    }
    Type element = getElementTypeOrSelf(operand.getType());
    auto vectorType = VectorType::get({access}, element);
    for (int64_t c = 0; c < width; c += access) {
      Value loaded = vector::LoadOp::create(
          b, loc, vectorType, operand, place(map, i, j, add(kt, c)),
          /*nontemporal=*/false,
          llvm::MaybeAlign(access * element.getIntOrFloatBitWidth() / 8));
      for (int64_t e = 0; e < access; e += 2)
        pairs.push_back(asOperand(
            access == 2 ? loaded
                        : vector::ShuffleOp::create(b, loc, loaded, loaded,
                                                    ArrayRef<int64_t>{e, e + 1})
                              .getResult()));
    }
    return pairs;
  };
  auto terms = scf::ForOp::create(
      b, loc, index(0), index(llvm::alignTo(p.k, chunk)), index(chunk), init,
      [&](OpBuilder &nb, Location, Value k, ValueRange accs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Value kt = arith::AddIOp::create(
            b, loc, k,
            kTail ? t2 : arith::MulIOp::create(b, loc, t, index(width)));
        SmallVector<Value> sums(accs);
        // The pairs of A's rows g and g + 8.
        SmallVector<Value> rowLow, rowHigh;
        for (int64_t s = 0; s < slots; ++s) {
          if (s == 0 || !shareRows) {
            auto row = [&](int64_t r) {
              Value v = add(rows[s], r);
              return mTail ? clamp(v, p.m) : v;
            };
            rowLow = loadPairs(lhs, maps[p.lhs], accessA, row(0), Value(), kt);
            rowHigh = loadPairs(lhs, maps[p.lhs], accessA, row(8), Value(), kt);
          }
          Value col = nTail ? clamp(bCols[s], p.n) : bCols[s];
          SmallVector<Value> column =
              loadPairs(rhs, maps[p.rhs], accessB, Value(), col, kt);
          for (int64_t j = 0; 2 * j < int64_t(pairTerms.size()); ++j) {
            Value a[] = {rowLow[2 * j], rowHigh[2 * j], rowLow[2 * j + 1],
                         rowHigh[2 * j + 1]};
            Value bv[] = {column[2 * j], column[2 * j + 1]};
            auto mma = NVVM::MmaOp::create(
                b, loc, fragType, a, bv, ArrayRef<Value>(sums).slice(4 * s, 4),
                ArrayRef<int64_t>{kFragM, kFragN, kFragK},
                /*b1Op=*/std::nullopt, /*intOverflow=*/std::nullopt,
                std::array<NVVM::MMATypes, 2>{ptxType, ptxType},
                std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                               NVVM::MMALayout::col});
            for (int64_t e = 0; e < 4; ++e)
              sums[4 * s + e] = LLVM::ExtractValueOp::create(
                  b, loc, mma, ArrayRef<int64_t>{e});
          }
        }
        scf::YieldOp::create(b, loc, sums);
      });
  for (int64_t s = 0; s < slots; ++s) {
    if (!mTail && !nTail) {
      auto store = scf::IfOp::create(b, loc, valid[s]);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(store.thenBlock());
      for (int64_t e = 0; e < 4; ++e)
        memref::StoreOp::create(b, loc, terms.getResult(4 * s + e), out,
                                accPlace(s, e));
      continue;
    }
    for (int64_t e = 0; e < 4; ++e) {
      auto store = scf::IfOp::create(b, loc, isOutput(s, e));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(store.thenBlock());
      memref::StoreOp::create(b, loc, terms.getResult(4 * s + e), out,
                              accPlace(s, e));
    }
  }
  op->erase();
}

bool mlir::ms::rewriteBlockProductOnTensorCores(linalg::GenericOp op,
                                                Type precision) {
  std::optional<BlockProduct> product = matchBlockProduct(op, precision);
  if (!product)
    return false;
  emitBlockProduct(*product);
  return true;
}
