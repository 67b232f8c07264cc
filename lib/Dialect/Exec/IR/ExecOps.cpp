//===- ExecOps.cpp - msexec operations ------------------------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Dialect/Exec/IR/ExecOps.h"

#include "ms/Dialect/Graph/IR/GraphDialect.h"

#include "ms/runtime/ModuleFormat.h"
#include "ms/runtime/ms_runtime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::ms::exec;

#define GET_OP_CLASSES
#include "ms/Dialect/Exec/IR/ExecOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

namespace {
/// How a dtype is represented in the compiler.
enum class DTypeKind { FLOAT, BFLOAT, BOOL, SIGNED, UNSIGNED, STRING };

/// One row of the element-type table (ms/runtime/DTypes.def).
struct DTypeRow {
  const char *name;
  uint64_t size;
  DTypeKind kind;
  unsigned bits;
};
constexpr DTypeRow dtypeRows[] = {
#define MS_DTYPE(ENUM, NAME, SIZE, KIND, BITS, NUMPY, NPY, FORMATS)               \
  {NAME, SIZE, DTypeKind::KIND, BITS},
#include "ms/runtime/DTypes.def"
};
} // namespace

/// The compiler type of `row`.
static Type typeOf(const DTypeRow &row, MLIRContext *context) {
  Builder b(context);
  switch (row.kind) {
  case DTypeKind::FLOAT:
    return row.bits == 16   ? Type(b.getF16Type())
           : row.bits == 32 ? Type(b.getF32Type())
                            : Type(b.getF64Type());
  case DTypeKind::BFLOAT:
    return b.getBF16Type();
  case DTypeKind::BOOL:
    return b.getI1Type();
  case DTypeKind::SIGNED:
    return b.getIntegerType(row.bits);
  case DTypeKind::UNSIGNED:
    return b.getIntegerType(row.bits, /*isSigned=*/false);
  case DTypeKind::STRING:
    return mlir::ms::graph::StringType::get(context);
  }
  return {};
}

/// The table row of `type` (signed and signless integers share one), or null.
static const DTypeRow *rowOf(Type type) {
  for (const DTypeRow &row : dtypeRows) {
    Type rowType = typeOf(row, type.getContext());
    if (rowType == type)
      return &row;
    auto intType = dyn_cast<IntegerType>(type);
    if (row.kind == DTypeKind::SIGNED && intType && intType.isSigned() &&
        intType.getWidth() == row.bits)
      return &row;
  }
  return nullptr;
}

std::string mlir::ms::exec::dtypeName(Type type) {
  const DTypeRow *row = rowOf(type);
  return row ? row->name : "";
}

uint64_t mlir::ms::exec::elementByteSize(Type type) {
  const DTypeRow *row = rowOf(type);
  return row ? row->size : 0;
}

Type mlir::ms::exec::typeOfDtypeName(StringRef name, MLIRContext *context) {
  for (const DTypeRow &row : dtypeRows)
    if (name == row.name)
      return typeOf(row, context);
  return {};
}

std::string mlir::ms::exec::dtypeNames(bool withString) {
  std::string names;
  for (const DTypeRow &row : dtypeRows)
    if (withString || row.kind != DTypeKind::STRING)
    names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

uint64_t BufferType::getStaticByteSize() const {
  RankedTensorType type = getTensorType();
  if (!type.hasStaticShape())
    return 0;
  return type.getNumElements() * elementByteSize(type.getElementType());
}

uint64_t BufferType::getByteSize(std::optional<int64_t> capacity) const {
  if (capacity)
    return *capacity * elementByteSize(getTensorType().getElementType());
  return getStaticByteSize();
}

//===----------------------------------------------------------------------===//
// Device code
//===----------------------------------------------------------------------===//

ModuleOp ExecutableOp::getInnerModule() {
  return dyn_cast_or_null<ModuleOp>(
      getBody().empty() || getBody().front().empty()
          ? nullptr
          : &getBody().front().front());
}

LogicalResult ExecutableOp::verify() {
  Block &body = getBody().front();
  if (!llvm::hasSingleElement(body) || !isa<ModuleOp>(body.front()))
    return emitOpError("expected the body to hold exactly one builtin.module");
  return success();
}

/// Returns the module whose symbol table holds the executables, or null.
static Operation *getExecutableTable(Operation *from) {
  Operation *table = SymbolTable::getNearestSymbolTable(from);
  while (table && !isa<ModuleOp>(table))
    table = SymbolTable::getNearestSymbolTable(table->getParentOp());
  return table;
}

Operation *mlir::ms::exec::lookupKernel(Operation *from,
                                        SymbolRefAttr kernel) {
  Operation *table = getExecutableTable(from);
  if (!table || kernel.getNestedReferences().size() != 1)
    return nullptr;
  auto executable = dyn_cast_or_null<ExecutableOp>(
      SymbolTable::lookupSymbolIn(table, kernel.getRootReference()));
  if (!executable || !executable.getInnerModule())
    return nullptr;
  return SymbolTable::lookupSymbolIn(executable.getInnerModule(),
                                     kernel.getLeafReference());
}

//===----------------------------------------------------------------------===//
// The plan
//===----------------------------------------------------------------------===//

LogicalResult PlanOp::verify() {
  for (Operation &op : getBody().front())
    if (!isa<ExecDialect>(op.getDialect()))
      return op.emitOpError("is not allowed in a plan; expected msexec ops");
  return success();
}

LogicalResult WeightOp::verify() {
  auto type = cast<BufferType>(getBuffer().getType()).getTensorType();
  auto valueType = cast<ShapedType>(getValue().getType());
  ArrayRef<int64_t> shape = valueType.getShape();
  // One block per rank: a leading dim of ranks.
  if (getPerRank()) {
    if (shape.empty() || shape.front() < 1)
      return emitOpError("expected a value with a leading dim of ranks "
                         "(per_rank), but found ")
             << valueType;
    shape = shape.drop_front();
  }
  if (shape != type.getShape() ||
      valueType.getElementType() != type.getElementType())
    return emitOpError("expected a value of type ")
           << (getPerRank() ? "<ranks>x" : "") << type << ", but found "
           << valueType;
  if (!getFile() && !getFileOffset())
    return success();
  if (!getFile() || !getFileOffset())
    return emitOpError("expected both file and file_offset, or neither");
  if (getPerRank() || getOffset())
    return emitOpError("expected a weight in a file to have no per_rank "
                       "and no offset in the weights section");
  if (*getFileOffset() < 0 ||
      *getFileOffset() % int64_t(::ms::format::kAlignment) != 0)
    return emitOpError("expected a file_offset that is a non-negative "
                       "multiple of ")
           << ::ms::format::kAlignment << ", but found " << *getFileOffset();
  return success();
}

LogicalResult AllocOp::verify() {
  auto type = cast<BufferType>(getBuffer().getType()).getTensorType();
  if (!type.hasStaticShape() && !getCapacity())
    return emitOpError("expected a capacity for a buffer of dynamic type ")
           << type;
  if (type.hasStaticShape() && getCapacity())
    return emitOpError("expected no capacity for a buffer of static type ")
           << type;
  if (IntegerAttr capacity = getCapacityAttr(); capacity && capacity.getInt() < 0)
    return emitOpError("expected a non-negative capacity, but found ")
           << capacity.getInt();
  return success();
}

uint64_t AllocOp::getByteSize() {
  return cast<BufferType>(getBuffer().getType()).getByteSize(getCapacity());
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *kernel = lookupKernel(*this, getKernel());
  if (!kernel) {
    // After serialization the executable is a binary: nothing to check.
    Operation *table = getExecutableTable(*this);
    if (table && isa_and_nonnull<BinaryOp>(SymbolTable::lookupSymbolIn(
                     table, getKernel().getRootReference())))
      return success();
    return emitOpError("expected a kernel @executable::@function, but found ")
           << getKernel() << ", which names none";
  }
  SmallVector<Type> expected;
  if (auto func = dyn_cast<func::FuncOp>(kernel)) {
    // Before bufferization: operands, then results.
    llvm::append_range(expected, func.getArgumentTypes());
    llvm::append_range(expected, func.getResultTypes());
  } else if (auto func = dyn_cast<LLVM::LLVMFuncOp>(kernel)) {
    // Lowered: one pointer per buffer.
    if (func.getNumArguments() != getArgs().size())
      return emitOpError("expected ")
             << func.getNumArguments() << " buffers for kernel "
             << getKernel() << ", but found " << getArgs().size();
    return success();
  } else {
    return emitOpError("expected ") << getKernel() << " to be a function";
  }
  if (expected.size() != getArgs().size())
    return emitOpError("expected ")
           << expected.size() << " buffers for kernel " << getKernel()
           << " (its operands, then its results), but found "
           << getArgs().size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(expected, getArgs()))) {
    auto [type, arg] = pair;
    // Bufferized kernels take memrefs: compare shape and element type (a
    // lowered kernel's integers are signless).
    auto shaped = dyn_cast<ShapedType>(type);
    auto tensor = cast<BufferType>(arg.getType()).getTensorType();
    auto sameElements = [&] {
      Type kernelElement = shaped.getElementType();
      Type bufferElement = tensor.getElementType();
      if (kernelElement == bufferElement)
        return true;
      auto kernelInt = dyn_cast<IntegerType>(kernelElement);
      auto bufferInt = dyn_cast<IntegerType>(bufferElement);
      return isa<MemRefType>(shaped) && kernelInt && bufferInt &&
             kernelInt.isSignless() &&
             kernelInt.getWidth() == bufferInt.getWidth();
    };
    if (!shaped || shaped.getShape() != tensor.getShape() || !sameElements())
      return emitOpError("expected buffer ")
             << i << " of kernel " << getKernel() << " to hold " << type
             << ", but found " << tensor;
  }
  return success();
}

int64_t WeightOp::getRankStride() {
  return getPerRank() ? cast<BufferType>(getType()).getStaticByteSize() : 0;
}

int64_t WeightOp::getStorageBytes() {
  int64_t bytes = cast<BufferType>(getType()).getStaticByteSize();
  if (!getPerRank())
    return bytes;
  auto type = cast<ShapedType>(getValue().getType());
  return type.getRank() > 0 ? bytes * type.getDimSize(0) : bytes;
}

LogicalResult CopyOp::verify() {
  if (getSource().getType() != getTarget().getType())
    return emitOpError("expected buffers of one type, but found ")
           << getSource().getType() << " and " << getTarget().getType();
  if (!cast<BufferType>(getSource().getType()).getTensorType().hasStaticShape())
    return emitOpError("expected a buffer of static type");
  return success();
}

uint64_t OutputOp::getByteSize() {
  return cast<BufferType>(getBuffer().getType()).getByteSize(getCapacity());
}

SmallVector<Value> OffloadOp::getCallerBuffers() {
  SmallVector<Value> buffers;
  llvm::SmallDenseSet<Value> seen;
  // A weight with one block per rank or in a file is where the runtime
  // says: its address is not a constant offset in generated code.
  auto fromCaller = [](Operation *def) {
    auto weight = dyn_cast_or_null<WeightOp>(def);
    return isa_and_nonnull<InputOp, OutputOp>(def) ||
           (weight && (weight.getPerRank() || weight.getFile()));
  };
  for (Operation &op : getBody().front())
    for (Value operand : op.getOperands())
      if (fromCaller(operand.getDefiningOp()) && seen.insert(operand).second)
        buffers.push_back(operand);
  return buffers;
}

LogicalResult OffloadOp::verify() {
  for (Operation &op : getBody().front())
    if (!isa<LaunchOp, CopyOp>(op))
      return op.emitOpError("is not allowed in an offloaded graph; expected "
                            "launches and copies");
  return success();
}

LogicalResult BodyOp::verify() {
  Block &block = getBody().front();
  for (BlockArgument arg : block.getArguments())
    if (!isa<BufferType>(arg.getType()))
      return emitOpError("expected buffer arguments, but argument ")
             << arg.getArgNumber() << " is " << arg.getType();
  for (Operation &op : block)
    if (!isa<LaunchOp, CopyOp>(op))
      return op.emitOpError("is not allowed in a body; expected launches and "
                            "copies");
  return success();
}

BodyOp CallOp::getBodyOp() {
  return SymbolTable::lookupNearestSymbolFrom<BodyOp>(*this, getCalleeAttr());
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto body = symbols.lookupNearestSymbolFrom<BodyOp>(*this, getCalleeAttr());
  if (!body)
    return emitOpError("expected a body, but found ")
           << getCalleeAttr() << ", which names none";
  TypeRange expected = body.getBody().front().getArgumentTypes();
  if (!llvm::equal(expected, getArgs().getTypes()))
    return emitOpError("expected buffers ")
           << expected << " for body " << getCalleeAttr() << ", but found "
           << getArgs().getTypes();
  return success();
}

void mlir::ms::exec::forEachStep(
    PlanOp plan, function_ref<void(Operation *, ValueRange)> fn) {
  for (Operation &op : plan.getBody().front()) {
    if (isBufferDeclaration(&op))
      continue;
    if (auto offload = dyn_cast<OffloadOp>(op)) {
      for (Operation &step : offload.getBody().front())
        fn(&step, step.getOperands());
      continue;
    }
    auto call = dyn_cast<CallOp>(op);
    BodyOp body = call ? call.getBodyOp() : nullptr;
    if (!body) {
      fn(&op, op.getOperands());
      continue;
    }
    IRMapping bound;
    bound.map(body.getBody().getArguments(), call.getArgs());
    for (Operation &step : body.getBody().front()) {
      SmallVector<Value> operands =
          llvm::map_to_vector(step.getOperands(), [&](Value v) {
            return bound.lookupOrDefault(v);
          });
      fn(&step, operands);
    }
  }
}
