//===- ImporterImpl.h - internals of the ONNX importer ----------*- C++ -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_LIB_IMPORTER_ONNX_IMPORTERIMPL_H
#define MS_LIB_IMPORTER_ONNX_IMPORTERIMPL_H

#include "OnnxSchema.pb.h"

#include "ms/Dialect/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace mlir::ms::onnx_importer {

namespace onnx = ::ms::onnx;

/// Converts an ONNX element type code; emits an error naming the code and
/// returns null for strings, complex, sub-byte and unknown types.
Type convertElementType(MLIRContext *ctx, int32_t code, Location loc);

/// Tensors larger than this many bytes are refused: a constant would not fit
/// beside the compiler, and a value this large is a malformed model.
constexpr uint64_t kMaxTensorBytes = uint64_t(16) << 30;

/// The most elements a converter materializes as a constant from its own
/// loop (EyeLike's identity, OneHot's positions).
constexpr int64_t kMaxBuiltConstantElements = int64_t(1) << 26;

/// Whether `shape` of `elem` fits kMaxTensorBytes, and each dim does
/// (dynamic dims count as 1).
/// Every value the importer creates is held to it, so the converters' size
/// arithmetic on static dims cannot overflow.
bool fitsTensorLimit(ArrayRef<int64_t> shape, Type elem);

/// Raw data of at least this many bytes, read from a file the GraphDialect
/// maps, becomes a #msgraph.mapped constant instead of a copy.
constexpr uint64_t kMinMappedBytes = 64 * 1024;

/// A tensor's raw data where the importer left it in the model file instead
/// of the protobuf.
struct RawData {
  StringRef bytes;
  /// When the file is mapped for the context's lifetime
  /// (GraphDialect::mapFile): its real path and the bytes' offset in it.
  StringRef mappedPath;
  uint64_t offset = 0;
};

/// Builds a constant from a TensorProto: dense, or, with `mapFiles`, mapped
/// (#msgraph.mapped) if its raw data is at least kMinMappedBytes read from a
/// file (`rawData` in a mapped model, or external data). With `external`,
/// appends where the bytes of an external-data tensor lie, as an entry of
/// graph::kExternalDataAttrName.
FailureOr<ElementsAttr> convertTensor(
    const onnx::TensorProto &tensor, MLIRContext *ctx, Location loc,
    StringRef modelDirectory, SmallVectorImpl<Attribute> *external = nullptr,
    std::optional<RawData> rawData = std::nullopt, bool mapFiles = false);

/// What a handler sees of one node.
class NodeContext {
public:
  NodeContext(OpBuilder &b, Location loc, const onnx::NodeProto &node,
              int64_t opset, SmallVector<Value> inputs)
      : b(b), loc(loc), node(node), opset(opset), inputs(std::move(inputs)) {}

  OpBuilder &b;
  Location loc;
  const onnx::NodeProto &node;
  int64_t opset;
  /// Operands by position; null for an omitted optional input.
  SmallVector<Value> inputs;

  /// Reports a problem with this node (prefixed with its name and type).
  InFlightDiagnostic error() const;

  unsigned numInputs() const { return inputs.size(); }
  bool hasInput(unsigned i) const { return i < inputs.size() && inputs[i]; }
  Value input(unsigned i) const { return hasInput(i) ? inputs[i] : Value(); }
  RankedTensorType inputType(unsigned i) const {
    return cast<RankedTensorType>(inputs[i].getType());
  }

  const onnx::AttributeProto *attr(StringRef name) const;
  int64_t getInt(StringRef name, int64_t fallback) const;
  float getFloat(StringRef name, float fallback) const;
  std::string getString(StringRef name, StringRef fallback) const;
  std::optional<SmallVector<int64_t>> getInts(StringRef name) const;
  std::optional<SmallVector<float>> getFloats(StringRef name) const;

  /// The constant behind input `i`, if it is one.
  DenseElementsAttr constantInput(unsigned i) const;
  /// Input `i` as a list of integers; errors if it is not constant.
  FailureOr<SmallVector<int64_t>> constantInts(unsigned i,
                                               StringRef what) const;
  /// Input `i` as a list of doubles; errors if it is not constant.
  FailureOr<SmallVector<double>> constantFloats(unsigned i,
                                                StringRef what) const;

  /// Creates an msgraph op: ops that infer their type get it inferred
  /// (`resultType` is then ignored), every op is verified, and an op whose
  /// operands are all constant is folded. Errors name this node.
  template <typename OpTy, typename... Args>
  FailureOr<Value> create(Type resultType, Args &&...args) {
    if (!resultType)
      resultType = RankedTensorType::get({}, b.getF32Type());
    auto op = OpTy::create(b, loc, resultType, std::forward<Args>(args)...);
    return finish(op.getOperation());
  }

  /// Creates a msgraph.constant.
  Value constant(ElementsAttr value);

private:
  FailureOr<Value> finish(Operation *op);
};

/// Checks `c`'s node against the ONNX schema of its op at its opset (input
/// and output counts, required inputs, element types, attribute types and
/// required attributes); reports the first mismatch naming the node.
LogicalResult checkSchema(NodeContext &c);

/// A handler converts one node into values for its outputs (in order; fewer
/// values than outputs means the rest are unsupported unless unused).
using Handler = std::function<FailureOr<SmallVector<Value>>(NodeContext &)>;

/// The op table: handlers by op type and the opset they apply from.
class OpTable {
public:
  void onOp(StringRef name, int64_t sinceVersion, Handler handler) {
    table[name.str()][sinceVersion] = std::move(handler);
  }
  /// Returns the handler for `name` at `opset`, or null.
  const Handler *lookup(StringRef name, int64_t opset) const;

private:
  std::map<std::string, std::map<int64_t, Handler>> table;
};

void populateElementwiseOps(OpTable &table);
void populateNeuralNetworkOps(OpTable &table);
void populateTensorOps(OpTable &table);
void populateStringOps(OpTable &table);
void populateLossOps(OpTable &table);

/// Returns true for a tensor of !msgraph.string.
bool isStringTensor(Value value);

/// Normalizes a possibly negative `axis` for `rank`, or reports (naming the
/// node) that it is out of range.
inline FailureOr<int64_t> normalizeAxis(NodeContext &c, int64_t axis,
                                        int64_t rank) {
  if (axis < -rank || axis >= rank)
    return c.error() << "expected axis in [" << -rank << ", " << rank
                     << "), but found " << axis;
  return axis < 0 ? axis + rank : axis;
}

/// What a handler returns.
using Results = FailureOr<SmallVector<Value>>;

/// Wraps a single created value as a handler result.
inline Results one(FailureOr<Value> value) {
  if (failed(value))
    return failure();
  return SmallVector<Value>{*value};
}

/// An i64 array attribute.
inline DenseI64ArrayAttr i64s(NodeContext &c, ArrayRef<int64_t> values) {
  return c.b.getDenseI64ArrayAttr(values);
}

/// `value` (a size or count computed from floats the model gives) truncated
/// to int64; an error naming `what` when it is NaN or beyond int64.
inline FailureOr<int64_t> toInt64(NodeContext &c, double value,
                                  StringRef what) {
  if (!(value >= -0x1p63 && value < 0x1p63)) {
    c.error() << "expected " << what << " within int64, but found " << value;
    return failure();
  }
  return static_cast<int64_t>(value);
}

/// A rank-0 constant of `elem` holding `value` (for integers truncated
/// toward zero, saturated to int64 and NaN taken as 0: an attribute such as
/// Shrink's bias may hold any float). Reports an error and returns null for
/// an element type that is not a number (a string tensor).
inline Value scalar(NodeContext &c, Type elem, double value) {
  if (!isa<FloatType, IntegerType>(elem)) {
    c.error() << "expected a tensor of numbers, but found element type "
              << elem;
    return {};
  }
  auto type = RankedTensorType::get({}, elem);
  if (isa<FloatType>(elem))
    return c.constant(
        DenseElementsAttr::get(type, c.b.getFloatAttr(elem, value)));
  int64_t integer = 0;
  if (value >= 0x1p63)
    integer = std::numeric_limits<int64_t>::max();
  else if (value < -0x1p63)
    integer = std::numeric_limits<int64_t>::min();
  else if (!std::isnan(value))
    integer = static_cast<int64_t>(value);
  return c.constant(
      DenseElementsAttr::get(type, c.b.getIntegerAttr(elem, integer)));
}

/// Reshapes `value` to a static `shape`.
FailureOr<Value> reshape(NodeContext &c, Value value, ArrayRef<int64_t> shape);


/// Builds compositions of msgraph ops for one node. After the first op that
/// fails (its error already reported), every call builds nothing and
/// returns null; result() then fails.
class Composer {
public:
  explicit Composer(NodeContext &c) : c(c) {}

  /// An op of the operand's type (elementwise unary).
  template <typename OpTy> Value unary(Value x) {
    if (!ready({x}))
      return {};
    return take(c.create<OpTy>(x.getType(), x));
  }
  /// A broadcasting binary op (or any op inferring its type from operands
  /// and attributes `args`).
  template <typename OpTy, typename... Args> Value op(Value x, Args... args) {
    if (!ready({x}))
      return {};
    return take(c.create<OpTy>(Type(), x, args...));
  }
  template <typename OpTy> Value binary(Value x, Value y) {
    if (!ready({x, y}))
      return {};
    return take(c.create<OpTy>(Type(), x, y));
  }
  Value where(Value condition, Value onTrue, Value onFalse) {
    if (!ready({condition, onTrue, onFalse}))
      return {};
    return take(
        c.create<graph::WhereOp>(Type(), condition, onTrue, onFalse));
  }
  /// A scalar constant of `like`'s element type.
  Value scalarLike(Value like, double value) {
    if (!ready({like}))
      return {};
    return scalar(
        c, cast<RankedTensorType>(like.getType()).getElementType(), value);
  }
  /// `x` cast to element type `elem`.
  Value castTo(Value x, Type elem) {
    if (!ready({x}))
      return {};
    auto type = cast<RankedTensorType>(x.getType());
    if (type.getElementType() == elem)
      return x;
    return take(c.create<graph::CastOp>(type.clone(elem), x));
  }
  /// `x` reshaped to a static `shape`.
  Value reshapeTo(Value x, ArrayRef<int64_t> shape) {
    if (!ready({x}))
      return {};
    return take(onnx_importer::reshape(c, x, shape));
  }
  /// `x` with its dims permuted.
  Value transpose(Value x, ArrayRef<int64_t> perm) {
    if (!ready({x}))
      return {};
    return take(c.create<graph::TransposeOp>(
        Type(), x, c.b.getDenseI64ArrayAttr(perm)));
  }
  /// A reduction of `x` over `axes`, keeping them as size 1.
  template <typename OpTy> Value reduceKeep(Value x, ArrayRef<int64_t> axes) {
    if (!ready({x}))
      return {};
    return take(c.create<OpTy>(Type(), x, c.b.getDenseI64ArrayAttr(axes),
                               c.b.getBoolAttr(true)));
  }
  /// A constant of `type` from `values` (converted to its element type).
  Value constant(RankedTensorType type, ArrayRef<double> values);
  /// The node's single result, or failure.
  Results result(Value v) {
    if (failedOnce || !v)
      return failure();
    return SmallVector<Value>{v};
  }

  /// `v`'s value, or null (and every later step yields null) on failure.
  Value take(FailureOr<Value> v) {
    if (failed(v)) {
      failedOnce = true;
      return {};
    }
    return *v;
  }

private:
  bool ready(std::initializer_list<Value> values) {
    return !failedOnce && llvm::all_of(values, [](Value v) { return !!v; });
  }

  NodeContext &c;
  bool failedOnce = false;
};

inline Value Composer::constant(RankedTensorType type,
                                ArrayRef<double> values) {
  if (failedOnce)
    return {};
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat()) {
    c.error() << "expected a numeric element type for a constant, but found "
              << elem;
    failedOnce = true;
    return {};
  }
  // Raw values, not one uniqued attribute per element (large constants).
  if (auto floatType = dyn_cast<FloatType>(elem)) {
    SmallVector<APFloat> floats;
    floats.reserve(values.size());
    for (double v : values) {
      APFloat f(v);
      bool lost;
      f.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      floats.push_back(f);
    }
    return c.constant(DenseElementsAttr::get(type, floats));
  }
  SmallVector<APInt> ints;
  ints.reserve(values.size());
  for (double v : values)
    ints.push_back(APInt(elem.getIntOrFloatBitWidth(), (int64_t)v,
                         /*isSigned=*/true, /*implicitTrunc=*/true));
  return c.constant(DenseElementsAttr::get(type, ints));
}

/// Casts `value` to element type `elem` (no op when it already has it).
inline FailureOr<Value> castTo(NodeContext &c, Value value, Type elem) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elem)
    return value;
  return c.create<graph::CastOp>(type.clone(elem), value);
}


/// Emits msgraph.slice taking [starts[k], ends[k]) with steps[k] along
/// axes[k], clamping like ONNX (and NumPy) do.
FailureOr<Value> slice(NodeContext &c, Value input, ArrayRef<int64_t> starts,
                       ArrayRef<int64_t> ends, ArrayRef<int64_t> axes,
                       ArrayRef<int64_t> steps);

/// Sequences are lists of tensors known while importing, by value name.
using SequenceMap = llvm::StringMap<SmallVector<Value>>;

/// Whether `opType` is a sequence op (importSequenceOp converts it).
bool isSequenceOp(StringRef opType);

/// Converts a sequence op node: sequence operands are read from `sequences`
/// (the node's inputs hold null for them), positions and split sizes must be
/// constants, and results go to `sequences` or `values`.
LogicalResult importSequenceOp(NodeContext &c, SequenceMap &sequences,
                               llvm::StringMap<Value> &values);

/// Whether `node` is ai.onnx.preview.training's Gradient.
bool isGradientOp(const onnx::NodeProto &node);

/// Converts a Gradient node: differentiates the already imported ops from
/// the values named by its `xs` attribute to the one named by `y` (looked
/// up in `values`), seeded with ones; one result per x.
FailureOr<SmallVector<Value>>
importGradient(NodeContext &c, const llvm::StringMap<Value> &values);

} // namespace mlir::ms::onnx_importer

#endif // MS_LIB_IMPORTER_ONNX_IMPORTERIMPL_H
