//===- ExecutionPlan.cpp - the host-side execution plan -------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/ExecutionPlan.h"

#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Transforms/Passes.h"

#include "ms/runtime/ModuleFormat.h"
#include "ms/runtime/ms_runtime.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::ms;

std::string mlir::ms::dtypeName(Type type) {
  if (isa<graph::StringType>(type))
    return "string";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  auto intType = dyn_cast<IntegerType>(type);
  if (!intType)
    return "";
  unsigned width = intType.getWidth();
  if (width == 1)
    return "bool";
  if (width != 8 && width != 16 && width != 32 && width != 64)
    return "";
  return (intType.isUnsigned() ? "u" : "i") + std::to_string(width);
}

/// Bytes of one element (bool is one byte; a string one ms_string_t).
static uint64_t elementSize(Type type) {
  if (isa<graph::StringType>(type))
    return sizeof(ms_string_t);
  unsigned width = type.getIntOrFloatBitWidth();
  return width == 1 ? 1 : width / 8;
}

/// Bytes of a statically shaped tensor.
static uint64_t byteSize(RankedTensorType type) {
  return type.getNumElements() * elementSize(type.getElementType());
}

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

/// Converts a host op attribute to JSON; fails on kinds the runtime does not
/// read.
static std::optional<llvm::json::Value> attrToJson(Attribute attr) {
  if (auto str = dyn_cast<StringAttr>(attr))
    return llvm::json::Value(str.str());
  if (auto boolean = dyn_cast<BoolAttr>(attr))
    return llvm::json::Value(boolean.getValue());
  if (auto integer = dyn_cast<IntegerAttr>(attr))
    return llvm::json::Value(integer.getInt());
  if (auto real = dyn_cast<FloatAttr>(attr))
    return llvm::json::Value(real.getValueAsDouble());
  if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (int64_t v : ints.asArrayRef())
      array.push_back(v);
    return llvm::json::Value(std::move(array));
  }
  if (auto list = dyn_cast<ArrayAttr>(attr)) {
    llvm::json::Array array;
    for (Attribute element : list) {
      std::optional<llvm::json::Value> value = attrToJson(element);
      if (!value)
        return std::nullopt;
      array.push_back(std::move(*value));
    }
    return llvm::json::Value(std::move(array));
  }
  return std::nullopt;
}

/// Appends the little-endian bytes of `attr` to `out`.
static void appendElements(DenseElementsAttr attr, std::string &out) {
  auto type = cast<RankedTensorType>(attr.getType());
  int64_t n = type.getNumElements();
  if (type.getElementType().isInteger(1)) {
    for (bool v : attr.getValues<bool>())
      out.push_back(v ? 1 : 0);
    return;
  }
  ArrayRef<char> raw = attr.getRawData();
  if (!attr.isSplat()) {
    out.append(raw.begin(), raw.end());
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    out.append(raw.begin(), raw.end());
}

static std::string locationString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    loc.print(os);
  return s;
}

FailureOr<ExecutionPlan>
mlir::ms::buildExecutionPlan(func::FuncOp entry,
                             ArrayRef<std::string> kernelSymbols) {
  ExecutionPlan plan;
  plan.entry = entry.getSymName().str();
  llvm::StringMap<int64_t> kernelIndex;
  for (auto [i, name] : llvm::enumerate(kernelSymbols))
    kernelIndex[name] = i;
  plan.kernels.resize(kernelSymbols.size());

  DenseMap<Value, int64_t> bufferOf;
  auto addBuffer = [&](PlanBuffer::Kind kind, uint64_t size,
                       std::string description) {
    PlanBuffer buffer;
    buffer.kind = kind;
    buffer.size = size;
    buffer.description = std::move(description);
    plan.buffers.push_back(buffer);
    return (int64_t)plan.buffers.size() - 1;
  };
  // Results of host ops whose shape is only known at run time: they may
  // only be returned.
  DenseSet<Value> dataDependent;
  auto checkStaticUse = [&](Value v, Operation *user) -> LogicalResult {
    if (!dataDependent.contains(v))
      return success();
    return user->emitError("expected an operand of static shape, but found a "
                           "value whose shape depends on the data (")
           << v.getType() << "); such values can only be graph outputs";
  };
  auto tensorOf = [&](Value v, Location loc) -> FailureOr<RankedTensorType> {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() ||
        dtypeName(type.getElementType()).empty())
      return emitError(loc, "expected a statically shaped tensor of a "
                            "supported element type, but found ")
             << v.getType();
    return type;
  };

  for (auto [i, arg] : llvm::enumerate(entry.getArguments())) {
    auto type = tensorOf(arg, entry.getLoc());
    if (failed(type))
      return failure();
    auto name = entry.getArgAttrOfType<StringAttr>(i, "ms.name");
    PlanTensor tensor{name ? name.str() : "input_" + std::to_string(i),
                      dtypeName(type->getElementType()),
                      type->getShape().vec(), 0};
    tensor.buffer = addBuffer(PlanBuffer::Kind::Input, byteSize(*type),
                              "input " + tensor.name);
    plan.buffers.back().indexOrOffset = i;
    bufferOf[arg] = tensor.buffer;
    plan.inputs.push_back(std::move(tensor));
  }

  int64_t step = 0;
  for (Operation &op : entry.getBody().front()) {
    if (op.hasTrait<OpTrait::ConstantLike>()) {
      DenseElementsAttr dense;
      if (auto c = dyn_cast<graph::ConstantOp>(op))
        dense = dyn_cast<DenseElementsAttr>(c.getValue());
      else if (auto c = dyn_cast<arith::ConstantOp>(op))
        dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense)
        return op.emitError("expected a dense tensor constant as a weight");
      if (failed(tensorOf(op.getResult(0), op.getLoc())))
        return failure();
      if (isa<graph::StringType>(dense.getElementType()))
        return op.emitError("string constants are not supported as weights");
      plan.weights.resize(::ms::format::alignUp(plan.weights.size()), 0);
      uint64_t offset = plan.weights.size();
      appendElements(dense, plan.weights);
      int64_t id = addBuffer(PlanBuffer::Kind::Weight,
                             plan.weights.size() - offset,
                             "weight at " + locationString(op.getLoc()));
      plan.buffers[id].indexOrOffset = offset;
      bufferOf[op.getResult(0)] = id;
      continue;
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      bufferOf[cast.getResult()] = bufferOf.lookup(cast.getSource());
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      auto it = kernelIndex.find(call.getCallee());
      if (it == kernelIndex.end())
        return op.emitError("expected a call of an outlined kernel, but "
                            "found a call of @")
               << call.getCallee();
      PlanStep launch;
      launch.kind = PlanStep::Kind::Launch;
      launch.kernel = it->second;
      for (Value operand : call.getOperands()) {
        if (failed(checkStaticUse(operand, &op)))
          return failure();
        int64_t id = bufferOf.lookup(operand);
        plan.buffers[id].lastUse = step;
        launch.args.push_back(id);
      }
      for (Value result : call.getResults()) {
        auto type = tensorOf(result, op.getLoc());
        if (failed(type))
          return failure();
        int64_t id = addBuffer(PlanBuffer::Kind::Arena, byteSize(*type),
                               "result of " + call.getCallee().str());
        plan.buffers[id].firstUse = plan.buffers[id].lastUse = step;
        bufferOf[result] = id;
        launch.args.push_back(id);
      }
      auto kernel = entry->getParentOfType<ModuleOp>().lookupSymbol<func::FuncOp>(
          call.getCallee());
      PlanKernel &info = plan.kernels[it->second];
      info.symbol = "ms_kernel_" + std::to_string(it->second);
      info.loc = locationString(op.getLoc());
      if (kernel && !kernel.getBody().empty())
        info.op = kernel.getBody().front().front().getName().getStringRef().str();
      plan.steps.push_back(std::move(launch));
      ++step;
      continue;
    }
    if (op.hasTrait<OpTrait::ms::HostExecuted>()) {
      PlanStep host;
      host.kind = PlanStep::Kind::Host;
      host.op = op.getName().getStringRef().str();
      host.operandCount = op.getNumOperands();
      auto describe = [&](RankedTensorType type) {
        host.dtypes.push_back(dtypeName(type.getElementType()));
        std::vector<int64_t> shape;
        for (int64_t d : type.getShape())
          shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
        host.shapes.push_back(std::move(shape));
      };
      for (Value operand : op.getOperands()) {
        if (failed(checkStaticUse(operand, &op)))
          return failure();
        auto type = tensorOf(operand, op.getLoc());
        if (failed(type))
          return failure();
        int64_t id = bufferOf.lookup(operand);
        plan.buffers[id].lastUse = step;
        host.args.push_back(id);
        describe(*type);
      }
      for (OpResult result : op.getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        if (!type || dtypeName(type.getElementType()).empty())
          return op.emitError("expected a ranked tensor of a supported "
                              "element type, but found ")
                 << result.getType();
        uint64_t size = 0;
        if (type.hasStaticShape()) {
          size = byteSize(type);
        } else {
          FailureOr<int64_t> capacity =
              hostResultCapacity(&op, result.getResultNumber());
          if (failed(capacity))
            return failure();
          size = *capacity * elementSize(type.getElementType());
          dataDependent.insert(result);
        }
        int64_t id = addBuffer(PlanBuffer::Kind::Arena, size,
                               "result of " + host.op);
        plan.buffers[id].firstUse = plan.buffers[id].lastUse = step;
        bufferOf[result] = id;
        host.args.push_back(id);
        describe(type);
      }
      for (NamedAttribute attr : op.getAttrs()) {
        std::optional<llvm::json::Value> value = attrToJson(attr.getValue());
        if (!value)
          return op.emitError("attribute '")
                 << attr.getName().getValue()
                 << "' has a kind the runtime cannot read: " << attr.getValue();
        host.attrs[attr.getName().getValue()] = std::move(*value);
      }
      plan.steps.push_back(std::move(host));
      ++step;
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      DenseSet<Value> returned;
      for (auto [j, value] : llvm::enumerate(ret.getOperands())) {
        if (dataDependent.contains(value)) {
          if (!returned.insert(value).second)
            return op.emitError("a value whose shape depends on the data "
                                "can be returned only once, but result ")
                   << j << " returns it again";
          auto type = cast<RankedTensorType>(value.getType());
          auto name = entry.getResultAttrOfType<StringAttr>(j, "ms.name");
          PlanTensor tensor{name ? name.str() : "output_" + std::to_string(j),
                            dtypeName(type.getElementType()), {}, 0};
          for (int64_t d : type.getShape())
            tensor.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
          int64_t id = bufferOf.lookup(value);
          plan.buffers[id].kind = PlanBuffer::Kind::Output;
          plan.buffers[id].indexOrOffset = j;
          tensor.buffer = id;
          plan.outputs.push_back(std::move(tensor));
          continue;
        }
        auto type = tensorOf(value, op.getLoc());
        if (failed(type))
          return failure();
        auto name = entry.getResultAttrOfType<StringAttr>(j, "ms.name");
        PlanTensor tensor{name ? name.str() : "output_" + std::to_string(j),
                          dtypeName(type->getElementType()),
                          type->getShape().vec(), 0};
        int64_t id = bufferOf.lookup(value);
        bool producedHere = plan.buffers[id].kind == PlanBuffer::Kind::Arena;
        if (producedHere) {
          // The producing kernel writes straight into the caller's output.
          plan.buffers[id].kind = PlanBuffer::Kind::Output;
          plan.buffers[id].indexOrOffset = j;
          tensor.buffer = id;
        } else {
          int64_t out = addBuffer(PlanBuffer::Kind::Output, byteSize(*type),
                                  "output " + tensor.name);
          plan.buffers[out].indexOrOffset = j;
          PlanStep copy;
          copy.kind = PlanStep::Kind::Copy;
          copy.src = id;
          copy.dst = out;
          copy.size = byteSize(*type);
          plan.steps.push_back(copy);
          tensor.buffer = out;
        }
        plan.outputs.push_back(std::move(tensor));
      }
      continue;
    }
    return op.emitError("unexpected op in the entry function after kernel "
                        "outlining: ")
           << op.getName();
  }

  // Place the arena buffers.
  std::vector<PlannedBuffer> arena;
  std::vector<int64_t> arenaIds;
  for (auto [id, buffer] : llvm::enumerate(plan.buffers)) {
    if (buffer.kind != PlanBuffer::Kind::Arena)
      continue;
    arena.push_back({buffer.size, buffer.firstUse, buffer.lastUse, 0});
    arenaIds.push_back(id);
  }
  plan.memory = planMemory(arena);
  for (auto [i, id] : llvm::enumerate(arenaIds))
    plan.buffers[id].indexOrOffset = arena[i].offset;
  return plan;
}

static StringRef kindName(PlanBuffer::Kind kind) {
  switch (kind) {
  case PlanBuffer::Kind::Input:
    return "input";
  case PlanBuffer::Kind::Output:
    return "output";
  case PlanBuffer::Kind::Weight:
    return "weight";
  case PlanBuffer::Kind::Arena:
    return "arena";
  }
  llvm_unreachable("unknown buffer kind");
}

void ExecutionPlan::writeJson(llvm::raw_ostream &os) const {
  llvm::json::OStream j(os, 1);
  auto tensors = [&](StringRef key, const std::vector<PlanTensor> &list) {
    j.attributeArray(key, [&] {
      for (const PlanTensor &t : list)
        j.object([&] {
          j.attribute("name", t.name);
          j.attribute("dtype", t.dtype);
          j.attributeArray("shape", [&] {
            for (int64_t d : t.shape)
              j.value(d);
          });
          j.attribute("buffer", t.buffer);
        });
    });
  };
  j.object([&] {
    j.attribute("producer", "ms-compile 0.1.0");
    j.attribute("target", target);
    j.attribute("opt_level", optLevel);
    j.attribute("entry", entry);
    tensors("inputs", inputs);
    tensors("outputs", outputs);
    j.attributeArray("buffers", [&] {
      for (auto [id, b] : llvm::enumerate(buffers))
        j.object([&] {
          j.attribute("id", (int64_t)id);
          j.attribute("kind", kindName(b.kind));
          bool indexed = b.kind == PlanBuffer::Kind::Input ||
                         b.kind == PlanBuffer::Kind::Output;
          j.attribute(indexed ? "index" : "offset", (int64_t)b.indexOrOffset);
          j.attribute("size", (int64_t)b.size);
        });
    });
    j.attribute("arena_size", (int64_t)memory.arenaSize);
    j.attributeArray("kernels", [&] {
      for (const PlanKernel &k : kernels)
        j.object([&] {
          j.attribute("name", k.symbol);
          j.attribute("op", k.op);
          j.attribute("loc", k.loc);
        });
    });
    j.attributeArray("steps", [&] {
      for (const PlanStep &s : steps)
        j.object([&] {
          if (s.kind == PlanStep::Kind::Launch) {
            j.attribute("kind", "launch");
            j.attribute("kernel", s.kernel);
            j.attributeArray("args", [&] {
              for (int64_t a : s.args)
                j.value(a);
            });
          } else if (s.kind == PlanStep::Kind::Host) {
            j.attribute("kind", "host");
            j.attribute("op", s.op);
            j.attribute("operands", s.operandCount);
            j.attributeArray("args", [&] {
              for (int64_t a : s.args)
                j.value(a);
            });
            j.attributeArray("dtypes", [&] {
              for (const std::string &d : s.dtypes)
                j.value(d);
            });
            j.attributeArray("shapes", [&] {
              for (const std::vector<int64_t> &shape : s.shapes)
                j.array([&] {
                  for (int64_t d : shape)
                    j.value(d);
                });
            });
            j.attribute("attrs", llvm::json::Object(s.attrs));
          } else {
            j.attribute("kind", "copy");
            j.attribute("src", s.src);
            j.attribute("dst", s.dst);
            j.attribute("size", (int64_t)s.size);
          }
        });
    });
  });
}

void ExecutionPlan::writeMemoryReport(llvm::raw_ostream &os) const {
  os << "memory report\n";
  os << "  peak live bytes:     " << memory.peakLiveBytes << "\n";
  os << "  arena size:          " << memory.arenaSize << "\n";
  os << "  sum of buffer sizes: " << memory.totalBytes << "\n";
  os << "  weights:             " << weights.size() << "\n";
  os << "  buffers (arena offset, size, live steps):\n";
  for (auto [id, b] : llvm::enumerate(buffers)) {
    if (b.kind != PlanBuffer::Kind::Arena)
      continue;
    os << llvm::format("    #%-4lld offset %-10llu size %-10llu steps %lld..%lld  ",
                       (long long)id, (unsigned long long)b.indexOrOffset,
                       (unsigned long long)b.size, (long long)b.firstUse,
                       (long long)b.lastUse)
       << b.description << "\n";
  }
}
