//===- BuildPlan.cpp - entry function to msexec plan ----------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/Transforms/Passes.h"

#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Transforms/Passes.h"
#include "ms/runtime/ModuleFormat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <map>

namespace mlir::ms::exec {
#define GEN_PASS_DEF_BUILDPLANPASS
#include "ms/Dialect/Exec/Transforms/Passes.h.inc"
} // namespace mlir::ms::exec

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::exec;

/// Returns the most elements result `index` of host op `op` can hold when
/// its shape is data-dependent, or failure when the op has no such bound.
static FailureOr<int64_t> hostResultCapacity(Operation *op, unsigned index) {
  if (auto normalizer = dyn_cast<graph::StringNormalizerOp>(op)) {
    auto input = cast<RankedTensorType>(normalizer.getInput().getType());
    return std::max<int64_t>(1, input.getNumElements());
  }
  return op->emitError("result ")
         << index << " has a data-dependent shape, but " << op->getName()
         << " gives no bound for it";
}

namespace {
/// Where the bytes of a constant lie in a file outside the model (an entry
/// of the msgraph.external_data module attribute).
struct ExternalBytes {
  StringAttr path;
  int64_t offset = 0, length = 0;
};

/// Builds the plan of one entry function.
class PlanBuilder {
public:
  PlanBuilder(func::FuncOp entry, StringRef target, OpBuilder &b,
              const DenseMap<Attribute, ExternalBytes> &external)
      : entry(entry), target(target), b(b), external(external) {}

  /// The weights from external-data files held in the module because
  /// their offset in the file is not 64-byte aligned, and their bytes.
  int64_t unaligned = 0, unalignedBytes = 0;

  /// Appends the plan's ops at `b`'s insertion point.
  LogicalResult build();

private:
  /// Returns the buffer type for `v` if it is a statically shaped tensor of
  /// a runtime dtype (or, with `allowDynamic`, any ranked one).
  FailureOr<BufferType> bufferType(Value v, Location loc,
                                   bool allowDynamic = false);
  /// Fails when `v` has a data-dependent shape: such values are outputs only.
  LogicalResult checkStaticUse(Value v, Operation *user);
  LogicalResult addWeight(Operation &op);
  LogicalResult addLaunch(func::CallOp call);
  LogicalResult addHostStep(Operation &op);
  /// Adds a collective step for a `shard` collective of a partitioned
  /// graph.
  LogicalResult addCollective(Operation &op);
  /// Returns a weight holding each rank's block of weight `whole` cut
  /// along `axis` as an all_slice over `groups` would (null when `whole`
  /// is no dense weight or a block is not a multiple of 64 bytes).
  Value sliceWeight(Value whole, BufferType local, Attribute axis,
                    ArrayRef<SmallVector<int64_t>> groups);
  LogicalResult addOutputs(func::ReturnOp ret);

  func::FuncOp entry;
  StringRef target;
  OpBuilder &b;
  /// The constants whose bytes lie in external files, by value.
  const DenseMap<Attribute, ExternalBytes> &external;
  /// The buffer holding each tensor value of the entry function.
  DenseMap<Value, Value> bufferOf;
  /// Buffers whose shape is only known at run time.
  DenseSet<Value> dataDependent;
};
} // namespace

FailureOr<BufferType> PlanBuilder::bufferType(Value v, Location loc,
                                              bool allowDynamic) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || (!allowDynamic && !type.hasStaticShape()) ||
      dtypeName(type.getElementType()).empty())
    return emitError(loc, "expected a statically shaped tensor of a "
                          "supported element type, but found ")
           << v.getType();
  return BufferType::get(v.getContext(), type);
}

LogicalResult PlanBuilder::checkStaticUse(Value v, Operation *user) {
  if (!dataDependent.contains(bufferOf.lookup(v)))
    return success();
  return user->emitError("expected an operand of static shape, but found a "
                         "value whose shape depends on the data (")
         << v.getType() << "); such values can only be graph outputs";
}

LogicalResult PlanBuilder::build() {
  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    FailureOr<BufferType> type = bufferType(arg, entry.getLoc());
    if (failed(type))
      return failure();
    auto name = entry.getArgAttrOfType<StringAttr>(i, "ms.name");
    bufferOf[arg] = InputOp::create(
        b, entry.getLoc(), *type, static_cast<int64_t>(i),
        name ? name.str() : "input_" + std::to_string(i));
  }
  for (Operation &op : entry.getBody().front()) {
    LogicalResult result = success();
    if (op.hasTrait<OpTrait::ConstantLike>())
      result = addWeight(op);
    else if (auto cast = dyn_cast<tensor::CastOp>(op))
      bufferOf[cast.getResult()] = bufferOf.lookup(cast.getSource());
    else if (auto call = dyn_cast<func::CallOp>(op))
      result = addLaunch(call);
    else if (op.hasTrait<OpTrait::ms::HostExecuted>())
      result = addHostStep(op);
    else if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::AllSliceOp,
                 shard::AllToAllOp, shard::ReduceScatterOp>(op))
      result = addCollective(op);
    else if (auto ret = dyn_cast<func::ReturnOp>(op))
      result = addOutputs(ret);
    else
      return op.emitError("unexpected op in the entry function after kernel "
                          "outlining: ")
             << op.getName();
    if (failed(result))
      return failure();
  }
  return success();
}

/// The key of `value` among the constants whose bytes lie in external
/// files: a mapped constant's file, offset and element type (its bytes in
/// any shape: a reshaped weight still lies in the file), else the
/// attribute.
static Attribute externalKey(Attribute value) {
  auto mapped = dyn_cast<graph::MappedElementsAttr>(value);
  if (!mapped)
    return value;
  return mapped.reshaped(RankedTensorType::get(
      {mapped.getType().getNumElements()}, mapped.getType().getElementType()));
}

LogicalResult PlanBuilder::addWeight(Operation &op) {
  // Dense elements, or a layout of them the module writer computes.
  ElementsAttr value;
  if (auto c = dyn_cast<graph::ConstantOp>(op))
    value = c.getValue();
  else if (auto c = dyn_cast<arith::ConstantOp>(op))
    value = dyn_cast<ElementsAttr>(c.getValue());
  if (!graph::isWeightElements(value))
    return op.emitError("expected a dense tensor constant as a weight");
  FailureOr<BufferType> type = bufferType(op.getResult(0), op.getLoc());
  if (failed(type))
    return failure();
  if (isa<graph::StringType>(value.getElementType()))
    return op.emitError("string constants are not supported as weights");
  auto weight =
      WeightOp::create(b, op.getLoc(), *type, value, IntegerAttr(),
                       /*per_rank=*/false, StringAttr(), IntegerAttr());
  bufferOf[op.getResult(0)] = weight;
  // A constant read from a file outside the model stays there when its
  // bytes are the buffer's, or its source's for a relayout (which the
  // runtime computes as it loads the module), 64-byte aligned (the
  // module's meta names the file in UTF-8).
  auto relayout = dyn_cast<graph::RelayoutElementsAttr>(value);
  ElementsAttr bytes = relayout ? relayout.getSource() : value;
  int64_t length = weight.getStorageBytes();
  if (relayout)
    length = bytes.getNumElements() *
             (bytes.getElementType().getIntOrFloatBitWidth() / 8);
  auto it = external.find(externalKey(bytes));
  if (it == external.end() || it->second.length != length ||
      !llvm::json::isUTF8(it->second.path.getValue()))
    return success();
  if (it->second.offset % int64_t(::ms::format::kAlignment) != 0) {
    ++unaligned;
    unalignedBytes += it->second.length;
    return success();
  }
  weight.setFileAttr(it->second.path);
  weight.setFileOffsetAttr(b.getI64IntegerAttr(it->second.offset));
  return success();
}

/// Reads the msgraph.external_data attribute of `module` into `external`.
static LogicalResult
readExternalData(ModuleOp module,
                 DenseMap<Attribute, ExternalBytes> &external) {
  Attribute attr = module->getAttr(graph::kExternalDataAttrName);
  if (!attr)
    return success();
  auto entries = dyn_cast<ArrayAttr>(attr);
  if (!entries)
    return module.emitError("expected ")
           << graph::kExternalDataAttrName << " to be an array, but found "
           << attr;
  for (auto [i, entry] : llvm::enumerate(entries)) {
    auto fields = dyn_cast<ArrayAttr>(entry);
    auto path = fields && fields.size() == 4 ? dyn_cast<StringAttr>(fields[0])
                                             : StringAttr();
    auto offset = path ? dyn_cast<IntegerAttr>(fields[1]) : IntegerAttr();
    auto length = path ? dyn_cast<IntegerAttr>(fields[2]) : IntegerAttr();
    auto value = path ? dyn_cast<ElementsAttr>(fields[3]) : ElementsAttr();
    if (!offset || !length || !value || offset.getInt() < 0 ||
        length.getInt() < 0)
      return module.emitError("expected entry ")
             << i << " of " << graph::kExternalDataAttrName
             << " to be [path, offset, length, value], but found " << entry;
    external[externalKey(value)] = {path, offset.getInt(), length.getInt()};
  }
  return success();
}

LogicalResult PlanBuilder::addLaunch(func::CallOp call) {
  auto module = entry->getParentOfType<ModuleOp>();
  auto kernel = module.lookupSymbol<func::FuncOp>(call.getCallee());
  if (!kernel || !kernel->hasAttr(kKernelAttrName))
    return call.emitError("expected a call of an outlined kernel, but found "
                          "a call of @")
           << call.getCallee();
  SmallVector<Value> args;
  for (Value operand : call.getOperands()) {
    if (failed(checkStaticUse(operand, call)))
      return failure();
    args.push_back(bufferOf.lookup(operand));
  }
  for (Value result : call.getResults()) {
    FailureOr<BufferType> type = bufferType(result, call.getLoc());
    if (failed(type))
      return failure();
    Value buffer = AllocOp::create(b, call.getLoc(), *type, IntegerAttr(),
                                   IntegerAttr());
    bufferOf[result] = buffer;
    args.push_back(buffer);
  }
  // A fused kernel names all its ops ("msgraph.matmul+msgraph.add").
  StringAttr sourceOp;
  if (auto fused = kernel->getAttrOfType<ArrayAttr>(kFusedOpsAttrName))
    sourceOp =
        b.getStringAttr(llvm::join(fused.getAsValueRange<StringAttr>(), "+"));
  else if (!kernel.getBody().empty() && !kernel.getBody().front().empty())
    sourceOp = b.getStringAttr(
        kernel.getBody().front().front().getName().getStringRef());
  auto symbol = SymbolRefAttr::get(
      b.getStringAttr(target),
      {FlatSymbolRefAttr::get(b.getContext(), call.getCallee())});
  LaunchOp::create(b, call.getLoc(), symbol, args, /*queue=*/0, sourceOp);
  return success();
}

LogicalResult PlanBuilder::addHostStep(Operation &op) {
  SmallVector<Value> ins, outs;
  for (Value operand : op.getOperands()) {
    if (failed(checkStaticUse(operand, &op)) ||
        failed(bufferType(operand, op.getLoc())))
      return failure();
    ins.push_back(bufferOf.lookup(operand));
  }
  for (OpResult result : op.getResults()) {
    FailureOr<BufferType> type =
        bufferType(result, op.getLoc(), /*allowDynamic=*/true);
    if (failed(type))
      return failure();
    IntegerAttr capacity;
    if (!type->getTensorType().hasStaticShape()) {
      FailureOr<int64_t> elements =
          hostResultCapacity(&op, result.getResultNumber());
      if (failed(elements))
        return failure();
      capacity = b.getI64IntegerAttr(*elements);
    }
    Value buffer =
        AllocOp::create(b, op.getLoc(), *type, IntegerAttr(), capacity);
    if (capacity)
      dataDependent.insert(buffer);
    bufferOf[result] = buffer;
    outs.push_back(buffer);
  }
  HostOp::create(b, op.getLoc(), op.getName().getStringRef(),
                 op.getAttrDictionary(), ins, outs, /*queue=*/0);
  return success();
}

Value PlanBuilder::sliceWeight(Value whole, BufferType local,
                               Attribute axisAttr,
                               ArrayRef<SmallVector<int64_t>> groups) {
  auto weight = whole.getDefiningOp<WeightOp>();
  ElementsAttr value = weight ? weight.getValue() : ElementsAttr();
  RankedTensorType type = local.getTensorType();
  Type element = type.getElementType();
  int64_t bytes = local.getStaticByteSize();
  if (!graph::isWeightElements(value) || weight.getPerRank() || bytes <= 0 ||
      bytes % static_cast<int64_t>(::ms::format::kAlignment) != 0 ||
      !(element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0))
    return Value();
  // A weight in a kernel's layout is computed here: each rank's slice is
  // its own copy anyway.
  std::optional<graph::StoredBytes> stored = graph::getStoredBytes(value);
  if (!stored)
    stored = graph::getStoredBytes(
        cast<graph::RelayoutElementsAttr>(value).materialize());
  int64_t axis = cast<IntegerAttr>(axisAttr).getInt();
  auto wholeType = cast<RankedTensorType>(value.getType());
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t outer = 1, inner = elementBytes;
  for (int64_t d = 0; d < axis; ++d)
    outer *= wholeType.getDimSize(d);
  for (int64_t d = axis + 1; d < wholeType.getRank(); ++d)
    inner *= wholeType.getDimSize(d);
  int64_t block = type.getDimSize(axis) * inner;
  int64_t ranks = 0;
  SmallVector<int64_t> positionOf;
  for (const SmallVector<int64_t> &group : groups)
    for (auto [position, rank] : llvm::enumerate(group)) {
      if (rank >= static_cast<int64_t>(positionOf.size()))
        positionOf.resize(rank + 1, 0);
      positionOf[rank] = position;
      ++ranks;
    }
  // Splat weights are expanded: every rank's block is stored.
  ArrayRef<char> raw = stored->data;
  bool splat = stored->splat;
  std::vector<char> data(static_cast<size_t>(bytes * ranks));
  for (int64_t rank = 0; rank < ranks; ++rank) {
    char *out = data.data() + rank * bytes;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < block; ++i) {
        int64_t from = (o * (block * static_cast<int64_t>(groups[0].size())) +
                        positionOf[rank] * block + i);
        out[o * block + i] = splat ? raw[i % elementBytes] : raw[from];
      }
  }
  SmallVector<int64_t> shape{ranks};
  llvm::append_range(shape, type.getShape());
  auto stacked = DenseElementsAttr::getFromRawBuffer(
      RankedTensorType::get(shape, element), ArrayRef<char>(data));
  return WeightOp::create(b, weight.getLoc(), local, stacked, IntegerAttr(),
                          /*per_rank=*/true, StringAttr(), IntegerAttr());
}

/// Returns the groups of ranks that collectives over `axes` of `grid` run
/// in: ranks differing only in those axes, each group ordered by the
/// linear index over `axes` (the first axis major).
static SmallVector<SmallVector<int64_t>> rankGroups(shard::GridOp grid,
                                                    ArrayRef<int16_t> axes) {
  ArrayRef<int64_t> shape = grid.getShape();
  int64_t ranks = 1, groupSize = 1;
  for (int64_t dim : shape)
    ranks *= dim;
  for (int16_t axis : axes)
    groupSize *= shape[axis];
  SmallVector<SmallVector<int64_t>> groups;
  std::map<SmallVector<int64_t>, size_t> groupOf;
  for (int64_t rank = 0; rank < ranks; ++rank) {
    SmallVector<int64_t> index(shape.size());
    for (int64_t d = shape.size() - 1, r = rank; d >= 0; --d) {
      index[d] = r % shape[d];
      r /= shape[d];
    }
    int64_t position = 0;
    SmallVector<int64_t> key = index;
    for (int16_t axis : axes) {
      position = position * shape[axis] + index[axis];
      key[axis] = 0;
    }
    auto [it, added] = groupOf.try_emplace(key, groups.size());
    if (added)
      groups.emplace_back(groupSize, -1);
    groups[it->second][position] = rank;
  }
  return groups;
}

LogicalResult PlanBuilder::addCollective(Operation &op) {
  Value input = op.getOperand(0);
  if (failed(checkStaticUse(input, &op)))
    return failure();
  auto module = entry->getParentOfType<ModuleOp>();
  StringRef gridName;
  ArrayRef<int16_t> axes;
  StringRef kind;
  SmallVector<NamedAttribute> attrs;
  auto reduction = [&](shard::ReductionKind r) -> LogicalResult {
    StringRef name;
    switch (r) {
    case shard::ReductionKind::Sum:
      name = "sum";
      break;
    case shard::ReductionKind::Product:
      name = "prod";
      break;
    case shard::ReductionKind::Max:
      name = "max";
      break;
    case shard::ReductionKind::Min:
      name = "min";
      break;
    default:
      return op.emitError("expected a sum, product, max or min reduction, "
                          "but found ")
             << shard::stringifyReductionKind(r);
    }
    attrs.push_back(b.getNamedAttr("reduction", b.getStringAttr(name)));
    return success();
  };
  auto axis = [&](StringRef name, const APInt &value) {
    attrs.push_back(
        b.getNamedAttr(name, b.getI64IntegerAttr(value.getSExtValue())));
  };
  LogicalResult result = success();
  if (auto c = dyn_cast<shard::AllReduceOp>(op)) {
    kind = "all_reduce", gridName = c.getGrid(), axes = c.getGridAxes();
    result = reduction(c.getReduction());
  } else if (auto c = dyn_cast<shard::AllGatherOp>(op)) {
    kind = "all_gather", gridName = c.getGrid(), axes = c.getGridAxes();
    axis("axis", c.getGatherAxis());
  } else if (auto c = dyn_cast<shard::AllSliceOp>(op)) {
    kind = "all_slice", gridName = c.getGrid(), axes = c.getGridAxes();
    axis("axis", c.getSliceAxis());
  } else if (auto c = dyn_cast<shard::AllToAllOp>(op)) {
    kind = "all_to_all", gridName = c.getGrid(), axes = c.getGridAxes();
    axis("split_axis", c.getSplitAxis());
    axis("concat_axis", c.getConcatAxis());
  } else if (auto c = dyn_cast<shard::ReduceScatterOp>(op)) {
    kind = "reduce_scatter", gridName = c.getGrid(), axes = c.getGridAxes();
    axis("axis", c.getScatterAxis());
    result = reduction(c.getReduction());
  }
  if (failed(result))
    return failure();
  auto grid = module.lookupSymbol<shard::GridOp>(gridName);
  if (!grid)
    return op.emitError("expected a shard.grid named @") << gridName;
  FailureOr<BufferType> inType = bufferType(input, op.getLoc());
  FailureOr<BufferType> outType = bufferType(op.getResult(0), op.getLoc());
  if (failed(inType) || failed(outType))
    return failure();
  SmallVector<SmallVector<int64_t>> rankLists = rankGroups(grid, axes);
  // A weight's slices are cut at compile time, one block per rank.
  if (kind == "all_slice")
    if (Value weight = sliceWeight(bufferOf.lookup(input), *outType,
                                   attrs.front().getValue(), rankLists)) {
      bufferOf[op.getResult(0)] = weight;
      return success();
    }
  SmallVector<Attribute> groups;
  for (const SmallVector<int64_t> &group : rankLists)
    groups.push_back(b.getDenseI64ArrayAttr(group));
  Value target =
      AllocOp::create(b, op.getLoc(), *outType, IntegerAttr(), IntegerAttr());
  bufferOf[op.getResult(0)] = target;
  CollectiveOp::create(b, op.getLoc(), kind, bufferOf.lookup(input), target,
                       b.getDictionaryAttr(attrs), b.getArrayAttr(groups),
                       /*queue=*/0);
  return success();
}

LogicalResult PlanBuilder::addOutputs(func::ReturnOp ret) {
  for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
    auto nameAttr = entry.getResultAttrOfType<StringAttr>(j, "ms.name");
    std::string name = nameAttr ? nameAttr.str() : "output_" + std::to_string(j);
    Value buffer = bufferOf.lookup(value);
    // The step producing an intermediate writes the caller's output directly.
    if (auto alloc = buffer.getDefiningOp<AllocOp>()) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(alloc);
      Value output = OutputOp::create(b, alloc.getLoc(), alloc.getType(), j,
                                      name, alloc.getCapacityAttr());
      alloc.replaceAllUsesWith(output);
      alloc.erase();
      if (dataDependent.erase(buffer))
        dataDependent.insert(output);
      for (auto &entry : bufferOf)
        if (entry.second == buffer)
          entry.second = output;
      continue;
    }
    if (dataDependent.contains(buffer))
      return ret.emitError("a value whose shape depends on the data can be "
                           "returned only once, but result ")
             << j << " returns it again";
    // An input, a weight or a value returned before: copy it.
    Value output = OutputOp::create(b, ret.getLoc(), buffer.getType(), j, name,
                                    IntegerAttr());
    CopyOp::create(b, ret.getLoc(), buffer, output, /*queue=*/0);
  }
  return success();
}

namespace {
struct BuildPlanPass final : exec::impl::BuildPlanPassBase<BuildPlanPass> {
  using BuildPlanPassBase::BuildPlanPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entryFunc = findEntryFunction(module, entry);
    if (!entryFunc)
      return signalPassFailure();
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    // The kernels move into the target's executable.
    auto executable = ExecutableOp::create(b, module.getLoc(), target, target,
                                           /*variant=*/StringAttr());
    Block *execBody = new Block();
    executable.getBody().push_back(execBody);
    b.setInsertionPointToEnd(execBody);
    auto inner = ModuleOp::create(b, module.getLoc());

    b.setInsertionPointToEnd(module.getBody());
    auto plan = PlanOp::create(b, entryFunc.getLoc(), entryFunc.getSymName(),
                               target, optLevel, IntegerAttr(), IntegerAttr());
    Block *planBody = new Block();
    plan.getBody().push_back(planBody);
    b.setInsertionPointToEnd(planBody);
    DenseMap<Attribute, ExternalBytes> external;
    if (failed(readExternalData(module, external)))
      return signalPassFailure();
    module->removeAttr(graph::kExternalDataAttrName);
    PlanBuilder builder(entryFunc, target, b, external);
    if (failed(builder.build()))
      return signalPassFailure();
    if (builder.unaligned)
      emitWarning(plan.getLoc())
          << builder.unaligned << " weights (" << builder.unalignedBytes
          << " bytes) from external-data files are copied into the module: "
             "expected their offsets in the file to be multiples of 64 "
             "(utils/onnx-external-data aligns them)";
    // Weights only sliced per rank at compile time are not stored whole.
    for (auto weight : llvm::make_early_inc_range(planBody->getOps<WeightOp>()))
      if (weight->use_empty())
        weight.erase();

    // A partitioned graph runs on every device of its grid.
    for (auto grid :
         llvm::make_early_inc_range(module.getOps<shard::GridOp>())) {
      int64_t ranks = 1;
      for (int64_t dim : grid.getShape())
        ranks *= dim;
      plan.setRanksAttr(b.getI64IntegerAttr(ranks));
      grid.erase();
    }
    for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (func->hasAttr(kKernelAttrName))
        func->moveBefore(inner.getBody(), inner.getBody()->end());
    entryFunc.erase();
  }
};
} // namespace
