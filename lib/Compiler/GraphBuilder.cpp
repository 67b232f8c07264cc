//===- GraphBuilder.cpp - build and compile msgraph from outside ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#include "ms/Compiler/GraphBuilder.h"
#include "ms/Target/KernelCache.h"

#include "ms/Compiler/Compiler.h"
#include "ms/Dialect/Dist/IR/DistOps.h"
#include "ms/Dialect/Exec/IR/ExecOps.h"
#include "ms/Dialect/Graph/IR/GraphDialect.h"
#include "ms/Dialect/Graph/IR/GraphOps.h"
#include "ms/Importer/ONNX/OnnxImporter.h"
#include "ms/InitAll.h"
#include "ms/Target/CUDA/CUDATarget.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/TargetParser/Host.h"

#include <dlfcn.h>

using namespace mlir;
using namespace mlir::ms;

namespace ms::api {

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// Prints the first file location inside `loc` as "file:line[:col]: ".
static void printLocationPrefix(Location loc, llvm::raw_ostream &os) {
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file)
      return WalkResult::advance();
    os << file.getFilename().getValue() << ":" << file.getLine();
    if (file.getColumn())
      os << ":" << file.getColumn();
    os << ": ";
    return WalkResult::interrupt();
  });
}

static StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

namespace {
/// Collects the context's errors (with their notes) as text while alive.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          if (diag.getSeverity() != DiagnosticSeverity::Error &&
              diag.getSeverity() != DiagnosticSeverity::Warning)
            return success();
          llvm::raw_string_ostream os(text);
          if (!text.empty())
            os << "\n";
          printLocationPrefix(diag.getLocation(), os);
          os << severityName(diag.getSeverity()) << ": " << diag.str();
          for (Diagnostic &note : diag.getNotes()) {
            os << "\n";
            printLocationPrefix(note.getLocation(), os);
            os << "note: " << note.str();
          }
          return success();
        }) {}

  /// Returns the collected text, or `fallback` when nothing was reported.
  std::string take(StringRef fallback) {
    std::string result = text.empty() ? fallback.str() : text;
    text.clear();
    return result;
  }

private:
  std::string text;
  ScopedDiagnosticHandler handler;
};
} // namespace

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

static FailureOr<RankedTensorType> tensorTypeOf(const TensorSpec &spec,
                                                MLIRContext *context,
                                                std::string &error) {
  Type element = exec::typeOfDtypeName(spec.dtype, context);
  // Traced graphs hold numbers; string tensors come only from ONNX.
  if (!element || isa<mlir::ms::graph::StringType>(element)) {
    error = "unsupported element type '" + spec.dtype +
            "'; expected one of " + exec::dtypeNames(/*withString=*/false);
    return failure();
  }
  int64_t elements = 1;
  for (int64_t dim : spec.shape) {
    if (dim < 0) {
      error = "expected non-negative dimensions, but found " +
              std::to_string(dim);
      return failure();
    }
    if (llvm::MulOverflow(elements, dim, elements) ||
        elements > (int64_t(1) << 40)) {
      error = "the tensor is too large (more than 2^40 elements)";
      return failure();
    }
  }
  return RankedTensorType::get(spec.shape, element);
}

//===----------------------------------------------------------------------===//
// GraphBuilder
//===----------------------------------------------------------------------===//

struct GraphBuilder::Impl {
  Impl() : context(makeRegistry()) {
    // Errors reach Python as a few lines, without the op's IR.
    context.printOpOnDiagnostic(false);
    context.loadAllAvailableDialects();
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }

  Location locationOf(const SourceLocation &loc) {
    if (loc.file.empty())
      return UnknownLoc::get(&context);
    return FileLineColLoc::get(&context, loc.file, loc.line, loc.column);
  }

  int add(Value value) {
    values.push_back(value);
    return static_cast<int>(values.size()) - 1;
  }

  bool checkOpen(std::string &error) {
    if (!finished)
      return true;
    error = "the function is finished; no more ops can be added";
    return false;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  std::vector<Value> values;
  SmallVector<Type> inputTypes;
  bool finished = false;
};

GraphBuilder::GraphBuilder(const std::string &name)
    : impl(std::make_unique<Impl>()) {
  OpBuilder b(&impl->context);
  Location loc = NameLoc::get(b.getStringAttr(name));
  impl->module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(impl->module->getBody());
  impl->function =
      func::FuncOp::create(b, loc, "main", b.getFunctionType({}, {}));
  impl->function.addEntryBlock();
}

GraphBuilder::~GraphBuilder() = default;

int GraphBuilder::addInput(const std::string &name, const TensorSpec &spec,
                           std::string &error) {
  if (!impl->checkOpen(error))
    return -1;
  auto type = tensorTypeOf(spec, &impl->context, error);
  if (failed(type)) {
    error = "input '" + name + "': " + error;
    return -1;
  }
  Block &body = impl->function.getBody().front();
  unsigned index = body.getNumArguments();
  Value arg = body.addArgument(*type, impl->function.getLoc());
  impl->inputTypes.push_back(*type);
  impl->function.setType(
      FunctionType::get(&impl->context, impl->inputTypes, {}));
  impl->function.setArgAttr(index, "ms.name",
                            StringAttr::get(&impl->context, name));
  return impl->add(arg);
}

int GraphBuilder::addConstant(const TensorSpec &spec, const void *data,
                              size_t bytes, const SourceLocation &loc,
                              std::string &error) {
  if (!impl->checkOpen(error))
    return -1;
  auto type = tensorTypeOf(spec, &impl->context, error);
  if (failed(type))
    return -1;
  unsigned width = type->getElementTypeBitWidth();
  size_t expected = type->getNumElements() * (width == 1 ? 1 : width / 8);
  if (bytes != expected) {
    error = "constant of type " + std::to_string(expected) +
            " bytes expected, but found " + std::to_string(bytes) + " bytes";
    return -1;
  }
  DenseElementsAttr value;
  if (width == 1) {
    const auto *bools = static_cast<const uint8_t *>(data);
    SmallVector<bool> elements(bools, bools + bytes);
    for (bool &e : elements)
      e = e != 0;
    value = DenseElementsAttr::get(*type, ArrayRef<bool>(elements));
  } else {
    value = DenseElementsAttr::getFromRawBuffer(
        *type, ArrayRef<char>(static_cast<const char *>(data), bytes));
  }
  OpBuilder b(&impl->context);
  b.setInsertionPointToEnd(&impl->function.getBody().front());
  auto op = graph::ConstantOp::create(b, impl->locationOf(loc), value);
  return impl->add(op.getResult());
}

int GraphBuilder::addOp(const std::string &name,
                        const std::vector<int> &operandIds,
                        const std::string &attributes,
                        const TensorSpec *resultType,
                        const SourceLocation &loc, std::string &error) {
  if (!impl->checkOpen(error))
    return -1;
  MLIRContext *context = &impl->context;
  Location location = impl->locationOf(loc);
  DiagnosticCollector diagnostics(context);
  std::optional<RegisteredOperationName> opName =
      RegisteredOperationName::lookup(name, context);
  if (!opName || opName->getDialectNamespace() != "msgraph") {
    emitError(location) << "unknown op '" << name
                        << "'; expected an msgraph op";
    error = diagnostics.take("unknown op");
    return -1;
  }
  OperationState state(location, *opName);
  for (int id : operandIds) {
    if (id < 0 || static_cast<size_t>(id) >= impl->values.size()) {
      emitError(location) << "'" << name << "' has an unknown operand id "
                          << id;
      error = diagnostics.take("unknown operand");
      return -1;
    }
    state.operands.push_back(impl->values[id]);
  }
  if (!attributes.empty()) {
    Attribute parsed = parseAttribute(attributes, context);
    auto dict = dyn_cast_or_null<DictionaryAttr>(parsed);
    if (!dict) {
      emitError(location) << "'" << name
                          << "': expected an attribute dictionary, but found '"
                          << attributes << "'";
      error = diagnostics.take("malformed attributes");
      return -1;
    }
    NamedAttrList list(dict.getValue());
    if (failed(opName->verifyInherentAttrs(
            list, [&] { return emitError(location) << "'" << name << "': "; }))) {
      error = diagnostics.take("malformed attributes");
      return -1;
    }
    state.addAttributes(dict.getValue());
  }
  // The result type is a placeholder until inference replaces it.
  Type placeholder = RankedTensorType::get({}, Float32Type::get(context));
  if (resultType) {
    auto type = tensorTypeOf(*resultType, context, error);
    if (failed(type))
      return -1;
    placeholder = *type;
  }
  state.addTypes(placeholder);

  OpBuilder b(context);
  b.setInsertionPointToEnd(&impl->function.getBody().front());
  Operation *op = b.create(state);
  LogicalResult valid = success();
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    valid = infer.inferReturnTypes(context, location, op->getOperands(),
                                   op->getRawDictionaryAttrs(),
                                   op->getPropertiesStorage(),
                                   op->getRegions(), types);
    if (succeeded(valid))
      for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
        result.setType(type);
  } else if (!resultType) {
    emitError(location) << "'" << name
                        << "' does not infer its result type; pass one";
    valid = failure();
  }
  if (succeeded(valid))
    valid = verify(op);
  if (succeeded(valid)) {
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || !type.hasStaticShape()) {
      emitError(location) << "'" << name
                          << "' expected a statically shaped result, but found "
                          << op->getResult(0).getType();
      valid = failure();
    }
  }
  if (failed(valid)) {
    op->erase();
    error = diagnostics.take("'" + name + "' is invalid");
    return -1;
  }
  return impl->add(op->getResult(0));
}

TensorSpec GraphBuilder::typeOf(int id) const {
  TensorSpec spec;
  if (id < 0 || static_cast<size_t>(id) >= impl->values.size())
    return spec;
  auto type = cast<RankedTensorType>(impl->values[id].getType());
  spec.dtype = mlir::ms::exec::dtypeName(type.getElementType());
  spec.shape = type.getShape().vec();
  return spec;
}

bool GraphBuilder::setMesh(const std::vector<int64_t> &shape,
                           const std::vector<std::string> &axes,
                           std::string &error) {
  std::string shapeText, axesText;
  for (auto [i, dim] : llvm::enumerate(shape))
    shapeText += (i ? "x" : "") + std::to_string(dim);
  for (auto [i, axis] : llvm::enumerate(axes))
    axesText += (i ? "," : "") + axis;
  if (axes.empty() || shape.size() != axes.size()) {
    error = "expected one axis name per mesh dim, but found " +
            std::to_string(shape.size()) + " dims and " +
            std::to_string(axes.size()) + " names";
    return false;
  }
  dist::MeshAttr mesh =
      dist::parseMesh(&impl->context, shapeText, axesText, error);
  if (!mesh)
    return false;
  (*impl->module)->setAttr(dist::kMeshAttrName, mesh);
  return true;
}

/// Returns `text` as a spec checked against the builder's mesh for a value
/// of `rank` dims, or null with `error` set.
static dist::SpecAttr checkedSpec(ModuleOp module, const std::string &text,
                                  int64_t rank, std::string &error) {
  auto mesh = module->getAttrOfType<dist::MeshAttr>(dist::kMeshAttrName);
  if (!mesh) {
    error = "a sharding needs a mesh (ms.jit(..., mesh=ms.Mesh(...)))";
    return nullptr;
  }
  dist::SpecAttr spec = dist::parseSpec(module.getContext(), text, error);
  if (!spec)
    return nullptr;
  error = dist::checkSpec(spec, mesh, rank);
  return error.empty() ? spec : nullptr;
}

int GraphBuilder::addConstraint(int id, const std::string &text,
                                const SourceLocation &loc, std::string &error) {
  if (!impl->checkOpen(error))
    return -1;
  if (id < 0 || static_cast<size_t>(id) >= impl->values.size()) {
    error = "unknown value id " + std::to_string(id);
    return -1;
  }
  Value value = impl->values[id];
  auto type = cast<RankedTensorType>(value.getType());
  dist::SpecAttr spec = checkedSpec(*impl->module, text, type.getRank(), error);
  if (!spec)
    return -1;
  OpBuilder b(&impl->context);
  b.setInsertionPointToEnd(&impl->function.getBody().front());
  return impl->add(
      dist::ConstraintOp::create(b, impl->locationOf(loc), value, spec));
}

bool GraphBuilder::setInputSharding(int index, const std::string &text,
                                    std::string &error) {
  if (index < 0 || static_cast<size_t>(index) >= impl->inputTypes.size()) {
    error = "unknown input " + std::to_string(index);
    return false;
  }
  auto type = cast<RankedTensorType>(impl->inputTypes[index]);
  dist::SpecAttr spec = checkedSpec(*impl->module, text, type.getRank(), error);
  if (!spec)
    return false;
  impl->function.setArgAttr(index, dist::kSpecAttrName, spec);
  return true;
}

bool GraphBuilder::setOutputSharding(int index, const std::string &text,
                                     std::string &error) {
  if (!impl->finished ||
      static_cast<unsigned>(index) >= impl->function.getNumResults()) {
    error = "unknown output " + std::to_string(index);
    return false;
  }
  auto type = cast<RankedTensorType>(impl->function.getResultTypes()[index]);
  dist::SpecAttr spec = checkedSpec(*impl->module, text, type.getRank(), error);
  if (!spec)
    return false;
  impl->function.setResultAttr(index, dist::kSpecAttrName, spec);
  return true;
}

bool GraphBuilder::finish(const std::vector<int> &outputs,
                          std::string &error) {
  if (!impl->checkOpen(error))
    return false;
  SmallVector<Value> results;
  for (int id : outputs) {
    if (id < 0 || static_cast<size_t>(id) >= impl->values.size()) {
      error = "unknown output id " + std::to_string(id);
      return false;
    }
    results.push_back(impl->values[id]);
  }
  if (results.empty()) {
    error = "the function returns nothing; expected at least one tensor";
    return false;
  }
  OpBuilder b(&impl->context);
  b.setInsertionPointToEnd(&impl->function.getBody().front());
  func::ReturnOp::create(b, impl->function.getLoc(), results);
  impl->function.setType(FunctionType::get(
      &impl->context, impl->inputTypes, ValueRange(results).getTypes()));
  for (unsigned i = 0; i < results.size(); ++i)
    impl->function.setResultAttr(
        i, "ms.name",
        StringAttr::get(&impl->context, "output_" + std::to_string(i)));
  impl->finished = true;
  DiagnosticCollector diagnostics(&impl->context);
  if (failed(verify(*impl->module))) {
    error = diagnostics.take("the traced function is invalid");
    return false;
  }
  return true;
}

std::string GraphBuilder::print(bool withLocations) const {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (withLocations)
    flags.enableDebugInfo();
  // Large constants print as hex: exact and compact.
  impl->module->print(os, flags);
  return text;
}

/// Compiles a copy of `module` with `settings` (stopping at `stage` when not
/// empty); the stage's text goes to `text`, module bytes to `bytes`.
static bool compileCopy(ModuleOp module, const CompileSettings &settings,
                        const std::string &stage, std::string &text,
                        std::string &bytes, std::string &error) {
  MLIRContext *context = module.getContext();
  DiagnosticCollector diagnostics(context);
  std::vector<std::string> stages = compileStages(settings.target);
  if (!stage.empty() && !stages.empty() &&
      !llvm::is_contained(stages, stage)) {
    error = "unknown stage '" + stage + "'; expected one of " +
            llvm::join(stages, ", ");
    return false;
  }
  OwningOpRef<ModuleOp> copy = module.clone();
  CompileOptions options;
  options.optLevel = settings.optLevel;
  options.target = settings.target;
  // On cuda the processor is the GPU's architecture ("native": the
  // default, --cuda-arch's); the host code is for this host.
  options.targetOptions.cpu = settings.targetCpu;
  if (settings.target == "cuda") {
    options.targetOptions.cpu = "native";
    if (settings.targetCpu != "native")
      options.targetOptions.cudaArch = settings.targetCpu;
  }
  options.multiCopy = settings.multiCopy;
  options.targetOptions.precision = settings.precision;
  // Shared with ms-compile: kernels compiled by either are reused.
  options.targetOptions.cacheDir = KernelCache::defaultDirectory();
  options.compileTo = stage;
  llvm::raw_string_ostream os(text);
  FailureOr<std::string> result = compileModule(*copy, options, {}, os);
  if (failed(result)) {
    error = diagnostics.take("compilation failed");
    return false;
  }
  bytes = std::move(*result);
  return true;
}

bool GraphBuilder::compile(const CompileSettings &settings,
                           std::string &moduleBytes, std::string &error) const {
  if (!impl->finished) {
    error = "the function is not finished";
    return false;
  }
  std::string text;
  return compileCopy(*impl->module, settings, "", text, moduleBytes, error);
}

bool GraphBuilder::lower(const CompileSettings &settings,
                         const std::string &stage, std::string &text,
                         std::string &error) const {
  if (!impl->finished) {
    error = "the function is not finished";
    return false;
  }
  if (stage.empty()) {
    error = "no stage given";
    return false;
  }
  std::string bytes;
  return compileCopy(*impl->module, settings, stage, text, bytes, error);
}

//===----------------------------------------------------------------------===//
// Free functions
//===----------------------------------------------------------------------===//

bool compileOnnxFile(const std::string &path, const CompileSettings &settings,
                     const std::map<std::string, std::vector<int64_t>> &shapes,
                     std::string &moduleBytes, std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read '" + path + "': " + file.getError().message();
    return false;
  }
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  // Errors reach Python as a few lines, without the op's IR.
  context.printOpOnDiagnostic(false);
  context.loadAllAvailableDialects();
  DiagnosticCollector diagnostics(&context);
  OnnxImportOptions options;
  options.modelDirectory = llvm::sys::path::parent_path(path).str();
  if (options.modelDirectory.empty())
    options.modelDirectory = ".";
  for (const auto &[name, shape] : shapes)
    options.inputShapes[name] = SmallVector<int64_t>(shape.begin(), shape.end());
  OwningOpRef<ModuleOp> module =
      importOnnxModel((*file)->getBuffer(), path, &context, options);
  if (!module) {
    error = diagnostics.take("cannot import '" + path + "'");
    return false;
  }
  std::string text;
  return compileCopy(*module, settings, "", text, moduleBytes, error);
}

std::vector<std::string> compileStages(const std::string &target) {
  registerAllTargetBackends();
  return mlir::ms::getCompilePhases(target);
}

std::string cudaArchFor(const std::string &deviceArch) {
  return mlir::ms::getCudaArchForDevice(deviceArch);
}

std::string compilerIdentity(const std::string &targetCpu) {
  std::string identity = mlir::ms::KernelCache::buildIdentity();
  // Each CPU of the list; "native" is this host's CPU and features.
  std::string cpus;
  for (llvm::StringRef name : llvm::split(targetCpu, ',')) {
    std::string cpu = name.trim().str();
    if (cpu == "native") {
      cpu = llvm::sys::getHostCPUName().str();
      for (const auto &feature : llvm::sys::getHostCPUFeatures())
        if (feature.second)
          cpu += "+" + feature.first().str();
    }
    cpus += (cpus.empty() ? "" : ",") + cpu;
  }
  return identity + ";cpu " + cpus;
}

} // namespace ms::api
