//===- MapToGPU.cpp - bufferized kernels as GPU launches ------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Each top-level parallel loop of a kernel becomes one launch with one
// thread per iteration. A reduction (a nest of loops accumulating into
// memory) of at least 32 elements, at the top of a kernel or in each
// iteration (row) of a parallel loop reading along its rows or of few rows,
// is shared by the threads of a block that combine their parts with
// gpu.all_reduce (warp shuffles and shared memory); a long reduction of
// few rows is split over several blocks per row whose totals a second
// launch combines; rows read across that are too few to fill the GPU a
// thread each are split into chunks a thread each, whose totals a second
// launch of a thread per row combines. A top-level gpu.launch (a tiled
// matrix product) is one launch as written; each run of other effectful
// top-level ops one launch of one thread. A tiled loop (scf.forall) runs as
// a block per tile, its allocations in the block's shared memory where they
// fit. Launched functions take memrefs only: the kernel's arguments and its
// top-level allocations; everything else they use is cloned in.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::ms {
#define GEN_PASS_DEF_CUDAMAPTOGPUPASS
#include "ms/Target/CUDA/Passes.h.inc"
} // namespace mlir::ms

using namespace mlir;
using namespace mlir::ms;

/// Threads per block of a parallel loop's launch, and the most threads
/// that share one row of a reduction.
static constexpr int64_t kThreadsPerBlock = 256;
/// The lanes of a warp, the width of its shuffles.
static constexpr int64_t kWarpLanes = 32;
/// The fewest elements per row for which threads share a reduction's row
/// (one warp).
static constexpr int64_t kMinSharedReduction = kWarpLanes;
/// A reduction of fewer rows than this (two blocks per SM of a 132-SM
/// H100 or H200) splits long rows over several blocks...
static constexpr int64_t kFewRows = 264;
/// ... about this many blocks in all (four per SM)...
static constexpr int64_t kBlocksToFill = 528;
/// ... each reducing about this many of a row's elements or more (16 a
/// thread; the chunks of a row are of one length).
static constexpr int64_t kElementsPerBlock = 4096;
/// About the fewest elements of a row a thread reduces where the row is a
/// thread's.
static constexpr int64_t kElementsPerThread = 64;
/// The most bytes of allocations a block program's tile keeps in shared
/// memory, with its block reductions' buffers (the static shared memory a
/// block may have); a tile needing more keeps them in a slice of a global
/// scratch buffer.
static constexpr int64_t kMaxSharedScratch = 48 * 1024;
/// The name of the module holding every launched function.
static constexpr StringLiteral kGpuModuleName = "ms_cuda";

/// Whether `op` only reads memory (a load): it is cloned into the launches
/// that use it, where nothing has written in between.
static bool onlyReads(Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0)
    return false;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffects(list);
  return !list.empty() &&
         llvm::all_of(list, [](const MemoryEffects::EffectInstance &effect) {
           return isa<MemoryEffects::Read>(effect.getEffect());
         });
}

/// Whether `op` can be cloned into the launches that use its results: it
/// has no effects, or only reads and nothing writes before the use.
static bool isCloneable(Operation *op) {
  return op->getNumRegions() == 0 && (isMemoryEffectFree(op) || onlyReads(op));
}

/// Whether an op from `from` (exclusive) to `to` (exclusive), in one block,
/// may write memory.
static bool writesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (!isMemoryEffectFree(op) && !onlyReads(op) &&
        !isa<memref::AllocOp, memref::DeallocOp>(op))
      return true;
  return false;
}

namespace {
/// One accumulator of a reduction nest: in its innermost body,
/// `store(combine(load(acc[idx]), contribution), acc[idx])` with `idx`
/// invariant in the nest.
struct Accumulator {
  memref::LoadOp load;
  Operation *combine = nullptr;
  memref::StoreOp store;
  arith::AtomicRMWKind kind;
  gpu::AllReduceOperation op;
};

/// Perfectly nested loops of constant bounds whose innermost body
/// accumulates into memory at places invariant in the nest; its other ops
/// only read, never what the nest writes.
struct ReductionNest {
  /// The loops, outermost first; only the innermost has other ops.
  SmallVector<scf::ForOp> loops;
  SmallVector<int64_t> lower, step, trips;
  /// Iterations of the whole nest.
  int64_t total = 1;
  SmallVector<Accumulator> accumulators;
  /// Whether every load reads at places invariant in the nest or along its
  /// trailing dimensions with the nest's induction variables in order, so
  /// that adjacent iterations read adjacent elements.
  bool alongRows = true;
};

/// A reduction nest run for each iteration (row) of a parallel loop, or
/// once, whose iterations are shared. Each row's nest is split into
/// `splits` chunks, each reduced by one block of `threads` threads whose
/// parts gpu.all_reduce combines; with one chunk thread 0 combines the
/// total into each accumulator, with more a second launch of a block per
/// row combines the chunks' totals. With `threadPerRow`, a chunk of a row
/// is a thread's instead (rows read across, too many for a block each, too
/// few to fill the GPU a thread each), and the second launch a thread per
/// row.
struct SharedReduction {
  /// The parallel loop, or null for a nest at the top of a kernel.
  scf::ParallelOp parallel;
  SmallVector<int64_t> lower, step, trips;
  int64_t rows = 1;
  ReductionNest nest;
  int64_t splits = 1;
  int64_t threads = kThreadsPerBlock;
  bool threadPerRow = false;
};
} // namespace

/// The all-reduce and identity of `combine` as an accumulator's combiner,
/// for f32 and i32 values.
static std::optional<std::pair<arith::AtomicRMWKind, gpu::AllReduceOperation>>
getReductionKind(Operation *combine) {
  using K = arith::AtomicRMWKind;
  using G = gpu::AllReduceOperation;
  using Result = std::optional<std::pair<K, G>>;
  Type type = combine->getNumResults() == 1 ? combine->getResult(0).getType()
                                            : Type();
  if (!type || !(type.isF32() || type.isInteger(32)))
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, Result>(combine)
      .Case([](arith::AddFOp) { return std::pair(K::addf, G::ADD); })
      .Case([](arith::MulFOp) { return std::pair(K::mulf, G::MUL); })
      .Case([](arith::MaximumFOp) { return std::pair(K::maximumf, G::MAXIMUMF); })
      .Case([](arith::MinimumFOp) { return std::pair(K::minimumf, G::MINIMUMF); })
      .Case([](arith::MaxNumFOp) { return std::pair(K::maxnumf, G::MAXNUMF); })
      .Case([](arith::MinNumFOp) { return std::pair(K::minnumf, G::MINNUMF); })
      .Case([](arith::AddIOp) { return std::pair(K::addi, G::ADD); })
      .Case([](arith::MulIOp) { return std::pair(K::muli, G::MUL); })
      .Case([](arith::MaxSIOp) { return std::pair(K::maxs, G::MAXSI); })
      .Case([](arith::MinSIOp) { return std::pair(K::mins, G::MINSI); })
      .Case([](arith::MaxUIOp) { return std::pair(K::maxu, G::MAXUI); })
      .Case([](arith::MinUIOp) { return std::pair(K::minu, G::MINUI); })
      .Case([](arith::AndIOp) { return std::pair(K::andi, G::AND); })
      .Case([](arith::OrIOp) { return std::pair(K::ori, G::OR); })
      .Case([](arith::XOrIOp) { return std::pair(K::xori, G::XOR); })
      .Default([](Operation *) { return Result(); });
}

/// The memref `value` views (through view-like ops).
static Value getViewedMemRef(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The induction variables of iteration `linear` of a loop nest with
/// `lower` bounds, `step`s and `trips`, the innermost varying fastest.
static SmallVector<Value> delinearize(OpBuilder &builder, Location loc,
                                      Value linear, ArrayRef<int64_t> lower,
                                      ArrayRef<int64_t> step,
                                      ArrayRef<int64_t> trips) {
  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, v);
  };
  SmallVector<Value> ivs(trips.size());
  Value rest = linear;
  for (int64_t d = trips.size() - 1; d >= 0; --d) {
    Value position = rest;
    if (d > 0) {
      position = arith::RemUIOp::create(builder, loc, rest, index(trips[d]));
      rest = arith::DivUIOp::create(builder, loc, rest, index(trips[d]));
    }
    Value scaled =
        step[d] == 1
            ? position
            : arith::MulIOp::create(builder, loc, position, index(step[d]))
                  .getResult();
    ivs[d] = lower[d] == 0
                 ? scaled
                 : arith::AddIOp::create(builder, loc, scaled, index(lower[d]))
                       .getResult();
  }
  return ivs;
}

/// The constant lower bounds, steps and trip counts of a loop nest, or
/// failure when one is not constant or a step is not positive.
static LogicalResult getConstantNest(ArrayRef<OpFoldResult> lbs,
                                     ArrayRef<OpFoldResult> ubs,
                                     ArrayRef<OpFoldResult> steps,
                                     SmallVectorImpl<int64_t> &lower,
                                     SmallVectorImpl<int64_t> &step,
                                     SmallVectorImpl<int64_t> &trips) {
  for (auto [lb, ub, st] : llvm::zip(lbs, ubs, steps)) {
    std::optional<int64_t> l = getConstantIntValue(lb);
    std::optional<int64_t> u = getConstantIntValue(ub);
    std::optional<int64_t> s = getConstantIntValue(st);
    if (!l || !u || !s || *s <= 0)
      return failure();
    lower.push_back(*l);
    step.push_back(*s);
    trips.push_back(*u > *l ? (*u - *l + *s - 1) / *s : 0);
  }
  return success();
}

/// Bytes of a static memref's elements, rounded up to 64.
static int64_t getAlignedBytes(MemRefType type) {
  int64_t bytes = type.getNumElements() *
                  ((type.getElementTypeBitWidth() + 7) / 8);
  return (bytes + 63) / 64 * 64;
}

/// Whether `load` reads at a place invariant in a nest (`invariant`) or
/// along its trailing dimensions with the nest's induction variables `ivs`
/// in order, ignoring dimensions of one element; the last of them must
/// then have unit stride.
static bool readsAlong(memref::LoadOp load, ArrayRef<Value> ivs,
                       function_ref<bool(Value)> invariant) {
  MemRefType type = load.getMemRefType();
  SmallVector<Value> indices;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return llvm::all_of(load.getIndices(), invariant);
  int64_t lastStride = 0;
  for (auto [dim, index] : llvm::enumerate(load.getIndices())) {
    if (type.getDimSize(dim) == 1)
      continue;
    indices.push_back(index);
    lastStride = strides[dim];
  }
  if (llvm::all_of(indices, invariant))
    return true;
  return indices.size() >= ivs.size() && lastStride == 1 &&
         llvm::all_of(ArrayRef(indices).drop_back(ivs.size()), invariant) &&
         llvm::equal(ArrayRef(indices).take_back(ivs.size()), ivs);
}

/// A power of two (at most 2^20) that the index `value` is known to be a
/// multiple of: of a constant, or of products and sums of such (a key
/// tile's first key, `kj * 128`); 1 when nothing is known.
static int64_t getIndexMultiple(OpFoldResult value, unsigned depth = 0) {
  constexpr int64_t kMost = int64_t(1) << 20;
  if (std::optional<int64_t> known = getConstantIntValue(value)) {
    if (*known == 0)
      return kMost;
    return std::min<int64_t>(*known & -*known, kMost);
  }
  auto v = dyn_cast<Value>(value);
  Operation *def = v ? v.getDefiningOp() : nullptr;
  if (!def || depth > 8)
    return 1;
  if (isa<arith::MulIOp, arith::AddIOp>(def)) {
    int64_t lhs = getIndexMultiple(def->getOperand(0), depth + 1),
            rhs = getIndexMultiple(def->getOperand(1), depth + 1);
    return isa<arith::MulIOp>(def) ? std::min(lhs * rhs, kMost)
                                   : std::min(lhs, rhs);
  }
  return 1;
}

/// A number of elements that `memref`'s offset is known to be a multiple
/// of (0: the offset is 0), or 1 when nothing is known: its static offset,
/// or, through a subview of a source of static strides, the gcd of the
/// source's and of each offset times its stride (for a dynamic offset, what
/// getIndexMultiple knows of it).
static int64_t getOffsetMultiple(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)))
    return 1;
  if (!ShapedType::isDynamic(offset))
    return offset;
  // Views that keep the offset.
  Operation *def = memref.getDefiningOp();
  if (isa_and_nonnull<memref::CastOp, memref::ExpandShapeOp,
                      memref::CollapseShapeOp>(def))
    return getOffsetMultiple(def->getOperand(0));
  auto subview = dyn_cast_or_null<memref::SubViewOp>(def);
  if (!subview)
    return 1;
  SmallVector<int64_t> sourceStrides;
  int64_t sourceOffset;
  if (failed(subview.getSourceType().getStridesAndOffset(sourceStrides,
                                                         sourceOffset)))
    return 1;
  int64_t multiple = getOffsetMultiple(subview.getSource());
  for (auto [at, stride] :
       llvm::zip_equal(subview.getMixedOffsets(), sourceStrides)) {
    if (ShapedType::isDynamic(stride))
      return 1;
    std::optional<int64_t> known = getConstantIntValue(at);
    multiple = std::gcd(multiple, known ? *known * stride
                                        : getIndexMultiple(at) * stride);
  }
  return multiple;
}

int64_t mlir::ms::getAlignedVectorWidth(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() == 0)
    return 0;
  Type element = type.getElementType();
  unsigned bits = element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64)
    return 0;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return 0;
  // A dynamic offset: what a subview's offsets and strides make it a
  // multiple of.
  if (ShapedType::isDynamic(offset) &&
      (offset = getOffsetMultiple(memref)) == 1)
    return 0;
  int64_t bytes = kCudaVectorBytes;
  for (Value v = memref; Operation *def = v.getDefiningOp();) {
    if (auto get = dyn_cast<memref::GetGlobalOp>(def)) {
      auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      std::optional<uint64_t> alignment =
          global ? global.getAlignment() : std::nullopt;
      bytes = std::min<int64_t>(bytes, alignment.value_or(0));
      break;
    }
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      break;
    if (isa<memref::ViewOp>(def))
      return 0;
    v = view.getViewSource();
  }
  int64_t width = bytes / (bits / 8);
  if (width < 1)
    return 0;
  auto fit = [&](int64_t elements) {
    while (width > 1 && elements % width != 0)
      width /= 2;
  };
  fit(offset);
  for (int64_t dim = 0; dim + 1 < type.getRank(); ++dim) {
    if (type.getDimSize(dim) == 1)
      continue;
    if (ShapedType::isDynamic(strides[dim]))
      return 0;
    fit(strides[dim]);
  }
  return width;
}

bool mlir::ms::isElementwiseOnScalars(Operation *op) {
  auto isScalar = [](Type type) { return type.isIntOrIndexOrFloat(); };
  return OpTrait::hasElementwiseMappableTraits(op) &&
         llvm::all_of(op->getOperandTypes(), isScalar) &&
         llvm::all_of(op->getResultTypes(), isScalar);
}

Value mlir::ms::broadcastToWidth(OpBuilder &builder, Location loc, Value value,
                                 int64_t width) {
  if (isa<VectorType>(value.getType()))
    return value;
  return vector::BroadcastOp::create(
      builder, loc, VectorType::get({width}, value.getType()), value);
}

Value mlir::ms::getIndexVector(OpBuilder &builder, Location loc, Value first,
                               int64_t width) {
  Value steps = arith::ConstantOp::create(
      builder, loc,
      builder.getIndexVectorAttr(llvm::to_vector(llvm::seq<int64_t>(width))));
  return arith::AddIOp::create(
      builder, loc, broadcastToWidth(builder, loc, first, width), steps);
}

void mlir::ms::cloneOnVectors(OpBuilder &builder, Operation &op,
                              IRMapping &mapping, int64_t width) {
  bool onVectors = llvm::any_of(op.getOperands(), [&](Value operand) {
    return isa<VectorType>(mapping.lookupOrDefault(operand).getType());
  });
  if (!onVectors) {
    builder.clone(op, mapping);
    return;
  }
  OperationState state(op.getLoc(), op.getName());
  state.addAttributes(op.getAttrs());
  for (Value operand : op.getOperands())
    state.addOperands(broadcastToWidth(
        builder, operand.getLoc(), mapping.lookupOrDefault(operand), width));
  for (Type type : op.getResultTypes())
    state.addTypes(VectorType::get({width}, type));
  mapping.map(op.getResults(), builder.create(state)->getResults());
}

/// The most elements (a power of two, at most kCudaVectorBytes per access)
/// that a load or store of `memref` at `indices` can take at once along the
/// innermost dimension `iv` of a parallel loop, every index but the last
/// invariant across them (not `iv` nor in `varying`): `iv` must index the
/// last dimension, whose layout allows vectors (getAlignedVectorWidth); 0
/// when not.
static int64_t getAccessWidth(Value memref, ValueRange indices, Value iv,
                              const DenseSet<Value> &varying) {
  if (indices.empty() || indices.back() != iv)
    return 0;
  for (Value index : indices.drop_back())
    if (index == iv || varying.contains(index))
      return 0;
  return getAlignedVectorWidth(memref);
}

/// The most adjacent iterations of the innermost dimension of `loop` (of
/// constant `lower` bounds, unit innermost step and `trips`) a thread can
/// take as one vector: a power of two of at most kCudaVectorBytes per access,
/// dividing the innermost trip count and lower bound; 1 when the body does
/// not allow it. Its ops must be loads and stores along that dimension
/// (getAccessWidth), loads invariant in it, and elementwise-mappable ops
/// without effects on integers, indices and floats (the others invariant;
/// the index itself taken as a vector of indices).
static int64_t getVectorWidth(scf::ParallelOp loop, ArrayRef<int64_t> lower,
                              ArrayRef<int64_t> step, ArrayRef<int64_t> trips) {
  if (trips.empty() || step.back() != 1)
    return 1;
  Value iv = loop.getInductionVars().back();
  DenseSet<Value> varying;
  int64_t width = kCudaVectorBytes;
  bool accesses = false;
  auto isVarying = [&](Value value) {
    return value == iv || varying.contains(value);
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (op.getNumRegions() != 0)
      return 1;
    if (auto load = dyn_cast<memref::LoadOp>(&op)) {
      if (llvm::none_of(load.getIndices(), isVarying))
        continue;
      int64_t fits =
          getAccessWidth(load.getMemRef(), load.getIndices(), iv, varying);
      if (fits < 2)
        return 1;
      width = std::min(width, fits);
      varying.insert(load.getResult());
      accesses = true;
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(&op)) {
      int64_t fits =
          getAccessWidth(store.getMemRef(), store.getIndices(), iv, varying);
      if (fits < 2)
        return 1;
      width = std::min(width, fits);
      accesses = true;
      continue;
    }
    if (!isMemoryEffectFree(&op))
      return 1;
    if (llvm::none_of(op.getOperands(), isVarying))
      continue;
    if (!isElementwiseOnScalars(&op))
      return 1;
    for (Value result : op.getResults())
      varying.insert(result);
  }
  if (!accesses)
    return 1;
  while (width > 1 && (trips.back() % width != 0 || lower.back() % width != 0))
    width /= 2;
  return width;
}

/// Clones the body of `loop` for a thread taking `width` adjacent
/// iterations of its innermost dimension at once (getVectorWidth allowed
/// it), its induction variables mapped in `mapping` to the first: accesses
/// along that dimension become aligned vector loads and stores, the other
/// ops cloneOnVectors (the first index's, where they take it as a value,
/// the group's indices: getIndexVector).
static void cloneVectorBody(OpBuilder &builder, scf::ParallelOp loop,
                            int64_t width, IRMapping &mapping) {
  Value iv = loop.getInductionVars().back();
  Value first = mapping.lookupOrDefault(iv);
  Value groupIndices; // first + [0, width), built at its first use
  auto alignment = [&](MemRefType type) {
    return llvm::MaybeAlign(width * type.getElementTypeBitWidth() / 8);
  };
  auto mapped = [&](ValueRange values) {
    return llvm::map_to_vector(
        values, [&](Value v) { return mapping.lookupOrDefault(v); });
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    Location loc = op.getLoc();
    if (auto load = dyn_cast<memref::LoadOp>(&op);
        load && llvm::is_contained(load.getIndices(), iv)) {
      MemRefType type = load.getMemRefType();
      Value vector = vector::LoadOp::create(
          builder, loc, VectorType::get({width}, type.getElementType()),
          mapping.lookupOrDefault(load.getMemRef()), mapped(load.getIndices()),
          /*nontemporal=*/false, alignment(type));
      mapping.map(load.getResult(), vector);
      continue;
    }
    if (auto store = dyn_cast<memref::StoreOp>(&op)) {
      Value value =
          broadcastToWidth(builder, store.getValue().getLoc(),
                           mapping.lookupOrDefault(store.getValue()), width);
      vector::StoreOp::create(
          builder, loc, value, mapping.lookupOrDefault(store.getMemRef()),
          mapped(store.getIndices()),
          /*nontemporal=*/false, alignment(store.getMemRefType()));
      continue;
    }
    if (!llvm::is_contained(op.getOperands(), iv)) {
      cloneOnVectors(builder, op, mapping, width);
      continue;
    }
    if (!groupIndices)
      groupIndices = getIndexVector(builder, iv.getLoc(), first, width);
    mapping.map(iv, groupIndices);
    cloneOnVectors(builder, op, mapping, width);
    mapping.map(iv, first);
  }
}

/// Matches the nest of loops from `outer`: perfectly nested, of constant
/// bounds, its innermost body accumulators and ops that only read (see
/// ReductionNest).
static std::optional<ReductionNest> matchReductionNest(scf::ForOp outer) {
  ReductionNest nest;
  for (scf::ForOp loop = outer; loop;) {
    // Iterations are delinearized as indices, compared signed.
    if (!loop.getInitArgs().empty() ||
        !loop.getInductionVar().getType().isIndex() || loop.getUnsignedCmp())
      return std::nullopt;
    nest.loops.push_back(loop);
    Block *body = loop.getBody();
    auto inner = dyn_cast<scf::ForOp>(&body->front());
    loop = inner && inner->getNextNode() == body->getTerminator() ? inner
                                                                  : nullptr;
  }
  SmallVector<OpFoldResult> lbs, ubs, steps;
  for (scf::ForOp loop : nest.loops) {
    lbs.push_back(getAsOpFoldResult(loop.getLowerBound()));
    ubs.push_back(getAsOpFoldResult(loop.getUpperBound()));
    steps.push_back(getAsOpFoldResult(loop.getStep()));
  }
  if (failed(
          getConstantNest(lbs, ubs, steps, nest.lower, nest.step, nest.trips)))
    return std::nullopt;
  for (int64_t trip : nest.trips)
    nest.total *= trip;
  if (nest.total == 0)
    return std::nullopt;

  Block *body = nest.loops.back().getBody();
  auto invariant = [&](Value v) { return outer.isDefinedOutsideOfLoop(v); };
  DenseSet<Operation *> accumulatorOps;
  DenseSet<Value> written;
  for (auto store : body->getOps<memref::StoreOp>()) {
    // The accumulator's place is invariant, its update in the body.
    Operation *combine = store.getValueToStore().getDefiningOp();
    if (!combine || combine->getBlock() != body || !combine->hasOneUse() ||
        combine->getNumOperands() != 2 || !invariant(store.getMemRef()) ||
        !llvm::all_of(store.getIndices(), invariant))
      return std::nullopt;
    std::optional<std::pair<arith::AtomicRMWKind, gpu::AllReduceOperation>>
        kind = getReductionKind(combine);
    memref::LoadOp load;
    for (Value operand : combine->getOperands())
      if (auto candidate = operand.getDefiningOp<memref::LoadOp>();
          candidate && candidate->getBlock() == body &&
          candidate.getMemRef() == store.getMemRef() &&
          candidate.getIndices() == store.getIndices() &&
          candidate->hasOneUse())
        load = candidate;
    if (!kind || !load)
      return std::nullopt;
    // Accumulators in one memref could be one location combined twice an
    // iteration, which shared parts would reorder.
    if (!written.insert(getViewedMemRef(store.getMemRef())).second)
      return std::nullopt;
    nest.accumulators.push_back(
        {load, combine, store, kind->first, kind->second});
    accumulatorOps.insert(load);
    accumulatorOps.insert(combine);
    accumulatorOps.insert(store);
  }
  if (nest.accumulators.empty())
    return std::nullopt;
  // The rest reads only, never what the nest writes.
  SmallVector<Value> ivs = llvm::map_to_vector(
      nest.loops, [](scf::ForOp loop) { return loop.getInductionVar(); });
  for (Operation &op : body->without_terminator()) {
    if (accumulatorOps.contains(&op))
      continue;
    if (!isCloneable(&op))
      return std::nullopt;
    auto load = dyn_cast<memref::LoadOp>(&op);
    if (!load) {
      // Other reads (vector or affine loads) are not checked: refused.
      if (!isMemoryEffectFree(&op))
        return std::nullopt;
      continue;
    }
    if (written.contains(getViewedMemRef(load.getMemRef())))
      return std::nullopt;
    if (!readsAlong(load, ivs, invariant))
      nest.alongRows = false;
  }
  return nest;
}

/// The ops computing where the accumulators of `nest` are (their memrefs
/// and indices), transitively.
static llvm::SetVector<Operation *> getPlacingOps(const ReductionNest &nest) {
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> worklist;
  for (const Accumulator &acc : nest.accumulators)
    llvm::append_range(worklist, acc.store->getOperands().drop_front());
  while (!worklist.empty())
    if (Operation *def = worklist.pop_back_val().getDefiningOp();
        def && ops.insert(def))
      llvm::append_range(worklist, def->getOperands());
  return ops;
}

/// Matches `op` as a shared reduction (see SharedReduction): a reduction
/// nest at the top of a kernel, or the last op of a parallel loop's body
/// after ops that can be cloned. Nests of fewer than 32 iterations stay
/// one thread's; so do those of a loop of rows read across that fill the
/// GPU a thread each, or that are too short to split.
static std::optional<SharedReduction> matchSharedReduction(Operation *op) {
  SharedReduction shared;
  scf::ForOp outer;
  if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
    Block *body = loop.getBody();
    outer = dyn_cast_or_null<scf::ForOp>(body->getTerminator()->getPrevNode());
    if (!outer || !loop.getInitVals().empty() ||
        failed(getConstantNest(getAsOpFoldResult(loop.getLowerBound()),
                               getAsOpFoldResult(loop.getUpperBound()),
                               getAsOpFoldResult(loop.getStep()), shared.lower,
                               shared.step, shared.trips)))
      return std::nullopt;
    for (Operation &inner : body->without_terminator())
      if (&inner != outer && !isCloneable(&inner))
        return std::nullopt;
    shared.parallel = loop;
    for (int64_t trip : shared.trips)
      shared.rows *= trip;
    if (shared.rows == 0)
      return std::nullopt;
  } else {
    outer = dyn_cast<scf::ForOp>(op);
    if (!outer)
      return std::nullopt;
  }
  std::optional<ReductionNest> nest = matchReductionNest(outer);
  if (!nest || nest->total < kMinSharedReduction)
    return std::nullopt;
  bool fewRows = shared.rows < kFewRows;
  shared.threadPerRow = !nest->alongRows && !fewRows;
  shared.nest = std::move(*nest);
  int64_t total = shared.nest.total;
  // A second launch, combining chunks' totals, finds the accumulators
  // again: not through memory, which the first launch may have written.
  bool placedByReads =
      llvm::any_of(getPlacingOps(shared.nest),
                   [](Operation *op) { return !isMemoryEffectFree(op); });
  int64_t rowBlocks = llvm::divideCeil(shared.rows, kThreadsPerBlock);
  if (shared.threadPerRow && !placedByReads)
    shared.splits = std::min(llvm::divideCeil(total, kElementsPerThread),
                             llvm::divideCeil(kBlocksToFill, rowBlocks));
  else if (fewRows && !placedByReads)
    shared.splits = std::max<int64_t>(
        1, std::min(llvm::divideCeil(total, kElementsPerBlock),
                    llvm::divideCeil(kBlocksToFill, shared.rows)));
  // Chunks of one length, none empty.
  shared.splits =
      llvm::divideCeil(total, llvm::divideCeil(total, shared.splits));
  if (shared.threadPerRow) {
    if (shared.splits < 2 ||
        rowBlocks * shared.splits > std::numeric_limits<int32_t>::max())
      return std::nullopt;
    return shared;
  }
  if (shared.splits == 1)
    shared.threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(total),
                                         kMinSharedReduction, kThreadsPerBlock);
  if (shared.rows * shared.splits > std::numeric_limits<int32_t>::max())
    return std::nullopt;
  return shared;
}

/// Replaces `op` (matched as `shared`) by the launches of its shared
/// reduction, which the mapper outlines as written: chunk partials in
/// buffers of their own.
static void rewriteSharedReduction(Operation *op, SharedReduction &shared) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  ReductionNest &nest = shared.nest;
  int64_t splits = shared.splits;
  SmallVector<Value> partials;
  if (splits > 1)
    for (Accumulator &acc : nest.accumulators)
      partials.push_back(memref::AllocOp::create(
          builder, loc,
          MemRefType::get({shared.rows * splits},
                          acc.combine->getResult(0).getType())));
  DenseSet<Operation *> accumulatorOps;
  for (const Accumulator &acc : nest.accumulators) {
    accumulatorOps.insert(acc.load);
    accumulatorOps.insert(acc.combine);
    accumulatorOps.insert(acc.store);
  }

  // A launch of `blocks` blocks of `threads` threads whose body `emit`
  // writes from the block and thread ids.
  auto launch = [&](int64_t blocks, int64_t threads,
                    function_ref<void(OpBuilder &, Value, Value)> emit) {
    Value one = index(builder, 1);
    Value gridX = index(builder, blocks);
    Value blockX = index(builder, threads);
    auto launchOp =
        gpu::LaunchOp::create(builder, loc, gridX, one, one, blockX, one, one);
    OpBuilder b = OpBuilder::atBlockBegin(&launchOp.getBody().front());
    emit(b, launchOp.getBlockIds().x, launchOp.getThreadIds().x);
    gpu::TerminatorOp::create(b, loc);
  };
  // The parallel loop's iteration `row`: its induction variables and the
  // ops before the nest (only those in `only` where given).
  auto enterRow = [&](OpBuilder &b, Value row, IRMapping &mapping,
                      const llvm::SetVector<Operation *> *only = nullptr) {
    if (!shared.parallel)
      return;
    for (auto [iv, value] : llvm::zip(
             shared.parallel.getInductionVars(),
             delinearize(b, loc, row, shared.lower, shared.step, shared.trips)))
      mapping.map(iv, value);
    for (Operation &pre : shared.parallel.getBody()->without_terminator()) {
      if (&pre == nest.loops.front())
        break;
      if (!only || only->contains(&pre))
        b.clone(pre, mapping);
    }
  };
  // What a launch combining chunks' totals needs of the ops before the
  // nest.
  llvm::SetVector<Operation *> placing = getPlacingOps(nest);
  // A thread's parts from `first` to `end` by `stride`, each value from
  // `contribute` (or, where it gives none, the nest body's contribution
  // it cloned) combined into them from the identities.
  auto accumulate =
      [&](OpBuilder &b, Value first, Value end, int64_t stride,
          function_ref<SmallVector<Value>(OpBuilder &, Value, IRMapping &)>
              contribute,
          IRMapping &mapping) {
        SmallVector<Value> identities;
        for (Accumulator &acc : nest.accumulators)
          identities.push_back(arith::getIdentityValue(
              acc.kind, acc.combine->getResult(0).getType(), b, loc));
        auto loop = scf::ForOp::create(
            b, loc, first, end, index(b, stride), identities,
            [&](OpBuilder &ib, Location, Value iv, ValueRange parts) {
              IRMapping inner = mapping;
              SmallVector<Value> values = contribute(ib, iv, inner);
              SmallVector<Value> next;
              for (auto [acc, part, value] :
                   llvm::zip(nest.accumulators, parts, values)) {
                inner.map(acc.load.getResult(), part);
                for (Value operand : acc.combine->getOperands())
                  if (operand != acc.load.getResult() && value)
                    inner.map(operand, value);
                next.push_back(ib.clone(*acc.combine, inner)->getResult(0));
              }
              scf::YieldOp::create(ib, loc, next);
            });
        return SmallVector<Value>(loop.getResults());
      };
  // The nest's iteration `linear`: its body but the accumulators.
  Block *body = nest.loops.back().getBody();
  auto runNest = [&](OpBuilder &b, Value linear, IRMapping &mapping) {
    for (auto [loop, iv] :
         llvm::zip(nest.loops, delinearize(b, loc, linear, nest.lower,
                                           nest.step, nest.trips)))
      mapping.map(loop.getInductionVar(), iv);
    for (Operation &op : body->without_terminator())
      if (!accumulatorOps.contains(&op))
        b.clone(op, mapping);
    return SmallVector<Value>(nest.accumulators.size());
  };
  // The block's totals of the threads' `parts`.
  auto allReduce = [&](OpBuilder &b, ValueRange parts) {
    SmallVector<Value> totals;
    for (auto [acc, part] : llvm::zip(nest.accumulators, parts))
      totals.push_back(gpu::AllReduceOp::create(
          b, loc, part,
          gpu::AllReduceOperationAttr::get(b.getContext(), acc.op),
          b.getUnitAttr()));
    return totals;
  };
  // Each accumulator combined with its total.
  auto combineInto = [&](OpBuilder &b, ValueRange totals, IRMapping &mapping) {
    for (auto [acc, total] : llvm::zip(nest.accumulators, totals)) {
      IRMapping outer = mapping;
      Operation *load = b.clone(*acc.load, outer);
      outer.map(acc.load.getResult(), load->getResult(0));
      for (Value operand : acc.combine->getOperands())
        if (operand != acc.load.getResult())
          outer.map(operand, total);
      b.clone(*acc.combine, outer);
      b.clone(*acc.store, outer);
    }
  };
  // A builder inside `if (condition)`.
  auto inside = [&](OpBuilder &b, Value condition) {
    auto guard = scf::IfOp::create(b, loc, condition);
    return OpBuilder::atBlockTerminator(guard.thenBlock());
  };
  auto isFirst = [&](OpBuilder &b, Value thread) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, thread,
                                 index(b, 0));
  };
  // Chunk `split`'s first iteration plus `offset`, and its end.
  int64_t rows = shared.rows;
  int64_t total = nest.total;
  int64_t chunk = llvm::divideCeil(total, splits);
  auto chunkBounds = [&](OpBuilder &b, Value split, Value offset) {
    Value start = arith::MulIOp::create(b, loc, split, index(b, chunk));
    Value first = start;
    if (offset)
      first = arith::AddIOp::create(b, loc, start, offset);
    // Created one by one (not as call arguments, whose order C++ leaves
    // open): the IR is the same with every compiler.
    Value limit = arith::AddIOp::create(b, loc, start, index(b, chunk));
    Value end = arith::MinUIOp::create(b, loc, limit, index(b, total));
    return std::pair(first, end);
  };
  // Where chunk `split` of `row` keeps its totals.
  auto partialAt = [&](OpBuilder &b, Value split, Value row) -> Value {
    if (rows == 1)
      return split;
    return arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, split, index(b, rows)), row);
  };
  // `block` as (`count` blocks of a row index, its chunk), blocks of one
  // chunk adjacent.
  auto splitBlock = [&](OpBuilder &b, Value block, int64_t count) {
    if (count == 1)
      return std::pair(index(b, 0), block);
    Value within = arith::RemUIOp::create(b, loc, block, index(b, count));
    Value split = arith::DivUIOp::create(b, loc, block, index(b, count));
    return std::pair(within, split);
  };

  if (shared.threadPerRow) {
    // A thread per chunk of a row, the rows of a block adjacent (so are
    // their reads); then a thread per row combining its chunks' totals.
    int64_t rowBlocks = llvm::divideCeil(rows, kThreadsPerBlock);
    auto rowOf = [&](OpBuilder &b, Value rowBlock, Value thread) {
      Value row = arith::AddIOp::create(
          b, loc,
          arith::MulIOp::create(b, loc, rowBlock, index(b, kThreadsPerBlock)),
          thread);
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          row, index(b, rows));
      return std::pair<Value, Value>(row, valid);
    };
    launch(rowBlocks * splits, kThreadsPerBlock,
           [&](OpBuilder &b, Value block, Value thread) {
             auto [rowBlock, split] = splitBlock(b, block, rowBlocks);
             auto [row, valid] = rowOf(b, rowBlock, thread);
             OpBuilder ib = inside(b, valid);
             IRMapping mapping;
             enterRow(ib, row, mapping);
             auto [first, end] = chunkBounds(ib, split, Value());
             SmallVector<Value> parts =
                 accumulate(ib, first, end, 1, runNest, mapping);
             Value at = partialAt(ib, split, row);
             for (auto [partial, part] : llvm::zip(partials, parts))
               memref::StoreOp::create(ib, loc, part, partial, at);
           });
    launch(rowBlocks, kThreadsPerBlock,
           [&](OpBuilder &b, Value block, Value thread) {
             std::pair<Value, Value> place = rowOf(b, block, thread);
             Value row = place.first;
             OpBuilder ib = inside(b, place.second);
             IRMapping mapping;
             enterRow(ib, row, mapping, &placing);
             Value zero = index(ib, 0);
             Value count = index(ib, splits);
             SmallVector<Value> parts = accumulate(
                 ib, zero, count, 1,
                 [&](OpBuilder &lb, Value split, IRMapping &) {
                   Value at = partialAt(lb, split, row);
                   return llvm::map_to_vector(
                       partials, [&](Value partial) -> Value {
                         return memref::LoadOp::create(lb, loc, partial, at);
                       });
                 },
                 mapping);
             combineInto(ib, parts, mapping);
           });
    op->erase();
    return;
  }

  // A block per chunk of a row: the chunk's iterations taken by its
  // threads in turn (adjacent iterations on adjacent threads), the blocks
  // of one chunk of every row adjacent, so that rows read across (columns)
  // share the cache lines of their chunk.
  launch(rows * splits, shared.threads,
         [&](OpBuilder &b, Value block, Value thread) {
           IRMapping mapping;
           Value row = block, first = thread, end = index(b, total);
           if (splits > 1) {
             Value split;
             std::tie(row, split) = splitBlock(b, block, rows);
             std::tie(first, end) = chunkBounds(b, split, thread);
           }
           enterRow(b, row, mapping);
           SmallVector<Value> totals = allReduce(
               b, accumulate(b, first, end, shared.threads, runNest, mapping));
           OpBuilder tb = inside(b, isFirst(b, thread));
           if (splits == 1)
             return combineInto(tb, totals, mapping);
           for (auto [partial, total] : llvm::zip(partials, totals))
             memref::StoreOp::create(tb, loc, total, partial, block);
         });
  if (splits == 1) {
    op->erase();
    return;
  }

  // A block per row combining its chunks' totals.
  int64_t threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(splits),
                                        kMinSharedReduction, kThreadsPerBlock);
  launch(rows, threads, [&](OpBuilder &b, Value block, Value thread) {
    IRMapping mapping;
    enterRow(b, block, mapping, &placing);
    SmallVector<Value> parts = accumulate(
        b, thread, index(b, splits), threads,
        [&](OpBuilder &ib, Value split, IRMapping &) {
          Value at = partialAt(ib, split, block);
          return llvm::map_to_vector(partials, [&](Value partial) -> Value {
            return memref::LoadOp::create(ib, loc, partial, at);
          });
        },
        mapping);
    SmallVector<Value> totals = allReduce(b, parts);
    OpBuilder tb = inside(b, isFirst(b, thread));
    combineInto(tb, totals, mapping);
  });
  op->erase();
}

namespace {
/// A parallel step of a block program whose iterations (rows) are at most
/// half the block's threads, each reducing along a row with a
/// sequential loop: `lanes` adjacent threads share a row, each taking
/// every `lanes`-th term, and combine their parts with warp shuffles.
struct SplitRows {
  /// The row's reduction: a loop of constant bounds whose iteration
  /// arguments are each combined once an iteration (`combines`) with a
  /// term, its other ops reading memory at most.
  scf::ForOp reduction;
  SmallVector<Operation *> combines;
  SmallVector<arith::AtomicRMWKind> kinds;
  /// Threads per row: a power of two from 2 to 32.
  int64_t lanes = 1;
};
} // namespace

/// Matches each value `loop` carries as combined once an iteration with a
/// term (add, max, ... of f32 or i32: getReductionKind), the combining op
/// into `combines`, its kind into `kinds`; the bounds must be constant,
/// the lower one not negative (the parts' loops compare unsigned).
static LogicalResult
matchCombines(scf::ForOp loop, SmallVectorImpl<Operation *> &combines,
              SmallVectorImpl<arith::AtomicRMWKind> &kinds) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  if (!lower || *lower < 0 || !getConstantIntValue(loop.getUpperBound()) ||
      !getConstantIntValue(loop.getStep()))
    return failure();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [argument, yielded] :
       llvm::zip(loop.getRegionIterArgs(), yield.getOperands())) {
    Operation *combine = yielded.getDefiningOp();
    std::optional<std::pair<arith::AtomicRMWKind, gpu::AllReduceOperation>>
        kind = combine ? getReductionKind(combine) : std::nullopt;
    if (!kind || combine->getBlock() != loop.getBody() ||
        !argument.hasOneUse() || !yielded.hasOneUse() ||
        llvm::count(combine->getOperands(), argument) != 1)
      return failure();
    combines.push_back(combine);
    kinds.push_back(kind->first);
  }
  return success();
}

/// Whether the body of `loop` only reads memory (its ops can be cloned).
static bool onlyReadsInBody(scf::ForOp loop) {
  return llvm::all_of(loop.getBody()->without_terminator(),
                      [](Operation &op) { return isCloneable(&op); });
}

/// The loop reducing each iteration's row in `loop` (a parallel step of a
/// block program), or null: before it, ops that only read; the loop has
/// results, and its body only reads memory; after it, anything.
static scf::ForOp getRowReduction(scf::ParallelOp loop) {
  scf::ForOp reduction;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (reduction)
      break;
    auto candidate = dyn_cast<scf::ForOp>(&op);
    if (candidate && candidate->getNumResults() != 0)
      reduction = candidate;
    else if (!isCloneable(&op))
      return nullptr;
  }
  if (!reduction || !onlyReadsInBody(reduction))
    return nullptr;
  return reduction;
}

/// Whether each of the `rows` iterations of `loop` (a parallel step of a
/// block program of `threads` threads) is a row reduction (getRowReduction)
/// of constant bounds, each iteration argument combined once, to split
/// over several threads (SplitRows).
static std::optional<SplitRows> matchSplitRows(scf::ParallelOp loop,
                                               int64_t rows, int64_t threads) {
  if (rows == 0)
    return std::nullopt;
  SplitRows split;
  split.lanes = std::min<int64_t>(
      kMinSharedReduction, int64_t(llvm::bit_floor(uint64_t(threads / rows))));
  split.reduction = getRowReduction(loop);
  scf::ForOp reduction = split.reduction;
  if (split.lanes < 2 || !reduction)
    return std::nullopt;
  std::optional<APInt> trips = reduction.getStaticTripCount();
  if (!trips || failed(matchCombines(reduction, split.combines, split.kinds)))
    return std::nullopt;
  split.lanes = std::min<int64_t>(
      split.lanes, int64_t(llvm::bit_floor(trips->getZExtValue())));
  if (split.lanes < 2)
    return std::nullopt;
  return split;
}

/// Whether `loop`, a step of a block program (directly in its body), is a
/// reduction the whole block shares (a row's sum or max where the tile is
/// one row): it carries values, each combined once an iteration, its
/// bounds constant and its body only reading memory.
static bool isBlockReduction(Operation *op) {
  auto loop = dyn_cast<scf::ForOp>(op);
  SmallVector<Operation *> combines;
  SmallVector<arith::AtomicRMWKind> kinds;
  return loop && loop->getNumResults() != 0 && onlyReadsInBody(loop) &&
         succeeded(matchCombines(loop, combines, kinds));
}

/// The most iterations of a parallel step one thread runs at once
/// (jammed): each of its sums a register, and their loop one loop.
static constexpr int64_t kMaxJammed = 16;

/// How many iterations of `loop` (a parallel step of a block program of
/// `threads` threads, `total` iterations) each thread runs jammed, or 1:
/// where each iteration is a row reduction (getRowReduction) whose bounds
/// all iterations share and every thread takes the same number of
/// iterations (2 to kMaxJammed), its iterations' terms are taken in one
/// loop, whose loads of a place common to them (the iterations a thread
/// takes share row or column indices, emitJammed) are one.
static int64_t getJammedIterations(scf::ParallelOp loop, int64_t total,
                                   int64_t threads) {
  scf::ForOp reduction = getRowReduction(loop);
  if (!reduction || total % threads != 0 || total / threads < 2 ||
      total / threads > kMaxJammed)
    return 1;
  for (Value bound : {reduction.getLowerBound(), reduction.getUpperBound(),
                      reduction.getStep()})
    if (!loop.isDefinedOutsideOfLoop(bound))
      return 1;
  return total / threads;
}

/// How a thread's `jammed` iterations of a parallel step of `trips` (2 or
/// more dimensions) lie over its last two, rows x columns with rows *
/// columns = `jammed`, each dividing its dimension: the split with the
/// fewest rows plus columns, more columns on a tie. In a product, whose
/// rows read one operand and columns the other, that is the fewest
/// distinct loads a term (4 + 4 for 16 outputs, where 16 rows of one
/// column load 16 + 1). Null when no split divides the dimensions.
static std::optional<std::pair<int64_t, int64_t>>
getJammedGrid(ArrayRef<int64_t> trips, int64_t jammed) {
  if (trips.size() < 2)
    return std::nullopt;
  int64_t rows = trips[trips.size() - 2], cols = trips.back();
  std::optional<std::pair<int64_t, int64_t>> best;
  for (int64_t c = 1; c <= jammed; ++c) {
    int64_t r = jammed / c;
    if (jammed % c || cols % c || rows % r)
      continue;
    if (!best || r + c <= best->first + best->second)
      best = {r, c};
  }
  return best;
}

static bool isBlockProgramBody(Block *body);

/// Whether `loop` is a sequential loop every thread of a block runs
/// (uniformly): no results, a parallel loop inside (directly or in such a
/// loop) and a body of block program steps. Another loop runs on thread 0.
static bool isUniformLoop(Operation *op) {
  auto loop = dyn_cast<scf::ForOp>(op);
  if (!loop || loop->getNumResults() != 0)
    return false;
  bool steps =
      llvm::any_of(loop.getBody()->without_terminator(), [](Operation &op) {
        return isa<scf::ParallelOp>(op) || isUniformLoop(&op);
      });
  return steps && isBlockProgramBody(loop.getBody());
}

/// Whether the steps of `body` (a tile's, or a uniform loop's) can run as
/// a block program: static contiguous allocations (in the default memory
/// space, or in shared memory where outline has moved them), parallel loops
/// with static bounds and no reductions, uniform loops of such steps, other ops
/// without results used later (thread 0 runs them), no nested forall and
/// no allocation elsewhere.
static bool isBlockProgramBody(Block *body) {
  for (Operation &op : body->without_terminator()) {
    if (auto alloc = dyn_cast<memref::AllocOp>(&op)) {
      Attribute space = alloc.getType().getMemorySpace();
      if (!alloc->getOperands().empty() || !alloc.getType().hasStaticShape() ||
          !alloc.getType().getLayout().isIdentity() ||
          (space && !gpu::GPUDialect::isWorkgroupMemoryAddressSpace(space)) ||
          !alloc.getType().getElementType().isIntOrFloat())
        return false;
      continue;
    }
    if (isUniformLoop(&op) || isBlockReduction(&op))
      continue;
    if (auto loop = dyn_cast<scf::ParallelOp>(&op)) {
      SmallVector<int64_t> l, st, t;
      if (!loop.getInitVals().empty() ||
          failed(getConstantNest(getAsOpFoldResult(loop.getLowerBound()),
                                 getAsOpFoldResult(loop.getUpperBound()),
                                 getAsOpFoldResult(loop.getStep()), l, st, t)))
        return false;
    } else if (!isCloneable(&op) && !isa<memref::DeallocOp>(&op) &&
               !op.use_empty()) {
      // Run by thread 0 alone: its results would exist there only.
      return false;
    }
    bool nested = false;
    op.walk([&](Operation *inner) {
      nested |= isa<scf::ForallOp, memref::AllocaOp>(inner) ||
                (inner != &op && isa<memref::AllocOp>(inner));
    });
    if (nested)
      return false;
  }
  return true;
}

/// Whether `forall` (a tiled loop, bufferized) can run as a block per
/// iteration: static bounds, no results, a block program body with at
/// least one parallel loop.
static bool isBlockProgram(scf::ForallOp forall) {
  SmallVector<int64_t> lower, step, trips;
  if (!forall.getOutputs().empty() ||
      failed(getConstantNest(forall.getMixedLowerBound(),
                             forall.getMixedUpperBound(),
                             forall.getMixedStep(), lower, step, trips)))
    return false;
  bool anyParallel = false;
  forall.getBody()->walk([&](scf::ParallelOp) { anyParallel = true; });
  return anyParallel && isBlockProgramBody(forall.getBody());
}

/// Whether every use of `memref`, followed through views, is a view, a
/// load, a store into it or a dealloc (vector loads and stores included):
/// nothing reads or writes it behind a value of another kind (a cast to an
/// unranked memref, a select, a call).
static bool hasOnlyPlainUses(Value memref) {
  for (OpOperand &use : memref.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::LoadOp, memref::DeallocOp, vector::LoadOp, vector::StoreOp>(
            user))
      continue;
    if (auto store = dyn_cast<memref::StoreOp>(user);
        store && store.getValueToStore() != memref)
      continue;
    auto view = dyn_cast<ViewLikeOpInterface>(user);
    if (!view || view.getViewSource() != memref ||
        !llvm::all_of(user->getResults(), hasOnlyPlainUses))
      return false;
  }
  return true;
}

/// An accumulator of a block program's loop in its tile's memory: the load
/// and the store of its place.
using TileAccumulator = std::pair<memref::LoadOp, memref::StoreOp>;

/// The accumulators of `loop` (constant bounds, at least one iteration)
/// that can be carried in registers: each a place of a tile's own
/// allocation (`isTileAllocation`), invariant in the loop, loaded and then
/// stored once an iteration directly in its body and touched by nothing
/// else in it. Nothing else can see the place meanwhile: the allocation is
/// fresh and reached only through views, loads and stores, and in the loop
/// only those two ops reach it.
static SmallVector<TileAccumulator>
findAccumulators(scf::ForOp loop,
                 function_ref<bool(memref::AllocOp)> isTileAllocation) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  SmallVector<TileAccumulator> found;
  if (!lower || !upper || *lower >= *upper)
    return found;
  Block *body = loop.getBody();
  for (auto store : body->getOps<memref::StoreOp>()) {
    Value root = getViewedMemRef(store.getMemRef());
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc || !isTileAllocation(alloc) ||
        !loop.isDefinedOutsideOfLoop(store.getMemRef()) ||
        !llvm::all_of(store.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    memref::LoadOp load;
    bool other = false;
    body->walk([&](Operation *op) {
      if (op == store.getOperation())
        return;
      bool reaches = llvm::any_of(op->getOperands(), [&](Value operand) {
        return isa<BaseMemRefType>(operand.getType()) &&
               getViewedMemRef(operand) == root;
      });
      if (!reaches)
        return;
      auto candidate = dyn_cast<memref::LoadOp>(op);
      if (!load && candidate && candidate->getBlock() == body &&
          candidate.getMemRef() == store.getMemRef() &&
          candidate.getIndices() == store.getIndices() &&
          candidate->isBeforeInBlock(store))
        load = candidate;
      else
        other = true;
    });
    if (load && !other)
      found.emplace_back(load, store);
  }
  return found;
}

/// Carries each accumulator of `loop` (findAccumulators) in registers: it
/// is loaded before the loop, an iteration argument inside it and stored
/// after it.
static void
promoteAccumulators(scf::ForOp loop,
                    function_ref<bool(memref::AllocOp)> isTileAllocation) {
  SmallVector<TileAccumulator> found = findAccumulators(loop, isTileAllocation);
  if (found.empty())
    return;
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits;
  for (auto [load, store] : found)
    inits.push_back(memref::LoadOp::create(
        rewriter, load.getLoc(), store.getMemRef(), store.getIndices()));
  FailureOr<LoopLikeOpInterface> promoted = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument> arguments) {
        // Every load replaced first: one accumulator's stored value may be
        // another's load.
        for (auto [place, argument] : llvm::zip(found, arguments))
          rewriter.replaceAllUsesWith(place.first.getResult(), argument);
        return llvm::map_to_vector(
            found, [](auto place) { return place.second.getValueToStore(); });
      });
  if (failed(promoted))
    return;
  auto newLoop = cast<scf::ForOp>(promoted->getOperation());
  rewriter.setInsertionPointAfter(newLoop);
  unsigned first = newLoop.getNumResults() - found.size();
  for (auto [i, place] : llvm::enumerate(found)) {
    memref::StoreOp store = place.second;
    memref::StoreOp::create(rewriter, store.getLoc(),
                            newLoop.getResult(first + i), store.getMemRef(),
                            store.getIndices());
    rewriter.eraseOp(store);
  }
  for (auto [load, store] : found)
    rewriter.eraseOp(load);
}

/// Whether `loop` (a step of a tile) only reads memory but for sums into
/// the tile's own allocations that promoteAccumulators carries
/// (findAccumulators), each `store(combine(load(acc[idx]), term),
/// acc[idx])` (getReductionKind): it then carries only such sums and is a
/// block reduction (isBlockReduction).
static bool
isBlockAccumulation(scf::ForOp loop,
                    function_ref<bool(memref::AllocOp)> isTileAllocation) {
  if (loop->getNumResults() != 0 || !getConstantIntValue(loop.getStep()))
    return false;
  SmallVector<TileAccumulator> found = findAccumulators(loop, isTileAllocation);
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (isCloneable(&op))
      continue;
    const TileAccumulator *acc = llvm::find_if(
        found, [&](const TileAccumulator &a) { return a.second == &op; });
    if (acc == found.end())
      return false;
    auto [load, store] = *acc;
    Operation *combine = store.getValueToStore().getDefiningOp();
    if (!combine || combine->getBlock() != body || !getReductionKind(combine) ||
        !combine->hasOneUse() || !load->hasOneUse() ||
        llvm::count(combine->getOperands(), load.getResult()) != 1)
      return false;
  }
  return !found.empty();
}

/// Promotes the accumulators (promoteAccumulators) of the loops inside
/// the parallel loops of `forall`, a block program: a product's or a row
/// reduction's sum then stays in a register instead of being loaded and
/// stored in memory at every term.
static void promoteAccumulators(scf::ForallOp forall) {
  DenseSet<Operation *> plain;
  forall.getBody()->walk([&](memref::AllocOp alloc) {
    if (hasOnlyPlainUses(alloc.getResult()))
      plain.insert(alloc);
  });
  auto isTileAllocation = [&](memref::AllocOp alloc) {
    return plain.contains(alloc);
  };
  SmallVector<scf::ForOp> loops;
  forall.getBody()->walk([&](scf::ForOp loop) {
    if (auto parallel = loop->getParentOfType<scf::ParallelOp>();
        parallel && forall->isProperAncestor(parallel))
      loops.push_back(loop);
  });
  // A step of the tile that reduces into its own allocation (the tile is
  // one row): promoted only where every store of the loop is such a sum,
  // so that the loop then only reads and becomes a block reduction.
  for (auto loop : forall.getBody()->getOps<scf::ForOp>())
    if (isBlockAccumulation(loop, isTileAllocation))
      loops.push_back(loop);
  for (scf::ForOp loop : loops)
    promoteAccumulators(loop, isTileAllocation);
}

/// Moves `memref` and every view of it to shared (workgroup) memory: their
/// types take that memory space. The caller has checked that nothing but
/// views, loads, stores and deallocations reach it (hasOnlyPlainUses).
static void moveToSharedMemory(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  auto workgroup = gpu::AddressSpaceAttr::get(memref.getContext(),
                                              gpu::AddressSpace::Workgroup);
  memref.setType(MemRefType::Builder(type).setMemorySpace(workgroup));
  for (Operation *user : memref.getUsers())
    if (auto view = dyn_cast<ViewLikeOpInterface>(user);
        view && view.getViewSource() == memref)
      for (Value result : user->getResults())
        if (isa<MemRefType>(result.getType()))
          moveToSharedMemory(result);
}

namespace {
/// Top-level ops of a kernel that run as one launch.
struct LaunchGroup {
  /// A parallel loop (its only op), a tiled loop run as a block per tile
  /// (its only op), a launch already written (its only op), else a run of
  /// effectful ops.
  scf::ParallelOp loop;
  SmallVector<Operation *> ops;
  scf::ForallOp forall;
  gpu::LaunchOp launch;

  /// Whether the group is a run that later effectful ops may join.
  bool isRun() const { return !loop && !forall && !launch; }
};

/// Maps one kernel function.
class KernelMapper {
public:
  KernelMapper(func::FuncOp func, gpu::GPUModuleOp gpuModule)
      : func(func), gpuModule(gpuModule) {}

  LogicalResult map() {
    Block &body = func.getBody().front();
    // Reductions shared by threads become launches as written.
    for (Operation &op : llvm::make_early_inc_range(body))
      if (std::optional<SharedReduction> shared = matchSharedReduction(&op))
        rewriteSharedReduction(&op, *shared);
    // Scratch buffers first: a launch takes the place of its group's first
    // op, and may use an allocation made between its ops.
    Operation *firstNonAlloc = nullptr;
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto alloc = dyn_cast<memref::AllocOp>(&op);
      if (!alloc || !alloc->getOperands().empty()) {
        if (!firstNonAlloc)
          firstNonAlloc = &op;
        continue;
      }
      if (firstNonAlloc)
        alloc->moveBefore(firstNonAlloc);
    }
    SmallVector<LaunchGroup> groups;
    // Cloneable ops after the last effectful op of an open run: they join
    // it only if another effectful op follows.
    SmallVector<Operation *> pending;
    for (Operation &op : body.without_terminator()) {
      if (auto alloca = dyn_cast<memref::AllocaOp>(&op))
        return alloca.emitError("expected heap allocations at the top of a "
                                "kernel mapped to the GPU, but found a "
                                "stack allocation");
      if (auto alloc = dyn_cast<memref::AllocOp>(&op)) {
        if (!alloc.getType().hasStaticShape() ||
            !alloc.getType().getLayout().isIdentity())
          return alloc.emitError("expected a static, contiguous scratch "
                                 "buffer, but found ")
                 << alloc.getType();
        continue;
      }
      // Deallocations, and TMA tensor maps (ms-cuda-tile-matmul's), which
      // the runtime makes for a launch that takes them, stay on the host.
      if (isa<memref::DeallocOp, nvgpu::TmaCreateDescriptorOp>(&op))
        continue;
      if (isCloneable(&op)) {
        if (!groups.empty() && groups.back().isRun())
          pending.push_back(&op);
        continue;
      }
      if (auto loop = dyn_cast<scf::ParallelOp>(&op)) {
        pending.clear();
        groups.push_back({loop, {loop}, nullptr, nullptr});
        continue;
      }
      if (auto forall = dyn_cast<scf::ForallOp>(&op)) {
        if (isBlockProgram(forall)) {
          promoteAccumulators(forall);
          pending.clear();
          groups.push_back({nullptr, {forall}, forall, nullptr});
          continue;
        }
        // Tensor-core products (ms-cuda-tile-matmul's) need a block's warps.
        if (forall->walk([](NVVM::MmaOp) { return WalkResult::interrupt(); })
                .wasInterrupted())
          return forall.emitError("expected a tiled loop whose products run "
                                  "on tensor cores to run as a block "
                                  "program, but it cannot");
      }
      if (auto launch = dyn_cast<gpu::LaunchOp>(&op)) {
        pending.clear();
        groups.push_back({nullptr, {launch}, nullptr, launch});
        continue;
      }
      if (groups.empty() || !groups.back().isRun())
        groups.emplace_back();
      llvm::append_range(groups.back().ops, pending);
      pending.clear();
      groups.back().ops.push_back(&op);
    }
    for (auto [index, group] : llvm::enumerate(groups))
      if (failed(outline(group, index)))
        return failure();
    // Loads left on the host were cloned where used; none may remain.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (op.use_empty() && onlyReads(&op))
        op.erase();
    for (Operation *op : llvm::reverse(leftovers))
      if (op->use_empty())
        op->erase();
    return success();
  }

private:
  /// Makes `group` a GPU function and launches it in its place.
  LogicalResult outline(LaunchGroup &group, size_t index) {
    Operation *first = group.ops.front();
    Location loc = first->getLoc();
    DenseSet<Operation *> inGroup(group.ops.begin(), group.ops.end());

    // A launch as written: one-dimensional, of constant shape and dynamic
    // shared memory.
    std::pair<int64_t, int64_t> writtenShape;
    std::optional<int64_t> dynamicShared;
    if (gpu::LaunchOp launch = group.launch) {
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      std::optional<int64_t> gx = getConstantIntValue(grid.x),
                             bx = getConstantIntValue(block.x);
      if (Value bytes = launch.getDynamicSharedMemorySize())
        dynamicShared = getConstantIntValue(bytes);
      if (!gx || !bx || getConstantIntValue(grid.y) != 1 ||
          getConstantIntValue(grid.z) != 1 ||
          getConstantIntValue(block.y) != 1 ||
          getConstantIntValue(block.z) != 1 || launch.getAsyncToken() ||
          (launch.getDynamicSharedMemorySize() && !dynamicShared) ||
          launch.hasClusterSize() || launch.getNumPrivateAttributions() != 0 ||
          !launch.getBody().hasOneBlock())
        return launch.emitError("expected a synchronous launch of constant "
                                "x-only grid and block sizes and dynamic "
                                "shared memory size in one block");
      writtenShape = {*gx, *bx};
    }

    // What the group reads from outside: memrefs become parameters; values
    // of ops without effects are cloned in (with what they read).
    llvm::SetVector<Value> params;
    // A block program's allocations: a buffer in the block's shared memory
    // where they fit and only views, loads and stores reach them, else one
    // global scratch buffer, a slice per block.
    int64_t blockScratch = 0;
    bool sharedScratch = false;
    SmallVector<int64_t> lower, step, trips;
    if (scf::ForallOp forall = group.forall) {
      (void)getConstantNest(forall.getMixedLowerBound(),
                            forall.getMixedUpperBound(), forall.getMixedStep(),
                            lower, step, trips);
      bool plain = true;
      forall.getBody()->walk([&](memref::AllocOp alloc) {
        blockScratch += getAlignedBytes(alloc.getType());
        plain &= hasOnlyPlainUses(alloc.getResult());
      });
      int64_t tiles = 1;
      for (int64_t trip : trips)
        tiles *= trip;
      if (tiles == 0) {
        forall.erase();
        return success();
      }
      // Each block reduction's gpu.all_reduce takes a warp's worth of its
      // values in shared memory once lowered.
      int64_t reductionBytes = 0;
      forall.getBody()->walk([&](scf::ForOp loop) {
        if (!loop->getParentOfType<scf::ParallelOp>() && isBlockReduction(loop))
          for (Type type : loop->getResultTypes())
            reductionBytes +=
                kMinSharedReduction * type.getIntOrFloatBitWidth() / 8;
      });
      sharedScratch = blockScratch && plain &&
                      blockScratch + reductionBytes <= kMaxSharedScratch;
      if (sharedScratch) {
        forall.getBody()->walk([&](memref::AllocOp alloc) {
          moveToSharedMemory(alloc.getResult());
        });
      } else if (blockScratch) {
        OpBuilder at(first);
        auto scratch = memref::AllocOp::create(
            at, loc,
            MemRefType::get({tiles * blockScratch},
                            at.getI8Type()));
        params.insert(scratch);
      }
    }
    llvm::SetVector<Operation *> cloned;
    std::function<LogicalResult(Value, Operation *)> capture =
        [&](Value value, Operation *user) -> LogicalResult {
      if (params.contains(value))
        return success();
      // A TMA tensor map (ms-cuda-tile-matmul's) is the host's.
      if (isa<nvgpu::TensorMapDescriptorType>(value.getType())) {
        params.insert(value);
        return success();
      }
      Operation *def = value.getDefiningOp();
      if (!def || isa<memref::AllocOp>(def)) {
        if (!isa<MemRefType>(value.getType()))
          return user->emitError("expected kernel arguments mapped to the "
                                 "GPU to be memrefs, but found ")
                 << value.getType();
        params.insert(value);
        return success();
      }
      if (cloned.contains(def))
        return success();
      if (!isCloneable(def) ||
          (onlyReads(def) && writesBetween(def, group.ops.front())))
        return user->emitError("cannot map this kernel to the GPU: it uses "
                               "a value computed by another launch ('")
               << def->getName() << "'), not passed through memory";
      for (Value operand : def->getOperands())
        if (failed(capture(operand, def)))
          return failure();
      cloned.insert(def);
      return success();
    };
    for (Operation *op : group.ops) {
      WalkResult walk = op->walk([&](Operation *inner) {
        for (Value operand : inner->getOperands()) {
          Operation *def = operand.getDefiningOp();
          Block *block = operand.getParentBlock();
          bool outside = block == &func.getBody().front() &&
                         !(def && inGroup.contains(def));
          if (outside && failed(capture(operand, inner)))
            return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return failure();
    }

    // Launch shape: one thread per iteration of a parallel loop (or per
    // `vectorWidth` iterations of its innermost dimension).
    int64_t threads = 1, blocks = 1, vectorWidth = 1;
    if (scf::ForallOp forall = group.forall) {
      // A block per tile, its threads as many as the largest parallel loop
      // of the tile has iterations (a power of two from 32 to 256).
      blocks = 1;
      for (int64_t trip : trips)
        blocks *= trip;
      int64_t widest = 1;
      SmallVector<scf::ParallelOp> inners;
      forall.getBody()->walk([&](scf::ParallelOp inner) {
        // Loops nested in another run inside its threads.
        if (!inner->getParentOfType<scf::ParallelOp>())
          inners.push_back(inner);
      });
      for (scf::ParallelOp inner : inners) {
        SmallVector<int64_t> l, st, t;
        (void)getConstantNest(getAsOpFoldResult(inner.getLowerBound()),
                              getAsOpFoldResult(inner.getUpperBound()),
                              getAsOpFoldResult(inner.getStep()), l, st, t);
        int64_t total = 1;
        for (int64_t trip : t)
          total *= trip;
        widest = std::max(widest, total);
      }
      threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(widest),
                                    kMinSharedReduction, kThreadsPerBlock);
      if (blocks > std::numeric_limits<int32_t>::max())
        return forall.emitError("expected at most 2^31 - 1 tiles, but the "
                                "loop has ")
               << blocks;
    }
    if (scf::ParallelOp loop = group.loop) {
      if (!loop.getInitVals().empty())
        return loop.emitError("cannot map a parallel loop with reductions "
                              "to the GPU yet");
      if (failed(getConstantNest(getAsOpFoldResult(loop.getLowerBound()),
                                 getAsOpFoldResult(loop.getUpperBound()),
                                 getAsOpFoldResult(loop.getStep()), lower, step,
                                 trips)))
        return loop.emitError("expected a parallel loop with constant "
                              "bounds and steps to map to the GPU");
      // A thread takes `vectorWidth` adjacent iterations of the innermost
      // dimension.
      vectorWidth = getVectorWidth(loop, lower, step, trips);
      trips.back() /= vectorWidth;
      step.back() *= vectorWidth;
      int64_t total = 1;
      for (int64_t trip : trips)
        total *= trip;
      if (total == 0) {
        loop.erase();
        return success();
      }
      threads = std::min(total, kThreadsPerBlock);
      blocks = (total + threads - 1) / threads;
      if (blocks > std::numeric_limits<int32_t>::max())
        return loop.emitError("expected at most 2^31 - 1 blocks of ")
               << threads << " threads, but the loop needs " << blocks;
    }

    if (group.launch)
      std::tie(blocks, threads) = writtenShape;

    // The function, in the module every kernel's launches share.
    OpBuilder builder(gpuModule.getBodyRegion());
    builder.setInsertionPointToEnd(gpuModule.getBody());
    // A tensor map is passed as its address (a generic pointer, as the
    // NVGPU-to-NVVM lowering takes it).
    auto pointer = LLVM::LLVMPointerType::get(builder.getContext());
    auto isTensorMap = [](Value v) {
      return isa<nvgpu::TensorMapDescriptorType>(v.getType());
    };
    SmallVector<Type> types = llvm::map_to_vector(params, [&](Value v) {
      return isTensorMap(v) ? Type(pointer) : v.getType();
    });
    std::string name = (func.getSymName() + "_" + Twine(index)).str();
    SmallVector<Type> shared;
    if (group.launch)
      for (BlockArgument buffer : group.launch.getWorkgroupAttributions())
        shared.push_back(buffer.getType());
    if (sharedScratch)
      shared.push_back(MemRefType::get(
          {blockScratch}, builder.getI8Type(), MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(builder.getContext(),
                                     gpu::AddressSpace::Workgroup)));
    auto gpuFunc = gpu::GPUFuncOp::create(
        builder, loc, name, builder.getFunctionType(types, {}), shared);
    gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                     builder.getUnitAttr());
    // Shared buffers 16-byte aligned: tiles are read in pairs and vectors;
    // a launch's as written 128-byte aligned, as TMA writes them.
    for (unsigned i = 0; i < shared.size(); ++i)
      gpuFunc.setWorkgroupAttributionAttr(
          i, LLVM::LLVMDialect::getAlignAttrName(),
          builder.getI64IntegerAttr(group.launch ? kTmaSharedAlignment : 16));
    if (group.launch)
      if (auto blocksPerSm =
              group.launch->getAttrOfType<IntegerAttr>(kMinBlocksPerSmAttrName))
        gpuFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), blocksPerSm);
    gpuFunc.setKnownBlockSizeAttr(
        builder.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    gpuFunc.setKnownGridSizeAttr(
        builder.getDenseI32ArrayAttr({static_cast<int32_t>(blocks), 1, 1}));
    SymbolTable(gpuModule).insert(gpuFunc);

    Block &entry = gpuFunc.getBody().front();
    builder.setInsertionPointToStart(&entry);
    IRMapping mapping;
    for (auto [param, arg] : llvm::zip(params, entry.getArguments())) {
      Value value = arg;
      if (isTensorMap(param))
        value = UnrealizedConversionCastOp::create(builder, loc,
                                                   param.getType(), value)
                    .getResult(0);
      mapping.map(param, value);
    }
    for (Operation *op : cloned)
      builder.clone(*op, mapping);

    if (scf::ParallelOp loop = group.loop) {
      // iteration = block * threads + thread, the innermost dimension
      // varying fastest.
      auto index = [&](int64_t v) -> Value {
        return arith::ConstantIndexOp::create(builder, loc, v);
      };
      Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
      Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
      Value linear = arith::AddIOp::create(
          builder, loc,
          arith::MulIOp::create(builder, loc, block, index(threads)), thread);
      int64_t total = 1;
      for (int64_t trip : trips)
        total *= trip;
      if (blocks * threads != total) {
        Value inBounds = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::ult, linear, index(total));
        auto guard = scf::IfOp::create(builder, loc, inBounds);
        builder.setInsertionPointToStart(guard.thenBlock());
      }
      SmallVector<Value> ivs =
          delinearize(builder, loc, linear, lower, step, trips);
      for (auto [iv, value] : llvm::zip(loop.getInductionVars(), ivs))
        mapping.map(iv, value);
      if (vectorWidth > 1)
        cloneVectorBody(builder, loop, vectorWidth, mapping);
      else
        for (Operation &op : loop.getBody()->without_terminator())
          builder.clone(op, mapping);
    } else if (scf::ForallOp forall = group.forall) {
      Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
      Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
      SmallVector<Value> ivs =
          delinearize(builder, loc, block, lower, step, trips);
      for (auto [iv, value] : llvm::zip(forall.getInductionVars(), ivs))
        mapping.map(iv, value);
      Value scratch;
      if (sharedScratch)
        scratch = gpuFunc.getWorkgroupAttributions()[0];
      else if (blockScratch)
        scratch = entry.getArgument(0);
      emitBlockProgram(builder, loc, forall, block, thread, threads, scratch,
                       sharedScratch ? 0 : blockScratch, mapping);
    } else if (gpu::LaunchOp launch = group.launch) {
      gpu::KernelDim3 blockIds = launch.getBlockIds();
      gpu::KernelDim3 threadIds = launch.getThreadIds();
      gpu::KernelDim3 gridSize = launch.getGridSize();
      gpu::KernelDim3 blockSize = launch.getBlockSize();
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value one = arith::ConstantIndexOp::create(builder, loc, 1);
      mapping.map(blockIds.x,
                  gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
      mapping.map(threadIds.x,
                  gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
      mapping.map(gridSize.x,
                  arith::ConstantIndexOp::create(builder, loc, blocks));
      mapping.map(blockSize.x,
                  arith::ConstantIndexOp::create(builder, loc, threads));
      for (Value id : {blockIds.y, blockIds.z, threadIds.y, threadIds.z})
        mapping.map(id, zero);
      for (Value size : {gridSize.y, gridSize.z, blockSize.y, blockSize.z})
        mapping.map(size, one);
      for (auto [from, to] : llvm::zip(launch.getWorkgroupAttributions(),
                                       gpuFunc.getWorkgroupAttributions()))
        mapping.map(from, to);
      for (Operation &op : launch.getBody().front().without_terminator())
        builder.clone(op, mapping);
    } else {
      for (Operation *op : group.ops)
        builder.clone(*op, mapping);
    }
    builder.setInsertionPointToEnd(&entry);
    gpu::ReturnOp::create(builder, loc);

    // The launch, in place of the group.
    builder.setInsertionPoint(first);
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    // Created one by one (not as call arguments, whose order C++ leaves
    // open): the IR is the same with every compiler.
    Value one = constant(1);
    Value gridX = constant(blocks);
    Value blockX = constant(threads);
    Value sharedBytes;
    if (dynamicShared)
      sharedBytes = arith::ConstantIntOp::create(builder, loc, *dynamicShared,
                                                 /*width=*/32);
    SmallVector<Value> operands;
    for (Value param : params) {
      if (isTensorMap(param))
        param = UnrealizedConversionCastOp::create(builder, loc, pointer, param)
                    .getResult(0);
      operands.push_back(param);
    }
    gpu::LaunchFuncOp::create(
        builder, loc, gpuFunc, gpu::KernelDim3{gridX, one, one},
        gpu::KernelDim3{blockX, one, one}, sharedBytes, operands);
    // The group's ops go; those of its cloneable ops still used later are
    // cloned by the launches that use them, then erased as dead.
    for (Operation *op : llvm::reverse(group.ops)) {
      if (op->use_empty())
        op->erase();
      else
        leftovers.push_back(op);
    }
    return success();
  }

  /// Emits the body of tile `block` of `forall` for one of its `threads`
  /// threads (`thread`): each allocation a slice of `scratch` (`perBlock`
  /// bytes a block in a global buffer, 0 where `scratch` is the block's
  /// shared memory), ops without effects for every thread, each parallel
  /// loop's iterations taken by the threads in turn, a uniform loop run by
  /// every thread with its steps emitted the same way, any other op by
  /// thread 0; a barrier after each step that writes, so that the next
  /// reads what it wrote, and before one that follows reads.
  void emitBlockProgram(OpBuilder &builder, Location loc,
                        scf::ForallOp forall, Value block, Value thread,
                        int64_t threads, Value scratch, int64_t perBlock,
                        IRMapping &mapping) {
    Value base;
    if (scratch && perBlock)
      base = arith::MulIOp::create(
          builder, loc, block,
          arith::ConstantIndexOp::create(builder, loc, perBlock));
    else if (scratch)
      base = arith::ConstantIndexOp::create(builder, loc, 0);
    int64_t offset = 0;
    emitBlockSteps(builder, loc, forall.getBody(), thread, threads, scratch,
                   base, offset, mapping);
  }

  /// Emits the steps of `body` (see emitBlockProgram); allocations take
  /// the slices from `offset` on.
  void emitBlockSteps(OpBuilder &builder, Location loc, Block *body,
                      Value thread, int64_t threads, Value scratch, Value base,
                      int64_t &offset, IRMapping &mapping) {
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    // Whether threads read memory since the last barrier: a step that
    // writes waits for them first.
    bool readSinceBarrier = false;
    for (Operation &op : body->without_terminator()) {
      if (auto alloc = dyn_cast<memref::AllocOp>(&op)) {
        Value shift =
            arith::AddIOp::create(builder, loc, base, index(offset));
        Value view = memref::ViewOp::create(builder, loc, alloc.getType(),
                                            scratch, shift, ValueRange());
        mapping.map(alloc.getResult(), view);
        offset += getAlignedBytes(alloc.getType());
        continue;
      }
      if (isa<memref::DeallocOp>(&op))
        continue;
      if (isCloneable(&op)) {
        builder.clone(op, mapping);
        readSinceBarrier |= !isMemoryEffectFree(&op);
        continue;
      }
      if (readSinceBarrier)
        gpu::BarrierOp::create(builder, loc);
      readSinceBarrier = false;
      if (isUniformLoop(&op)) {
        auto loop = cast<scf::ForOp>(op);
        auto copy = scf::ForOp::create(
            builder, loc, mapping.lookupOrDefault(loop.getLowerBound()),
            mapping.lookupOrDefault(loop.getUpperBound()),
            mapping.lookupOrDefault(loop.getStep()), ValueRange(),
            [&](OpBuilder &b, Location, Value iv, ValueRange) {
              mapping.map(loop.getInductionVar(), iv);
              OpBuilder::InsertionGuard guard(builder);
              builder.setInsertionPoint(b.getInsertionBlock(),
                                        b.getInsertionPoint());
              emitBlockSteps(builder, loc, loop.getBody(), thread, threads,
                             scratch, base, offset, mapping);
              scf::YieldOp::create(builder, loc);
            });
        copy.setUnsignedCmp(loop.getUnsignedCmp());
      } else if (auto loop = dyn_cast<scf::ParallelOp>(&op)) {
        SmallVector<int64_t> lower, step, trips;
        (void)getConstantNest(getAsOpFoldResult(loop.getLowerBound()),
                              getAsOpFoldResult(loop.getUpperBound()),
                              getAsOpFoldResult(loop.getStep()), lower, step,
                              trips);
        int64_t total = 1;
        for (int64_t trip : trips)
          total *= trip;
        int64_t jammed = 1;
        if (std::optional<SplitRows> split =
                matchSplitRows(loop, total, threads))
          emitSplitRows(builder, loc, loop, *split, lower, step, trips, thread,
                        threads, mapping);
        else if ((jammed = getJammedIterations(loop, total, threads)) > 1)
          emitJammed(builder, loc, loop, jammed, lower, step, trips, thread,
                     threads, mapping);
        else
          scf::ForOp::create(
              builder, loc, thread, index(total), index(threads), ValueRange(),
              [&](OpBuilder &b, Location, Value linear, ValueRange) {
                IRMapping inner = mapping;
                for (auto [iv, value] :
                     llvm::zip(loop.getInductionVars(),
                               delinearize(b, loc, linear, lower, step, trips)))
                  inner.map(iv, value);
                for (Operation &bodyOp : loop.getBody()->without_terminator())
                  b.clone(bodyOp, inner);
                scf::YieldOp::create(b, loc);
              });
      } else if (isBlockReduction(&op)) {
        emitBlockReduction(builder, loc, cast<scf::ForOp>(op), thread, threads,
                           mapping);
      } else {
        Value isFirst = arith::CmpIOp::create(
            builder, loc, arith::CmpIPredicate::eq, thread, index(0));
        auto alone = scf::IfOp::create(builder, loc, isFirst);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(alone.thenBlock());
        builder.clone(op, mapping);
      }
      gpu::BarrierOp::create(builder, loc);
    }
    // Reads at the end of a uniform loop's body meet the next iteration's
    // writes.
    if (readSinceBarrier)
      gpu::BarrierOp::create(builder, loc);
  }

  /// Emits the part of reduction `loop` (its combined values' `kinds`, as
  /// matchCombines finds them) that the `index`-th of `count` threads
  /// takes: every count-th term from its index-th on, combined from the
  /// identities (its ops cloned with `mapping`).
  scf::ForOp emitPart(OpBuilder &builder, Location loc, scf::ForOp loop,
                      ArrayRef<arith::AtomicRMWKind> kinds, Value index,
                      int64_t count, IRMapping &mapping) {
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    int64_t first = *getConstantIntValue(loop.getLowerBound());
    int64_t stride = *getConstantIntValue(loop.getStep());
    Value start = index;
    if (stride != 1)
      start = arith::MulIOp::create(builder, loc, start, constant(stride));
    if (first != 0)
      start = arith::AddIOp::create(builder, loc, start, constant(first));
    Value end = mapping.lookupOrDefault(loop.getUpperBound());
    Value by = constant(stride * count);
    SmallVector<Value> identities;
    for (auto [kind, argument] : llvm::zip(kinds, loop.getRegionIterArgs()))
      identities.push_back(
          arith::getIdentityValue(kind, argument.getType(), builder, loc));
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    auto part = scf::ForOp::create(
        builder, loc, start, end, by, identities,
        [&](OpBuilder &b, Location, Value iv, ValueRange carried) {
          IRMapping inner = mapping;
          inner.map(loop.getInductionVar(), iv);
          inner.map(loop.getRegionIterArgs(), carried);
          for (Operation &op : loop.getBody()->without_terminator())
            b.clone(op, inner);
          scf::YieldOp::create(
              b, loc, llvm::map_to_vector(yield.getOperands(), [&](Value v) {
                return inner.lookupOrDefault(v);
              }));
        });
    part.setUnsignedCmp(true);
    return part;
  }

  /// `combine` (an accumulator's, of iteration argument `argument`) applied
  /// to `accumulated` in the argument's place and `term`.
  static Value combineWith(OpBuilder &builder, Operation *combine,
                           BlockArgument argument, Value accumulated,
                           Value term) {
    IRMapping values;
    for (Value operand : combine->getOperands())
      values.map(operand, operand == argument ? accumulated : term);
    return builder.clone(*combine, values)->getResult(0);
  }

  /// Emits block reduction `loop` (isBlockReduction) for `thread` of
  /// `threads`: the thread's part (every threads-th term), the block's
  /// total by gpu.all_reduce, combined with the loop's initial value; every
  /// thread then has the loop's results.
  void emitBlockReduction(OpBuilder &builder, Location loc, scf::ForOp loop,
                          Value thread, int64_t threads, IRMapping &mapping) {
    SmallVector<Operation *> combines;
    SmallVector<arith::AtomicRMWKind> kinds;
    (void)matchCombines(loop, combines, kinds);
    scf::ForOp part =
        emitPart(builder, loc, loop, kinds, thread, threads, mapping);
    for (auto [i, combine] : llvm::enumerate(combines)) {
      gpu::AllReduceOperation operation = getReductionKind(combine)->second;
      Value total = gpu::AllReduceOp::create(
          builder, loc, part.getResult(i),
          gpu::AllReduceOperationAttr::get(builder.getContext(), operation),
          builder.getUnitAttr());
      Value init = mapping.lookupOrDefault(loop.getInitArgs()[i]);
      mapping.map(loop.getResult(i),
                  combineWith(builder, combine, loop.getRegionIterArgs()[i],
                              init, total));
    }
  }

  /// Emits parallel step `loop` (of `trips`, matched as `split`) for
  /// `thread`: row thread / lanes (the last row for threads past the rows
  /// in the last rows' warp, which compute it again and keep nothing; the
  /// warps wholly past the rows skip the step, where their reads of the
  /// last row would race with its first lane's writes), its terms from
  /// thread % lanes on every lanes-th, the parts combined by shuffles
  /// within the lanes (every thread of the warp takes part), then with the
  /// row's initial values, and the rest of the row run by its first lane.
  void emitSplitRows(OpBuilder &builder, Location loc, scf::ParallelOp loop,
                     const SplitRows &split, ArrayRef<int64_t> lower,
                     ArrayRef<int64_t> step, ArrayRef<int64_t> trips,
                     Value thread, int64_t threads, IRMapping &outer) {
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    int64_t rows = 1;
    for (int64_t trip : trips)
      rows *= trip;
    IRMapping mapping = outer;
    Value lanes = index(split.lanes);
    Value row = arith::DivUIOp::create(builder, loc, thread, lanes);
    Value lane = arith::RemUIOp::create(builder, loc, thread, lanes);
    Value isFirst = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, lane, index(0));
    OpBuilder::InsertionGuard outside(builder);
    int64_t busy = llvm::alignTo(rows * split.lanes, kWarpLanes);
    if (busy < threads) {
      Value busyThread = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, thread, index(busy));
      auto busyWarps = scf::IfOp::create(builder, loc, busyThread);
      builder.setInsertionPointToStart(busyWarps.thenBlock());
    }
    if (rows * split.lanes < std::min(busy, threads)) {
      Value last = index(rows - 1);
      Value inRange = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult, row, index(rows));
      row = arith::MinUIOp::create(builder, loc, row, last);
      isFirst = arith::AndIOp::create(builder, loc, isFirst, inRange);
    }
    for (auto [iv, value] :
         llvm::zip(loop.getInductionVars(),
                   delinearize(builder, loc, row, lower, step, trips)))
      mapping.map(iv, value);
    scf::ForOp reduction = split.reduction;
    Block *body = loop.getBody();
    auto it = body->begin();
    for (; &*it != reduction.getOperation(); ++it)
      builder.clone(*it, mapping);

    // This lane's part: every lanes-th term from the lane's.
    scf::ForOp parts = emitPart(builder, loc, reduction, split.kinds, lane,
                                split.lanes, mapping);
    for (auto [i, combine] : llvm::enumerate(split.combines)) {
      BlockArgument argument = reduction.getRegionIterArgs()[i];
      Value part = parts.getResult(i);
      for (int64_t offset = split.lanes / 2; offset >= 1; offset /= 2) {
        Value other = gpu::ShuffleOp::create(builder, loc, part, offset,
                                             kWarpLanes, gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        part = combineWith(builder, combine, argument, part, other);
      }
      Value init = mapping.lookupOrDefault(reduction.getInitArgs()[i]);
      mapping.map(reduction.getResult(i),
                  combineWith(builder, combine, argument, init, part));
    }
    auto guard = scf::IfOp::create(builder, loc, isFirst);
    OpBuilder::InsertionGuard insertion(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    for (++it; it != body->end() && !isa<scf::ReduceOp>(*it); ++it)
      builder.clone(*it, mapping);
  }

  /// Emits parallel step `loop` (of `trips`) for `thread`, which runs
  /// `jammed` iterations at once (getJammedIterations): each's ops before
  /// the row reduction, one loop carrying every iteration's sums, then
  /// each's ops after it. The iterations are a grid of rows and columns of
  /// the last two dimensions (getJammedGrid); else thread + i * threads for
  /// i < `jammed`, whose indices reuse the thread's first iteration's
  /// where i * threads is a whole number of their period. Iterations that
  /// share an index share its value, so that CSE finds the loads common to
  /// them.
  void emitJammed(OpBuilder &builder, Location loc, scf::ParallelOp loop,
                  int64_t jammed, ArrayRef<int64_t> lower,
                  ArrayRef<int64_t> step, ArrayRef<int64_t> trips, Value thread,
                  int64_t threads, IRMapping &outer) {
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(builder, loc, v);
    };
    SmallVector<IRMapping> mappings(jammed, outer);
    if (std::optional<std::pair<int64_t, int64_t>> grid =
            getJammedGrid(trips, jammed)) {
      // Thread t's iterations: (row, column) of the grid of threads over
      // the step with rows / r and columns / c, plus i * rows / r and j *
      // columns / c: each of its rows' and columns' indices is one value.
      auto [r, c] = *grid;
      int64_t rowDim = trips.size() - 2, colDim = trips.size() - 1;
      SmallVector<int64_t> threadTrips(trips);
      threadTrips[rowDim] /= r;
      threadTrips[colDim] /= c;
      SmallVector<Value> first =
          delinearize(builder, loc, thread, lower, step, threadTrips);
      // The thread's `count` indices of dimension `dim`, one per part.
      auto partIvs = [&](int64_t dim, int64_t count) {
        SmallVector<Value> ivs{first[dim]};
        for (int64_t i = 1; i < count; ++i)
          ivs.push_back(
              arith::AddIOp::create(builder, loc, first[dim],
                                    index(i * threadTrips[dim] * step[dim])));
        return ivs;
      };
      SmallVector<Value> rowIvs = partIvs(rowDim, r);
      SmallVector<Value> colIvs = partIvs(colDim, c);
      for (int64_t i = 0; i < jammed; ++i) {
        SmallVector<Value> ivs = first;
        ivs[rowDim] = rowIvs[i / c];
        ivs[colDim] = colIvs[i % c];
        for (auto [iv, value] : llvm::zip(loop.getInductionVars(), ivs))
          mappings[i].map(iv, value);
      }
    } else {
      SmallVector<Value> first =
          delinearize(builder, loc, thread, lower, step, trips);
      for (int64_t i = 0; i < jammed; ++i) {
        int64_t shift = i * threads;
        // The thread's first iteration's indices where the shift keeps them
        // (a multiple of the dimension's period); the outermost moved by
        // the shift's whole periods of the inner dimensions.
        SmallVector<Value> ivs = first;
        int64_t inner = 1;
        for (int64_t d = trips.size() - 1; d >= 0 && shift; --d) {
          if (d == 0 && shift % inner == 0) {
            ivs[0] = arith::AddIOp::create(builder, loc, first[0],
                                           index(shift / inner * step[0]));
            break;
          }
          if (shift % (inner * trips[d]) != 0) {
            Value linear =
                arith::AddIOp::create(builder, loc, thread, index(shift));
            ivs = delinearize(builder, loc, linear, lower, step, trips);
            break;
          }
          inner *= trips[d];
        }
        for (auto [iv, value] : llvm::zip(loop.getInductionVars(), ivs))
          mappings[i].map(iv, value);
      }
    }
    scf::ForOp reduction = getRowReduction(loop);
    Block *body = loop.getBody();
    for (int64_t i = 0; i < jammed; ++i)
      for (Operation &op : body->without_terminator()) {
        if (&op == reduction.getOperation())
          break;
        builder.clone(op, mappings[i]);
      }
    SmallVector<Value> inits;
    for (IRMapping &mapping : mappings)
      for (Value init : reduction.getInitArgs())
        inits.push_back(mapping.lookupOrDefault(init));
    unsigned carried = reduction.getNumRegionIterArgs();
    auto yield = cast<scf::YieldOp>(reduction.getBody()->getTerminator());
    auto jam = scf::ForOp::create(
        builder, loc, outer.lookupOrDefault(reduction.getLowerBound()),
        outer.lookupOrDefault(reduction.getUpperBound()),
        outer.lookupOrDefault(reduction.getStep()), inits,
        [&](OpBuilder &b, Location, Value iv, ValueRange sums) {
          SmallVector<Value> next;
          for (auto [i, mapping] : llvm::enumerate(mappings)) {
            IRMapping inner = mapping;
            inner.map(reduction.getInductionVar(), iv);
            inner.map(reduction.getRegionIterArgs(),
                      sums.slice(i * carried, carried));
            for (Operation &op : reduction.getBody()->without_terminator())
              b.clone(op, inner);
            for (Value value : yield.getOperands())
              next.push_back(inner.lookupOrDefault(value));
          }
          scf::YieldOp::create(b, loc, next);
        });
    jam.setUnsignedCmp(reduction.getUnsignedCmp());
    for (auto [i, mapping] : llvm::enumerate(mappings)) {
      mapping.map(reduction.getResults(),
                  jam.getResults().slice(i * carried, carried));
      bool after = false;
      for (Operation &op : body->without_terminator()) {
        if (after)
          builder.clone(op, mapping);
        after |= &op == reduction.getOperation();
      }
    }
  }

  func::FuncOp func;
  gpu::GPUModuleOp gpuModule;
  /// Cloneable ops of outlined groups that later launches still used.
  SmallVector<Operation *> leftovers;
};

struct CUDAMapToGPUPass
    : public ms::impl::CUDAMapToGPUPassBase<CUDAMapToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        kernels.push_back(func);
    if (kernels.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(kGpuModuleName);
    if (!gpuModule) {
      OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
      gpuModule =
          gpu::GPUModuleOp::create(builder, module.getLoc(), kGpuModuleName);
    }
    for (func::FuncOp func : kernels)
      if (failed(KernelMapper(func, gpuModule).map()))
        return signalPassFailure();
    // Constants the launched functions read are copied into their module.
    SymbolTable gpuSymbols(gpuModule);
    gpuModule.walk([&](memref::GetGlobalOp get) {
      if (gpuSymbols.lookup(get.getName()))
        return;
      auto global = module.lookupSymbol<memref::GlobalOp>(get.getName());
      if (global)
        gpuSymbols.insert(global->clone());
    });
  }
};
} // namespace
