//===- OnnxSchema.cpp - checking nodes against ONNX op schemas ------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// The typed binder's first half: before a converter runs, its node is checked
// against the ONNX schema of its op at the model's opset (OnnxSchemas.inc,
// generated from ONNX's Changelog): input and output counts, required
// inputs, element types and the type variables they share, attribute types
// and required attributes. Converters then read what the schema guarantees.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;

namespace {
/// One input or output of a schema.
struct ValueSpec {
  std::string name;
  /// '\0' single, '?' optional, '*' variadic of one type, '+' of mixed types.
  char kind = 0;
  /// A type variable ("T") or, in parentheses, an inline list "(int64)".
  std::string type;
};

/// One version of one op.
struct Schema {
  int64_t since = 0;
  int64_t minInputs = 0, maxInputs = 0, minOutputs = 0, maxOutputs = 0;
  std::vector<ValueSpec> inputs, outputs;
  /// Attribute name -> (AttributeProto type name, required).
  llvm::StringMap<std::pair<std::string, bool>> attributes;
  /// Type variable -> allowed element type names; "any" when unchecked.
  llvm::StringMap<std::string> constraints;
};

struct RawSchema {
  const char *op;
  int64_t since, minInputs, maxInputs;
  const char *inputs;
  int64_t minOutputs, maxOutputs;
  const char *outputs, *attributes, *constraints;
};

constexpr RawSchema rawSchemas[] = {
#define MS_ONNX_SCHEMA(OP, SINCE, MIN_IN, MAX_IN, INS, MIN_OUT, MAX_OUT, OUTS,  \
                       ATTRS, CONS)                                            \
  {OP, SINCE, MIN_IN, MAX_IN, INS, MIN_OUT, MAX_OUT, OUTS, ATTRS, CONS},
#include "OnnxSchemas.inc"
};
} // namespace

static std::vector<ValueSpec> parseValues(StringRef text) {
  std::vector<ValueSpec> out;
  SmallVector<StringRef> items;
  text.split(items, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [name, type] = item.rsplit(':');
    ValueSpec spec;
    if (!name.empty() && StringRef("?*+").contains(name.back())) {
      spec.kind = name.back();
      name = name.drop_back();
    }
    spec.name = name.str();
    spec.type = type.str();
    out.push_back(std::move(spec));
  }
  return out;
}

static Schema parseSchema(const RawSchema &raw) {
  Schema s;
  s.since = raw.since;
  s.minInputs = raw.minInputs;
  s.maxInputs = raw.maxInputs;
  s.minOutputs = raw.minOutputs;
  s.maxOutputs = raw.maxOutputs;
  s.inputs = parseValues(raw.inputs);
  s.outputs = parseValues(raw.outputs);
  SmallVector<StringRef> items;
  StringRef(raw.attributes).split(items, ' ', -1, false);
  for (StringRef item : items) {
    auto [name, type] = item.split(':');
    bool required = type.consume_back("!");
    s.attributes[name] = {type.str(), required};
  }
  items.clear();
  StringRef(raw.constraints).split(items, ' ', -1, false);
  for (StringRef item : items) {
    auto [name, types] = item.split('=');
    s.constraints[name] = types.str();
  }
  return s;
}

/// The schema of `op` at `opset` (the newest version not after it), or null
/// for ops without one (outside the default domain).
static const Schema *lookupSchema(StringRef op, int64_t opset) {
  static const llvm::StringMap<std::vector<Schema>> schemas = [] {
    llvm::StringMap<std::vector<Schema>> table;
    for (const RawSchema &raw : rawSchemas)
      table[raw.op].push_back(parseSchema(raw)); // Sorted by version.
    return table;
  }();
  auto it = schemas.find(op);
  if (it == schemas.end())
    return nullptr;
  const Schema *best = nullptr;
  for (const Schema &s : it->second)
    if (s.since <= opset)
      best = &s;
  return best;
}

/// ONNX's name for an element type ("float", "int64", ...), or "".
static std::string onnxTypeName(Type type) {
  if (isa<graph::StringType>(type))
    return "string";
  if (type.isF16())
    return "float16";
  if (type.isBF16())
    return "bfloat16";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (auto i = dyn_cast<IntegerType>(type)) {
    if (i.getWidth() == 1)
      return "bool";
    return (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
  }
  return "";
}

/// The allowed element types of `spec` ("" when unchecked).
static StringRef allowedTypes(const Schema &schema, const ValueSpec &spec) {
  StringRef type = spec.type;
  if (type.consume_front("(") && type.consume_back(")"))
    return type == "any" ? "" : type;
  auto it = schema.constraints.find(spec.type);
  if (it == schema.constraints.end() || it->second == "any")
    return "";
  return it->second;
}

/// AttributeProto's name for the type of `attr`.
static std::string attributeTypeName(const onnx::AttributeProto &attr) {
  if (attr.type() == onnx::AttributeProto::UNDEFINED)
    return "no type";
  if (!onnx::AttributeProto::AttributeType_IsValid(attr.type()))
    return "type code " + std::to_string(attr.type());
  return onnx::AttributeProto::AttributeType_Name(
      static_cast<onnx::AttributeProto::AttributeType>(attr.type()));
}

/// Names inputs or outputs for messages: "X, W, B (optional)".
static std::string describe(ArrayRef<ValueSpec> specs) {
  std::string text;
  for (const ValueSpec &spec : specs) {
    if (!text.empty())
      text += ", ";
    text += spec.name;
    if (spec.kind == '?')
      text += " (optional)";
    else if (spec.kind)
      text += " (variadic)";
  }
  return text;
}

/// The spec of input or output `i` (the last one repeats when variadic).
static const ValueSpec *specAt(ArrayRef<ValueSpec> specs, size_t i) {
  if (i < specs.size())
    return &specs[i];
  if (!specs.empty() && (specs.back().kind == '*' || specs.back().kind == '+'))
    return &specs.back();
  return nullptr;
}

LogicalResult mlir::ms::onnx_importer::checkSchema(NodeContext &c) {
  const Schema *schema = lookupSchema(c.node.op_type(), c.opset);
  if (!schema)
    return success();
  auto fail = [&]() {
    return c.error() << "at opset " << c.opset << " (schema version "
                     << schema->since << "): ";
  };

  // Counts and required inputs.
  int64_t numInputs = c.node.input_size();
  if (schema->maxInputs >= 0 && numInputs > schema->maxInputs)
    return fail() << "expected at most " << schema->maxInputs << " inputs ("
                  << describe(schema->inputs) << "), but found " << numInputs;
  for (auto [i, spec] : llvm::enumerate(schema->inputs)) {
    bool required = spec.kind == 0 ||
                    ((spec.kind == '*' || spec.kind == '+') &&
                     static_cast<int64_t>(i) < schema->minInputs);
    if (required && (static_cast<int64_t>(i) >= numInputs ||
                     c.node.input(i).empty()))
      return fail() << "expected input #" << i << " ('" << spec.name
                    << "'), but found none; the op takes "
                    << describe(schema->inputs);
  }
  // Only optional inputs may be omitted (an empty name); variadic ones not.
  for (int64_t i = 0; i < numInputs; ++i) {
    const ValueSpec *spec = specAt(schema->inputs, i);
    if (spec && spec->kind != '?' && c.node.input(i).empty())
      return fail() << "expected input #" << i << " ('" << spec->name
                    << "'), but found none; only optional inputs may be "
                       "omitted";
  }
  if (numInputs < schema->minInputs)
    return fail() << "expected at least " << schema->minInputs
                  << " inputs, but found " << numInputs;
  int64_t numOutputs = c.node.output_size();
  if (schema->maxOutputs >= 0 && numOutputs > schema->maxOutputs)
    return fail() << "expected at most " << schema->maxOutputs << " outputs ("
                  << describe(schema->outputs) << "), but found "
                  << numOutputs;
  if (numOutputs < schema->minOutputs)
    return fail() << "expected at least " << schema->minOutputs
                  << " outputs, but found " << numOutputs;

  // Element types, and one element type per type variable.
  llvm::StringMap<std::pair<std::string, unsigned>> bound;
  for (unsigned i = 0; i < c.numInputs(); ++i) {
    const ValueSpec *spec = specAt(schema->inputs, i);
    Value value = c.input(i);
    if (!spec || !value)
      continue;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      continue;
    std::string name = onnxTypeName(type.getElementType());
    StringRef allowed = allowedTypes(*schema, *spec);
    if (!allowed.empty()) {
      SmallVector<StringRef> names;
      allowed.split(names, '|');
      if (!llvm::is_contained(names, name))
        return fail() << "expected input #" << i << " ('" << spec->name
                      << "') to have element type "
                      << llvm::join(names, ", ") << ", but found "
                      << (name.empty() ? "an unsupported type" : name);
    }
    if (spec->kind == '+' || StringRef(spec->type).starts_with("("))
      continue;
    auto [it, inserted] = bound.try_emplace(spec->type, name, i);
    if (!inserted && it->second.first != name)
      return fail() << "expected input #" << i << " ('" << spec->name
                    << "') to have the element type of input #"
                    << it->second.second << " (both are " << spec->type
                    << "), " << it->second.first << ", but found " << name;
  }

  // Attributes: types of the known ones, and the required ones present.
  for (const auto &attr : c.node.attribute()) {
    auto it = schema->attributes.find(attr.name());
    if (it == schema->attributes.end())
      continue;
    if (attributeTypeName(attr) != it->second.first)
      return fail() << "expected attribute '" << attr.name() << "' to be "
                    << it->second.first << ", but found "
                    << attributeTypeName(attr);
  }
  for (const auto &entry : schema->attributes)
    if (entry.second.second && !c.attr(entry.first()))
      return fail() << "expected attribute '" << entry.first() << "' ("
                    << entry.second.first << "), but found none";
  return success();
}
