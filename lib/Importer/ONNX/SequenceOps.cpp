//===- SequenceOps.cpp - ONNX sequence ops as compile-time lists ----------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// ONNX sequences (SequenceConstruct, SequenceInsert, SplitToSequence, ...)
// become lists of msgraph values while importing: the static-shape pipeline
// has no sequence type, and every sequence op with constant positions can be
// resolved at import time. Positions and split sizes that are graph inputs
// get the usual "bind it with --bind-input" error.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;

bool mlir::ms::onnx_importer::isSequenceOp(StringRef opType) {
  static constexpr StringLiteral ops[] = {
      "SequenceEmpty", "SequenceConstruct", "SequenceInsert",
      "SequenceErase", "SequenceAt",        "SequenceLength",
      "ConcatFromSequence", "SplitToSequence"};
  return llvm::is_contained(ops, opType);
}

/// The constant position in input `i`, normalized into [0, size] (or
/// [0, size) unless `allowEnd`).
static FailureOr<int64_t> position(NodeContext &c, unsigned i, int64_t size,
                                   bool allowEnd) {
  auto values = c.constantInts(i, "position");
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return c.error() << "expected a scalar position, but found "
                     << values->size() << " values";
  int64_t pos = values->front();
  int64_t limit = allowEnd ? size : size - 1;
  if (pos < -size || pos > limit)
    return c.error() << "expected a position in [" << -size << ", " << limit
                     << "], but found " << pos;
  return pos < 0 ? pos + size : pos;
}

/// The sequence named by input `i`.
static FailureOr<SmallVector<Value>> sequenceInput(NodeContext &c, unsigned i,
                                                   SequenceMap &sequences) {
  if (static_cast<int>(i) >= c.node.input_size() || c.node.input(i).empty())
    return c.error() << "expected a sequence as input #" << i;
  auto it = sequences.find(c.node.input(i));
  if (it == sequences.end())
    return c.error() << "expected input '" << c.node.input(i)
                     << "' to be a sequence, but it is a tensor";
  return it->second;
}

static Value scalarI64(NodeContext &c, int64_t value) {
  auto type = RankedTensorType::get({}, c.b.getI64Type());
  return c.constant(DenseElementsAttr::get(type, value));
}

/// A tensor output must be its own value: a sequence element may be a graph
/// input or another output.
static FailureOr<Value> copy(NodeContext &c, Value value) {
  return c.create<graph::IdentityOp>(Type(), value);
}

/// The longest sequence the importer builds (each element is one value).
static constexpr int64_t kMaxSequenceLength = 65536;

static FailureOr<SmallVector<Value>> splitToSequence(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  auto axisOr = normalizeAxis(c, c.getInt("axis", 0), rank);
  if (failed(axisOr))
    return failure();
  int64_t axis = *axisOr;
  int64_t dim = type.getDimSize(axis);
  if (ShapedType::isDynamic(dim))
    return c.error() << "cannot split a dynamic dimension";
  // Each part is one value: a sequence this long is a malformed model (and
  // a zero-size tensor may have any dim).
  auto tooMany = [&](int64_t parts) {
    return c.error() << "expected at most " << kMaxSequenceLength
                     << " parts, but the split makes " << parts;
  };
  SmallVector<int64_t> sizes;
  bool squeeze = false;
  if (c.hasInput(1)) {
    auto split = c.constantInts(1, "split");
    if (failed(split))
      return failure();
    if (c.inputType(1).getRank() == 0) {
      int64_t chunk = split->front();
      if (chunk <= 0)
        return c.error() << "expected a positive split size, but found "
                         << chunk;
      int64_t parts = dim / chunk + (dim % chunk != 0);
      if (parts > kMaxSequenceLength)
        return tooMany(parts);
      for (int64_t offset = 0; offset < dim; offset += chunk)
        sizes.push_back(std::min(chunk, dim - offset));
    } else {
      sizes = *split;
      int64_t total = 0;
      for (int64_t s : sizes)
        if (s < 0 || llvm::AddOverflow(total, s, total))
          return c.error() << "split sizes do not add up to dimension "
                           << axis << " (" << dim << ")";
      if (total != dim)
        return c.error() << "split sizes do not add up to dimension " << axis
                         << " (" << dim << ")";
      if ((int64_t)sizes.size() > kMaxSequenceLength)
        return tooMany(sizes.size());
    }
  } else {
    if (dim > kMaxSequenceLength)
      return tooMany(dim);
    sizes.assign(dim, 1);
    squeeze = c.getInt("keepdims", 1) == 0;
  }
  SmallVector<Value> parts;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    auto part = slice(c, c.input(0), {offset}, {offset + size}, {axis}, {1});
    if (failed(part))
      return failure();
    Value value = *part;
    if (squeeze) {
      SmallVector<int64_t> shape(type.getShape());
      shape.erase(shape.begin() + axis);
      auto reshaped = reshape(c, value, shape);
      if (failed(reshaped))
        return failure();
      value = *reshaped;
    }
    parts.push_back(value);
    offset += size;
  }
  return parts;
}

static FailureOr<Value> concatFromSequence(NodeContext &c,
                                           ArrayRef<Value> sequence) {
  if (sequence.empty())
    return c.error() << "cannot concatenate an empty sequence";
  int64_t rank = cast<RankedTensorType>(sequence.front().getType()).getRank();
  bool newAxis = c.getInt("new_axis", 0) != 0;
  int64_t outRank = newAxis ? rank + 1 : rank;
  int64_t axis = c.getInt("axis", 0);
  if (axis < -outRank || axis >= outRank)
    return c.error() << "expected axis in [" << -outRank << ", " << outRank
                     << "), but found " << axis;
  if (axis < 0)
    axis += outRank;
  SmallVector<Value> inputs;
  for (Value v : sequence) {
    if (newAxis) {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<int64_t> shape(type.getShape());
      shape.insert(shape.begin() + axis, 1);
      auto reshaped = reshape(c, v, shape);
      if (failed(reshaped))
        return failure();
      v = *reshaped;
    }
    inputs.push_back(v);
  }
  if (inputs.size() == 1)
    return copy(c, inputs.front());
  return c.create<graph::ConcatOp>(Type(), inputs,
                                   c.b.getI64IntegerAttr(axis));
}

LogicalResult
mlir::ms::onnx_importer::importSequenceOp(NodeContext &c,
                                          SequenceMap &sequences,
                                          llvm::StringMap<Value> &values) {
  StringRef op = c.node.op_type();
  if (c.node.output_size() != 1 || c.node.output(0).empty())
    return c.error() << "expected one output";
  std::string output = c.node.output(0);

  // Ops producing a sequence.
  SmallVector<Value> result;
  if (op == "SequenceEmpty") {
    sequences[output] = {};
    return success();
  }
  if (op == "SequenceConstruct") {
    for (unsigned i = 0; i < c.numInputs(); ++i) {
      if (!c.hasInput(i))
        return c.error() << "expected tensor inputs";
      result.push_back(c.input(i));
    }
    sequences[output] = result;
    return success();
  }
  if (op == "SplitToSequence") {
    auto parts = splitToSequence(c);
    if (failed(parts))
      return failure();
    sequences[output] = *parts;
    return success();
  }
  auto sequence = sequenceInput(c, 0, sequences);
  if (failed(sequence))
    return failure();
  int64_t size = sequence->size();
  if (op == "SequenceInsert") {
    if (!c.hasInput(1))
      return c.error() << "expected a tensor to insert";
    int64_t pos = size;
    if (c.hasInput(2)) {
      auto p = position(c, 2, size, /*allowEnd=*/true);
      if (failed(p))
        return failure();
      pos = *p;
    }
    result = *sequence;
    result.insert(result.begin() + pos, c.input(1));
    sequences[output] = result;
    return success();
  }
  if (op == "SequenceErase") {
    if (size == 0)
      return c.error() << "cannot erase from an empty sequence";
    int64_t pos = size - 1;
    if (c.hasInput(1)) {
      auto p = position(c, 1, size, /*allowEnd=*/false);
      if (failed(p))
        return failure();
      pos = *p;
    }
    result = *sequence;
    result.erase(result.begin() + pos);
    sequences[output] = result;
    return success();
  }

  // Ops producing a tensor.
  FailureOr<Value> value = failure();
  if (op == "SequenceLength") {
    value = scalarI64(c, size);
  } else if (op == "SequenceAt") {
    auto p = position(c, 1, size, /*allowEnd=*/false);
    if (failed(p))
      return failure();
    value = copy(c, (*sequence)[*p]);
  } else if (op == "ConcatFromSequence") {
    value = concatFromSequence(c, *sequence);
  } else {
    return c.error() << "is not a sequence op";
  }
  if (failed(value))
    return failure();
  values[output] = *value;
  return success();
}
