//===- NPUTarget.cpp - the virtual NPU code generator ---------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Kernels lower like the other targets' to bufferized linalg, which
// ms-npu-lower-kernels turns into msnpu programs; the serializer writes
// them as the `npu-program` JSON the runtime's simulator executes
// (docs/NPU.md): views become (memory, buffer, byte offset, element
// strides), index values become expressions of loop counters and the core
// id, `msnpu.core_barrier` separates steps.
//
//===----------------------------------------------------------------------===//

#include "ms/Target/NPU/NPUTarget.h"

#include "ms/Transforms/Passes.h"
#include "ms/runtime/ModuleFormat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::npu;
namespace json = llvm::json;

namespace {
/// An index value as the program's expressions see it:
/// c + sum(coef * iv(level) [% mod]) + core[core_id].
struct Linear {
  int64_t c = 0;
  /// (level, mod) -> coefficient; level -1 is the core id, mod 0 none.
  std::map<std::pair<int64_t, int64_t>, int64_t> terms;
  SmallVector<int64_t> core;

  bool isConstant() const { return terms.empty() && core.empty(); }

  Linear &add(const Linear &other, int64_t scale) {
    c += scale * other.c;
    for (auto [key, coef] : other.terms)
      terms[key] += scale * coef;
    if (!other.core.empty())
      core.resize(other.core.size(), 0);
    for (auto [i, v] : llvm::enumerate(other.core))
      core[i] += scale * v;
    return *this;
  }

  json::Value toJson() const {
    json::Array list;
    for (auto [key, coef] : terms) {
      if (!coef)
        continue;
      json::Array term{key.first, coef};
      if (key.second)
        term.push_back(key.second);
      list.push_back(std::move(term));
    }
    if (list.empty() && core.empty())
      return c;
    json::Object object{{"c", c}};
    if (!list.empty())
      object["t"] = std::move(list);
    if (!core.empty())
      object["core"] = json::Array(core);
    return std::move(object);
  }
};

/// `value` as a program number: JSON has no infinities or NaN, which are
/// the strings "inf", "-inf" and "nan".
json::Value getNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  return value;
}

/// The program's name of an element type.
StringRef getDTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isInteger(32))
    return "s32";
  if (type.isInteger(8))
    return "s8";
  // A bool is one byte, 0 or 1.
  if (type.isInteger(1))
    return "u8";
  return "";
}

/// Serializes one lowered kernel.
class KernelWriter {
public:
  explicit KernelWriter(func::FuncOp func) : func(func) {}

  FailureOr<json::Object> write() {
    json::Array args, scratch, steps;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.hasStaticShape())
        return func.emitError("expected static memref arguments");
      args.push_back(byteSize(type));
    }
    json::Array scratchData;
    for (Operation &op : func.getBody().front()) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        scratchIndex[alloc] = scratch.size();
        scratch.push_back(byteSize(alloc.getType()));
        scratchData.push_back(nullptr);
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // A constant the kernel reads: scratch with initial contents.
        FailureOr<std::string> hex = getConstantHex(global);
        if (failed(hex))
          return failure();
        scratchIndex[global] = scratch.size();
        scratch.push_back(byteSize(global.getType()));
        scratchData.push_back(std::move(*hex));
      }
    }
    json::Array step;
    for (Operation &op : func.getBody().front()) {
      if (isa<CoreBarrierOp>(op)) {
        steps.push_back(std::move(step));
        step = json::Array();
        continue;
      }
      if (failed(writeOp(op, step)))
        return failure();
    }
    steps.push_back(std::move(step));
    return json::Object{{"cores", getConfig(func).cores},
                        {"args", std::move(args)},
                        {"scratch", std::move(scratch)},
                        {"scratch_data", std::move(scratchData)},
                        {"steps", std::move(steps)}};
  }

  /// The bytes of the constant `global` reads, as lower-case hex.
  FailureOr<std::string> getConstantHex(memref::GetGlobalOp global) {
    auto symbol = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        global, global.getNameAttr());
    auto value = symbol ? dyn_cast_or_null<DenseIntOrFPElementsAttr>(
                              symbol.getConstantInitValue())
                        : DenseIntOrFPElementsAttr();
    Type elem = global.getType().getElementType();
    if (!value || getDTypeName(elem).empty())
      return global.emitError("expected a dense f32, f16, bf16, i32, i8 or "
                              "i1 constant for the npu");
    int64_t elementBytes = std::max(1u, elem.getIntOrFloatBitWidth() / 8);
    std::string hex;
    static const char digits[] = "0123456789abcdef";
    auto append = [&](const APInt &bits) {
      for (int64_t i = 0; i < elementBytes; ++i) {
        uint8_t byte = bits.getBitWidth() == 1
                           ? uint8_t(bits.getBoolValue())
                           : uint8_t(bits.extractBitsAsZExtValue(8, 8 * i));
        hex += digits[byte >> 4];
        hex += digits[byte & 15];
      }
    };
    if (isa<FloatType>(elem))
      for (const APFloat &v : value.getValues<APFloat>())
        append(v.bitcastToAPInt());
    else
      for (const APInt &v : value.getValues<APInt>())
        append(v);
    return hex;
  }

private:
  static int64_t byteSize(MemRefType type) {
    return type.getNumElements() *
           std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
  }

  /// Appends the instructions of `op` (if any) to `out`.
  LogicalResult writeOp(Operation &op, json::Array &out) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return writeLoop(loop, out);
    if (isa<func::ReturnOp, memref::AllocOp, memref::DeallocOp>(op) ||
        isMemoryEffectFree(&op))
      return success();
    FailureOr<json::Object> inst = writeInstruction(op);
    if (failed(inst))
      return failure();
    out.push_back(std::move(*inst));
    return success();
  }

  LogicalResult writeLoop(scf::ForOp loop, json::Array &out) {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(loop.getStep());
    if (lb != 0 || step != 1 || loop.getNumResults())
      return loop.emitError("expected a loop from 0 by 1 without results");
    FailureOr<Linear> count = evaluate(loop.getUpperBound());
    if (failed(count))
      return failure();
    loopLevel[loop.getInductionVar()] = depth++;
    json::Array body;
    for (Operation &inner : loop.getBody()->without_terminator())
      if (failed(writeOp(inner, body)))
        return failure();
    --depth;
    out.push_back(json::Object{
        {"op", "loop"}, {"count", count->toJson()}, {"body", std::move(body)}});
    return success();
  }

  /// Evaluates index value `value` as an expression.
  FailureOr<Linear> evaluate(Value value) {
    Linear result;
    if (std::optional<int64_t> constant = getConstantIntValue(value)) {
      result.c = *constant;
      return result;
    }
    if (auto it = loopLevel.find(value); it != loopLevel.end()) {
      result.terms[{it->second, 0}] = 1;
      return result;
    }
    Operation *def = value.getDefiningOp();
    if (def && isa<CoreIdOp>(def)) {
      result.terms[{-1, 0}] = 1;
      return result;
    }
    if (auto perCore = dyn_cast_or_null<PerCoreOp>(def)) {
      result.core.assign(perCore.getValues().begin(),
                         perCore.getValues().end());
      return result;
    }
    if (def &&
        isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::RemUIOp>(def)) {
      FailureOr<Linear> lhs = evaluate(def->getOperand(0));
      FailureOr<Linear> rhs = evaluate(def->getOperand(1));
      if (failed(lhs) || failed(rhs))
        return failure();
      if (isa<arith::AddIOp>(def))
        return lhs->add(*rhs, 1);
      if (isa<arith::SubIOp>(def))
        return lhs->add(*rhs, -1);
      if (isa<arith::MulIOp>(def)) {
        if (!rhs->isConstant() && lhs->isConstant())
          std::swap(*lhs, *rhs);
        if (rhs->isConstant())
          return Linear().add(*lhs, rhs->c);
      }
      if (isa<arith::RemUIOp>(def) && rhs->isConstant() && rhs->c > 0 &&
          lhs->c == 0 && lhs->core.empty() && lhs->terms.size() == 1 &&
          lhs->terms.begin()->first.second == 0 &&
          lhs->terms.begin()->second == 1) {
        result.terms[{lhs->terms.begin()->first.first, rhs->c}] = 1;
        return result;
      }
    }
    if (def)
      return def->emitError("expected an index the npu program can express "
                            "(constants, loop counters, the core id, +, -, * "
                            "by a constant, % of a loop counter)");
    return func.emitError("expected an index the npu program can express");
  }

  /// The view `value` (a memref) names: memory, buffer, byte offset,
  /// element type and element strides.
  FailureOr<json::Object> view(Value value) {
    auto type = cast<MemRefType>(value.getType());
    SmallVector<int64_t> strides;
    int64_t staticOffset;
    if (failed(type.getStridesAndOffset(strides, staticOffset)) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return failure();
    Linear elements;
    json::Object result;
    Value base = value;
    while (true) {
      Operation *def = base.getDefiningOp();
      if (auto subview = dyn_cast_or_null<memref::SubViewOp>(def)) {
        MemRefType source = subview.getSourceType();
        SmallVector<int64_t> sourceStrides;
        int64_t sourceOffset;
        if (failed(source.getStridesAndOffset(sourceStrides, sourceOffset)))
          return failure();
        for (auto [offset, stride] :
             llvm::zip(subview.getMixedOffsets(), sourceStrides)) {
          Linear term;
          if (auto v = dyn_cast<Value>(offset)) {
            FailureOr<Linear> evaluated = evaluate(v);
            if (failed(evaluated))
              return failure();
            term = *evaluated;
          } else {
            term.c = *getConstantIntValue(offset);
          }
          elements.add(term, stride);
        }
        base = subview.getSource();
        continue;
      }
      if (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp,
                          memref::TransposeOp, memref::CastOp>(def)) {
        base = def->getOperand(0);
        continue;
      }
      break;
    }
    // The base's own offset (a static subview chain's is in `elements`).
    int64_t elementSize =
        std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
    Linear bytes;
    bytes.add(elements, elementSize);
    if (auto buffer = base.getDefiningOp<BufferOp>()) {
      result["mem"] = stringifyMemorySpace(buffer.getSpace()).str();
      bytes.c += buffer.getOffset();
    } else if (auto arg = dyn_cast<BlockArgument>(base);
               arg && arg.getOwner() == &func.getBody().front()) {
      result["mem"] = "gm";
      result["buf"] = json::Array{"arg", arg.getArgNumber()};
    } else if (auto it = scratchIndex.find(base); it != scratchIndex.end()) {
      result["mem"] = "gm";
      result["buf"] = json::Array{"scratch", it->second};
    } else {
      return failure();
    }
    result["off"] = bytes.toJson();
    result["dtype"] = getDTypeName(type.getElementType()).str();
    result["strides"] = json::Array(strides);
    return result;
  }

  /// `view(value)` with an error on `op` when it is not a view.
  FailureOr<json::Object> viewOf(Operation &op, Value value) {
    FailureOr<json::Object> result = view(value);
    if (failed(result))
      op.emitError("expected a memref the npu program can address (a view "
                   "of a kernel argument, a scratch buffer or an "
                   "msnpu.buffer with static strides)");
    return result;
  }

  /// `view(value)` for an operand of a vector instruction of 2-d `shape`:
  /// rank 1 becomes 1 x N and broadcast dimensions get stride 0.
  FailureOr<json::Object> vectorView(Operation &op, Value value,
                                     ArrayRef<int64_t> shape) {
    FailureOr<json::Object> result = viewOf(op, value);
    if (failed(result))
      return failure();
    auto type = cast<MemRefType>(value.getType());
    SmallVector<int64_t> dims(type.getShape());
    SmallVector<int64_t> strides;
    for (const json::Value &s : *result->getArray("strides"))
      strides.push_back(*s.getAsInteger());
    if (dims.size() == 1) {
      dims.insert(dims.begin(), 1);
      strides.insert(strides.begin(), 0);
    }
    for (unsigned i = 0; i < 2; ++i)
      if (dims[i] == 1 && shape[i] != 1)
        strides[i] = 0;
    (*result)["strides"] = json::Array(strides);
    return result;
  }

  static SmallVector<int64_t> vectorShape(Value target) {
    auto type = cast<MemRefType>(target.getType());
    if (type.getRank() == 1)
      return {1, type.getDimSize(0)};
    return SmallVector<int64_t>(type.getShape());
  }

  FailureOr<json::Object> writeInstruction(Operation &op) {
    if (isa<DmaOp, FillOp>(op))
      return writeTransfer(op);
    if (isa<MmadOp, FixpipeOp>(op))
      return writeCube(op);
    if (isa<VReduceOp>(op))
      return writeReduce(cast<VReduceOp>(op));
    if (isa<VUnaryOp, VBinaryOp, VScalarOp, VSelectOp, VDupOp>(op))
      return writeVector(op);
    if (auto set = dyn_cast<SetFlagOp>(op))
      return writeFlag(op, set.getSource(), set.getTarget(), set.getId());
    if (auto wait = dyn_cast<WaitFlagOp>(op))
      return writeFlag(op, wait.getSource(), wait.getTarget(), wait.getId());
    if (isa<BarrierOp>(op))
      return json::Object{{"op", "barrier"}};
    return op.emitError("expected an msnpu instruction in a kernel for the "
                        "npu target, but found '")
           << op.getName() << "'";
  }

  /// Sets `inst[key]` to `value`; false when `value` failed.
  static bool put(json::Object &inst, StringRef key,
                  FailureOr<json::Object> value) {
    if (failed(value))
      return false;
    inst[key] = std::move(*value);
    return true;
  }

  /// The byte offset expression of `value`'s view.
  FailureOr<json::Value> offsetOf(Operation &op, Value value) {
    FailureOr<json::Object> view = viewOf(op, value);
    if (failed(view))
      return failure();
    return std::move(*view->get("off"));
  }

  /// `dma` and `fill`.
  FailureOr<json::Object> writeTransfer(Operation &op) {
    json::Object inst;
    if (auto dma = dyn_cast<DmaOp>(op)) {
      inst["op"] = "dma";
      if (!put(inst, "src", viewOf(op, dma.getSource())) ||
          !put(inst, "dst", viewOf(op, dma.getTarget())))
        return failure();
      inst["shape"] = json::Array(dma.getSource().getType().getShape());
      return inst;
    }
    auto fill = cast<FillOp>(op);
    inst["op"] = "fill";
    if (!put(inst, "dst", viewOf(op, fill.getTarget())))
      return failure();
    inst["shape"] = json::Array(fill.getTarget().getType().getShape());
    inst["value"] = getNumber(fill.getValue().convertToDouble());
    return inst;
  }

  /// `mmad` and `fixpipe`: fractal matrices by their L0 byte offsets.
  FailureOr<json::Object> writeCube(Operation &op) {
    if (auto mmad = dyn_cast<MmadOp>(op)) {
      FailureOr<json::Value> a = offsetOf(op, mmad.getLhs()),
                             b = offsetOf(op, mmad.getRhs()),
                             c = offsetOf(op, mmad.getAcc());
      if (failed(a) || failed(b) || failed(c))
        return failure();
      ArrayRef<int64_t> lhs = mmad.getLhs().getType().getShape(),
                        rhs = mmad.getRhs().getType().getShape();
      Type in = mmad.getLhs().getType().getElementType();
      return json::Object{{"op", "mmad"},          {"a", std::move(*a)},
                          {"b", std::move(*b)},    {"c", std::move(*c)},
                          {"m", lhs[0] * lhs[2]},  {"k", lhs[1] * lhs[3]},
                          {"n", rhs[1] * rhs[3]},  {"dtype", getDTypeName(in)},
                          {"init", mmad.getInit()}};
    }
    auto fix = cast<FixpipeOp>(op);
    json::Object inst;
    FailureOr<json::Value> src = offsetOf(op, fix.getSource());
    if (failed(src) || !put(inst, "dst", viewOf(op, fix.getTarget())))
      return failure();
    ArrayRef<int64_t> source = fix.getSource().getType().getShape(),
                      target = fix.getTarget().getType().getShape();
    inst["op"] = "fixpipe";
    inst["src"] = std::move(*src);
    inst["m"] = source[0] * 16;
    inst["n"] = source[1] * 16;
    inst["rows"] = target[0];
    inst["cols"] = target[1];
    inst["relu"] = fix.getRelu();
    inst["acc"] = fix.getAcc();
    return inst;
  }

  /// `vunary`, `vbinary`, `vscalar`, `vselect` and `vdup` as `vec`.
  FailureOr<json::Object> writeVector(Operation &op) {
    Value target = op.getOperands().back();
    SmallVector<int64_t> shape = vectorShape(target);
    json::Object inst{{"op", "vec"}, {"shape", json::Array(shape)}};
    if (!put(inst, "dst", vectorView(op, target, shape)))
      return failure();
    if (auto unary = dyn_cast<VUnaryOp>(op)) {
      inst["fn"] = stringifyUnaryFn(unary.getFn()).str();
      if (!put(inst, "a", vectorView(op, unary.getSource(), shape)))
        return failure();
    } else if (auto binary = dyn_cast<VBinaryOp>(op)) {
      inst["fn"] = stringifyBinaryFn(binary.getFn()).str();
      if (!put(inst, "a", vectorView(op, binary.getLhs(), shape)) ||
          !put(inst, "b", vectorView(op, binary.getRhs(), shape)))
        return failure();
    } else if (auto select = dyn_cast<VSelectOp>(op)) {
      inst["fn"] = "sel";
      if (!put(inst, "c", vectorView(op, select.getCond(), shape)) ||
          !put(inst, "a", vectorView(op, select.getLhs(), shape)) ||
          (select.getRhs() &&
           !put(inst, "b", vectorView(op, select.getRhs(), shape))))
        return failure();
      if (std::optional<APFloat> value = select.getScalar())
        inst["scalar"] = getNumber(value->convertToDouble());
    } else if (auto scalar = dyn_cast<VScalarOp>(op)) {
      inst["fn"] = stringifyBinaryFn(scalar.getFn()).str();
      if (!put(inst, "a", vectorView(op, scalar.getSource(), shape)))
        return failure();
      inst["scalar"] = getNumber(scalar.getScalar().convertToDouble());
    } else {
      inst["fn"] = "dup";
      inst["scalar"] = getNumber(cast<VDupOp>(op).getValue().convertToDouble());
    }
    return inst;
  }

  /// `vreduce`: its target is one element per row.
  FailureOr<json::Object> writeReduce(VReduceOp reduce) {
    Operation &op = *reduce;
    json::Object inst;
    FailureOr<json::Object> dst = viewOf(op, reduce.getTarget());
    if (failed(dst) || !put(inst, "src", viewOf(op, reduce.getSource())))
      return failure();
    json::Array *strides = dst->getArray("strides");
    (*dst)["strides"] = json::Array{(*strides)[0]};
    inst["op"] = "vreduce";
    inst["fn"] = stringifyReduceFn(reduce.getFn()).str();
    inst["shape"] = json::Array(reduce.getSource().getType().getShape());
    inst["dst"] = std::move(*dst);
    inst["acc"] = reduce.getAcc();
    return inst;
  }

  /// `set_flag` or `wait_flag`.
  static json::Object writeFlag(Operation &op, Pipe source, Pipe target,
                                int32_t id) {
    return json::Object{{"op", op.getName().stripDialect()},
                        {"src", stringifyPipe(source).str()},
                        {"dst", stringifyPipe(target).str()},
                        {"id", id}};
  }

  func::FuncOp func;
  DenseMap<Value, int64_t> scratchIndex;
  DenseMap<Value, int64_t> loopLevel;
  int64_t depth = 0;
};

class NPUTargetBackend : public TargetBackend {
public:
  StringRef getName() const override { return "npu"; }
  StringRef getBinaryFormat() const override { return "npu-program"; }

  bool supportsOptLevel(int level) const override { return level <= 1; }

  bool decomposesAttention() const override { return true; }

  ArrayRef<StringRef> getPrecisions() const override {
    static const StringRef precisions[] = {"f16", "bf16", "f32"};
    return precisions;
  }

  void buildKernelPhase(OpPassManager &pm,
                        const TargetOptions &options) const override {
    pm.addPass(createNPUPackWeightsPass({options.precision}));
  }

  ArrayRef<StringRef> getCodegenPhases() const override {
    static const StringRef phases[] = {"linalg", "bufferized", "npu"};
    return phases;
  }

  void buildCodegenPhase(StringRef phase, OpPassManager &pm,
                         const TargetOptions &options) const override {
    OpPassManager &kernels = pm.nest<exec::ExecutableOp>().nest<ModuleOp>();
    if (buildSharedKernelPhase(phase, kernels))
      return;
    if (phase == "npu") {
      kernels.addPass(createLowerMemRefCopiesPass());
      kernels.addPass(createCanonicalizerPass());
      kernels.addPass(createNPULowerKernelsPass({options.precision}));
      kernels.addPass(createCSEPass());
    }
  }

  FailureOr<std::string> serialize(exec::ExecutableOp executable,
                                   const TargetOptions &options,
                                   bool textual) const override {
    ModuleOp kernels = executable.getInnerModule();
    json::Object programs;
    for (auto func : kernels.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<json::Object> program = KernelWriter(func).write();
      if (failed(program))
        return failure();
      programs[(::ms::format::kKernelPrefix + func.getSymName()).str()] =
          std::move(*program);
    }
    NpuConfig config = getConfig(kernels);
    json::Object configJson;
    NpuConfig::forEachField(config, [&](const char *name, const auto &field) {
      configJson[name] = static_cast<int64_t>(field);
    });
    json::Object section{{"version", 1},
                         {"config", std::move(configJson)},
                         {"kernels", std::move(programs)}};
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    if (textual)
      os << llvm::formatv("{0:2}", json::Value(std::move(section)));
    else
      os << json::Value(std::move(section));
    return bytes;
  }
};
} // namespace

void mlir::ms::registerNPUTargetBackend() {
  registerTargetBackend(std::make_unique<NPUTargetBackend>());
}
