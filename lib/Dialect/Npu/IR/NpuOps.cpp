//===- NpuOps.cpp - msnpu operations --------------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Verifiers of the msnpu ops; each diagnostic names its constraint in
// docs/spec/msnpu.md (buffer_c1, dma_c2, ...).
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Npu/IR/NpuOps.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlir::ms::npu;

//===----------------------------------------------------------------------===//
// Configuration and memories
//===----------------------------------------------------------------------===//

NpuConfig mlir::ms::npu::getConfig(Operation *op) {
  NpuConfig config;
  for (; op; op = op->getParentOp()) {
    auto dict = op->getAttrOfType<DictionaryAttr>(kConfigAttrName);
    if (!dict)
      continue;
    NpuConfig::forEachField(config, [&](const char *name, auto &field) {
      if (auto value = dict.getAs<IntegerAttr>(name))
        field = value.getInt();
    });
    break;
  }
  return config;
}

DictionaryAttr mlir::ms::npu::getConfigAttr(MLIRContext *context,
                                            const NpuConfig &config) {
  Builder b(context);
  SmallVector<NamedAttribute> fields;
  NpuConfig::forEachField(config, [&](const char *name, const auto &field) {
    fields.push_back(b.getNamedAttr(name, b.getI64IntegerAttr(field)));
  });
  return b.getDictionaryAttr(fields);
}

MemorySpace mlir::ms::npu::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return MemorySpace::GM;
}

int64_t mlir::ms::npu::getCapacity(const NpuConfig &config, MemorySpace space) {
  static_assert(static_cast<int>(MemorySpace::UB) ==
                    static_cast<int>(::ms::npu::Space::UB),
                "msnpu's memory spaces are the simulator's, in order");
  return config.capacity(static_cast<::ms::npu::Space>(space));
}

MemRefType mlir::ms::npu::getBufferType(ArrayRef<int64_t> shape,
                                        Type elementType, MemorySpace space) {
  Attribute spaceAttr;
  if (space != MemorySpace::GM)
    spaceAttr = MemorySpaceAttr::get(elementType.getContext(), space);
  return MemRefType::get(shape, elementType, MemRefLayoutAttrInterface(),
                         spaceAttr);
}

namespace {
/// Returns the bytes a static memref of `type` spans when contiguous.
int64_t getByteSize(MemRefType type) {
  return type.getNumElements() *
         std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

/// Returns true when `type` is laid out row-major without gaps.
bool isContiguous(MemRefType type) {
  return type.hasStaticShape() && type.getLayout().isIdentity();
}

/// Returns true when the innermost `n` dimensions of `type` are laid out
/// row-major without gaps (the outer ones may be strided).
bool hasContiguousInner(MemRefType type, unsigned n) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (unsigned i = 0; i < n; ++i) {
    unsigned dim = type.getRank() - 1 - i;
    if (strides[dim] != expected)
      return false;
    expected *= type.getDimSize(dim);
  }
  return true;
}

/// Checks that `operand` (named `what`) is in UB, of rank 1 or 2, and
/// broadcasts to `target`'s shape.
LogicalResult verifyVectorOperand(Operation *op, StringRef what,
                                  MemRefType operand, MemRefType target) {
  if (getMemorySpace(operand) != MemorySpace::UB)
    return op->emitOpError()
           << "expects " << what << " in ub (vector_c1), found "
           << stringifyMemorySpace(getMemorySpace(operand));
  if (operand.getRank() != target.getRank())
    return op->emitOpError()
           << "expects " << what << " of rank " << target.getRank()
           << " (vector_c2), found rank " << operand.getRank();
  for (auto [have, want] : llvm::zip(operand.getShape(), target.getShape()))
    if (have != want && have != 1)
      return op->emitOpError()
             << "expects " << what << " of shape [" << target.getShape()
             << "] or broadcast to it (vector_c2), found ["
             << operand.getShape() << "]";
  return success();
}

/// Checks the target of a vector op.
LogicalResult verifyVectorTarget(Operation *op, MemRefType target) {
  if (getMemorySpace(target) != MemorySpace::UB)
    return op->emitOpError() << "expects its target in ub (vector_c1), found "
                             << stringifyMemorySpace(getMemorySpace(target));
  if (target.getRank() < 1 || target.getRank() > 2 || !target.hasStaticShape())
    return op->emitOpError() << "expects a static target of rank 1 or 2 "
                                "(vector_c2), found "
                             << target;
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

MemorySpace BufferOp::getSpace() { return getMemorySpace(getType()); }

LogicalResult BufferOp::verify() {
  MemRefType type = getType();
  MemorySpace space = getSpace();
  if (space == MemorySpace::GM)
    return emitOpError("expects an on-chip memory space (#msnpu.space<l1>, "
                       "l0a, l0b, l0c or ub) (buffer_c1), found none");
  if (!isContiguous(type))
    return emitOpError() << "expects an identity layout (buffer_c1), found "
                         << type;
  NpuConfig config = getConfig(*this);
  int64_t offset = getOffset();
  if (offset < 0 || offset % config.alignBytes != 0)
    return emitOpError() << "expects an offset aligned to " << config.alignBytes
                         << " bytes (buffer_c2), found " << offset;
  int64_t capacity = getCapacity(config, space);
  if (offset + getByteSize(type) > capacity)
    return emitOpError() << "needs bytes [" << offset << ", "
                         << offset + getByteSize(type) << ") of "
                         << stringifyMemorySpace(space) << ", which holds "
                         << capacity << " (buffer_c2)";
  return success();
}

//===----------------------------------------------------------------------===//
// DmaOp, FillOp
//===----------------------------------------------------------------------===//

Pipe DmaOp::getPipe() {
  MemorySpace from = getMemorySpace(getSource().getType());
  if (from == MemorySpace::GM)
    return Pipe::MTE2;
  if (from == MemorySpace::L1)
    return Pipe::MTE1;
  return Pipe::MTE3;
}

LogicalResult DmaOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  MemorySpace from = getMemorySpace(source), to = getMemorySpace(target);
  bool path = (from == MemorySpace::GM &&
               (to == MemorySpace::L1 || to == MemorySpace::UB)) ||
              (from == MemorySpace::L1 &&
               (to == MemorySpace::L0A || to == MemorySpace::L0B)) ||
              (from == MemorySpace::UB && to == MemorySpace::GM);
  if (!path)
    return emitOpError() << "has no data mover from "
                         << stringifyMemorySpace(from) << " to "
                         << stringifyMemorySpace(to)
                         << " (expected gm to l1 or ub, l1 to l0a or l0b, or "
                            "ub to gm) (dma_c1)";
  if (source.getShape() != target.getShape() || !source.hasStaticShape())
    return emitOpError() << "expects source and target of one static shape "
                            "(dma_c2), found ["
                         << source.getShape() << "] and [" << target.getShape()
                         << "]";
  if (source.getRank() < 1 || source.getRank() > 4)
    return emitOpError() << "expects rank 1 to 4 (dma_c2), found "
                         << source.getRank();
  Type have = source.getElementType(), want = target.getElementType();
  auto isFloat = [](Type t) { return t.isF32() || t.isF16() || t.isBF16(); };
  bool convert = isFloat(have) && isFloat(want) && getPipe() == Pipe::MTE2;
  if (have != want && !convert)
    return emitOpError() << "converts " << have << " to " << want
                         << "; only gm to l1 or ub converts, and only between "
                            "f32, f16 and bf16 (dma_c3)";
  return success();
}

Pipe FillOp::getPipe() { return Pipe::MTE2; }

LogicalResult FillOp::verify() {
  MemRefType target = getTarget().getType();
  MemorySpace space = getMemorySpace(target);
  if (space != MemorySpace::L1 && space != MemorySpace::UB)
    return emitOpError() << "expects a target in l1 or ub (fill_c1), found "
                         << stringifyMemorySpace(space);
  if (target.getRank() < 1 || target.getRank() > 4 || !target.hasStaticShape())
    return emitOpError()
           << "expects a static target of rank 1 to 4 (fill_c1), found "
           << target;
  return success();
}

//===----------------------------------------------------------------------===//
// MmadOp, FixpipeOp
//===----------------------------------------------------------------------===//

int64_t mlir::ms::npu::getFractalK(Type elementType) {
  if (elementType.isF16() || elementType.isBF16() || elementType.isF32() ||
      elementType.isInteger(8))
    return 32 / (elementType.getIntOrFloatBitWidth() / 8);
  return 0;
}

Pipe MmadOp::getPipe() { return Pipe::M; }

LogicalResult MmadOp::verify() {
  MemRefType lhs = getLhs().getType(), rhs = getRhs().getType(),
             acc = getAcc().getType();
  struct Operand {
    StringRef name;
    MemRefType type;
    MemorySpace space;
  } operands[] = {{"lhs", lhs, MemorySpace::L0A},
                  {"rhs", rhs, MemorySpace::L0B},
                  {"acc", acc, MemorySpace::L0C}};
  for (const Operand &operand : operands) {
    if (getMemorySpace(operand.type) != operand.space)
      return emitOpError() << "expects " << operand.name << " in "
                           << stringifyMemorySpace(operand.space)
                           << " (mmad_c1), found "
                           << stringifyMemorySpace(
                                  getMemorySpace(operand.type));
    if (operand.type.getRank() != 4 || !operand.type.hasStaticShape())
      return emitOpError()
             << "expects " << operand.name
             << " as a static 4-d fractal matrix (mmad_c2), found "
             << operand.type;
    if (!hasContiguousInner(operand.type, 4))
      return emitOpError() << "expects " << operand.name
                           << " contiguous (mmad_c2), found " << operand.type;
  }
  Type in = lhs.getElementType();
  int64_t k0 = getFractalK(in);
  Type out = in.isInteger(8) ? Type(IntegerType::get(getContext(), 32))
                             : Type(Float32Type::get(getContext()));
  if (!k0 || rhs.getElementType() != in || acc.getElementType() != out)
    return emitOpError() << "expects f16, bf16 or f32 x the same -> f32, or "
                            "i8 x i8 -> i32 (mmad_c3), found "
                         << in << " x " << rhs.getElementType() << " -> "
                         << acc.getElementType();
  ArrayRef<int64_t> a = lhs.getShape(), b = rhs.getShape(), c = acc.getShape();
  if (a[2] != 16 || a[3] != k0 || b[2] != k0 || b[3] != 16 || c[2] != 16 ||
      c[3] != 16)
    return emitOpError() << "expects fractals of 16x" << k0 << ", " << k0
                         << "x16 and 16x16 (mmad_c2), found " << a[2] << "x"
                         << a[3] << ", " << b[2] << "x" << b[3] << " and "
                         << c[2] << "x" << c[3];
  if (a[1] != b[0] || a[0] != c[0] || b[1] != c[1])
    return emitOpError()
           << "expects fractal counts MxK, KxN, MxN (mmad_c2), found " << a[0]
           << "x" << a[1] << ", " << b[0] << "x" << b[1] << ", " << c[0] << "x"
           << c[1];
  return success();
}

Pipe FixpipeOp::getPipe() { return Pipe::FIX; }

LogicalResult FixpipeOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (getMemorySpace(source) != MemorySpace::L0C || source.getRank() != 4 ||
      !source.hasStaticShape() || source.getDimSize(2) != 16 ||
      source.getDimSize(3) != 16 || !hasContiguousInner(source, 4))
    return emitOpError() << "expects a contiguous l0c fractal matrix "
                            "(MxNx16x16) as source (fixpipe_c1), found "
                         << source;
  MemorySpace to = getMemorySpace(target);
  if (to != MemorySpace::UB && to != MemorySpace::GM)
    return emitOpError() << "expects a target in ub or gm (fixpipe_c2), found "
                         << stringifyMemorySpace(to);
  if (target.getRank() != 2 || !target.hasStaticShape())
    return emitOpError() << "expects a static 2-d target (fixpipe_c2), found "
                         << target;
  Type in = source.getElementType(), out = target.getElementType();
  bool castOk = in.isF32() ? (out.isF32() || out.isF16()) : out == in;
  if (!castOk)
    return emitOpError() << "cannot store " << in << " as " << out
                         << " (fixpipe_c3)";
  if (target.getDimSize(0) > source.getDimSize(0) * 16 ||
      target.getDimSize(1) > source.getDimSize(1) * 16)
    return emitOpError() << "stores " << target.getDimSize(0) << "x"
                         << target.getDimSize(1) << " elements of a "
                         << source.getDimSize(0) * 16 << "x"
                         << source.getDimSize(1) * 16 << " matrix (fixpipe_c2)";
  return success();
}

//===----------------------------------------------------------------------===//
// Vector ops
//===----------------------------------------------------------------------===//

Pipe VUnaryOp::getPipe() { return Pipe::V; }

LogicalResult VUnaryOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (failed(verifyVectorTarget(*this, target)) ||
      failed(verifyVectorOperand(*this, "source", source, target)))
    return failure();
  if (getFn() != UnaryFn::Cast &&
      source.getElementType() != target.getElementType())
    return emitOpError() << "expects one element type (vector_c3), found "
                         << source.getElementType() << " and "
                         << target.getElementType();
  return success();
}

Pipe VBinaryOp::getPipe() { return Pipe::V; }

LogicalResult VBinaryOp::verify() {
  MemRefType target = getTarget().getType();
  if (failed(verifyVectorTarget(*this, target)) ||
      failed(verifyVectorOperand(*this, "lhs", getLhs().getType(), target)) ||
      failed(verifyVectorOperand(*this, "rhs", getRhs().getType(), target)))
    return failure();
  if (getLhs().getType().getElementType() != target.getElementType() ||
      getRhs().getType().getElementType() != target.getElementType())
    return emitOpError("expects one element type for all operands (vector_c3)");
  return success();
}

Pipe VScalarOp::getPipe() { return Pipe::V; }

LogicalResult VScalarOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (failed(verifyVectorTarget(*this, target)) ||
      failed(verifyVectorOperand(*this, "source", source, target)))
    return failure();
  if (source.getElementType() != target.getElementType())
    return emitOpError("expects one element type for all operands (vector_c3)");
  return success();
}

Pipe VSelectOp::getPipe() { return Pipe::V; }

LogicalResult VSelectOp::verify() {
  MemRefType target = getTarget().getType();
  if (failed(verifyVectorTarget(*this, target)) ||
      failed(verifyVectorOperand(*this, "cond", getCond().getType(), target)) ||
      failed(verifyVectorOperand(*this, "lhs", getLhs().getType(), target)) ||
      (getRhs() &&
       failed(verifyVectorOperand(*this, "rhs", getRhs().getType(), target))))
    return failure();
  if (!getRhs() == !getScalar())
    return emitOpError() << "expects an rhs view or a scalar (vector_c4), "
                            "found "
                         << (getRhs() ? "both" : "neither");
  if (getLhs().getType().getElementType() != target.getElementType() ||
      (getRhs() &&
       getRhs().getType().getElementType() != target.getElementType()))
    return emitOpError("expects one element type for lhs, rhs and the target "
                       "(vector_c3)");
  return success();
}

Pipe VDupOp::getPipe() { return Pipe::V; }

LogicalResult VDupOp::verify() {
  return verifyVectorTarget(*this, getTarget().getType());
}

Pipe VReduceOp::getPipe() { return Pipe::V; }

LogicalResult VReduceOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (getMemorySpace(source) != MemorySpace::UB ||
      getMemorySpace(target) != MemorySpace::UB)
    return emitOpError("expects source and target in ub (vreduce_c1)");
  if (source.getRank() != 2 || !source.hasStaticShape())
    return emitOpError() << "expects a static 2-d source (vreduce_c1), found "
                         << source;
  bool shapeOk = target.hasStaticShape() &&
                 target.getDimSize(0) == source.getDimSize(0) &&
                 (target.getRank() == 1 ||
                  (target.getRank() == 2 && target.getDimSize(1) == 1));
  if (!shapeOk)
    return emitOpError() << "expects a target of " << source.getDimSize(0)
                         << " rows (shape [" << source.getDimSize(0) << "] or ["
                         << source.getDimSize(0) << ", 1]) (vreduce_c1), found "
                         << target;
  if (source.getElementType() != target.getElementType())
    return emitOpError(
        "expects one element type for source and target (vreduce_c1)");
  return success();
}

//===----------------------------------------------------------------------===//
// Flags and cores
//===----------------------------------------------------------------------===//

namespace {
/// Checks the pipes a flag connects.
template <typename FlagOp>
LogicalResult verifyFlag(FlagOp op) {
  if (op.getSource() == op.getTarget())
    return op.emitOpError()
           << "connects pipe " << stringifyPipe(op.getSource())
           << " to itself (flag_c1); a pipe is ordered already";
  return success();
}
} // namespace

LogicalResult SetFlagOp::verify() { return verifyFlag(*this); }
LogicalResult WaitFlagOp::verify() { return verifyFlag(*this); }

LogicalResult PerCoreOp::verify() {
  int cores = getConfig(*this).cores;
  if (static_cast<int>(getValues().size()) != cores)
    return emitOpError() << "expects one value per core (" << cores
                         << ") (per_core_c1), found " << getValues().size();
  return success();
}

#define GET_OP_CLASSES
#include "ms/Dialect/Npu/IR/NpuOps.cpp.inc"
