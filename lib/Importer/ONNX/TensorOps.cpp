//===- TensorOps.cpp - ONNX data movement and reductions to msgraph -------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Reshapes, slicing, gathers, padding, resizing, constants and reductions.
// Shape-like inputs (Reshape's shape, Slice's starts, ...) must be constants
// once the importer has folded the shape arithmetic before them.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <numeric>
#include <type_traits>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;


/// Normalizes possibly negative `axes` for `rank`.
static FailureOr<SmallVector<int64_t>>
normalizeAxes(NodeContext &c, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      return c.error() << "expected axes in [" << -rank << ", " << rank
                       << "), but found " << a;
    out.push_back(a < 0 ? a + rank : a);
  }
  return out;
}

static FailureOr<SmallVector<int64_t>> staticShape(NodeContext &c,
                                                   unsigned i) {
  RankedTensorType type = c.inputType(i);
  if (!type.hasStaticShape())
    return c.error() << "expected input #" << i
                     << " to have a static shape, but found " << type
                     << " (pin dynamic model inputs with --input-shape)";
  return SmallVector<int64_t>(type.getShape());
}

static Results convertReshape(NodeContext &c) {
  auto shape = c.constantInts(1, "the target shape");
  if (failed(shape))
    return failure();
  RankedTensorType in = c.inputType(0);
  bool allowZero = c.getInt("allowzero", 0) != 0;
  SmallVector<int64_t> out;
  int64_t inferred = -1, known = 1;
  for (auto [i, d] : llvm::enumerate(*shape)) {
    if (d == 0 && !allowZero) {
      if ((int64_t)i >= in.getRank())
        return c.error() << "shape entry " << i
                         << " is 0 (copy) but the input has rank "
                         << in.getRank();
      d = in.getDimSize(i);
    }
    if (d == -1) {
      if (inferred >= 0)
        return c.error() << "expected at most one -1 in the shape";
      inferred = i;
      out.push_back(ShapedType::kDynamic);
      continue;
    }
    if (d < -1)
      return c.error() << "expected shape entries >= -1, but found " << d;
    out.push_back(d);
    if (!ShapedType::isDynamic(d) && llvm::MulOverflow(known, d, known))
      return c.error() << "expected a shape with fewer than 2^63 elements, "
                          "but the shape entries multiply beyond";
  }
  if (inferred >= 0 && in.hasStaticShape()) {
    if (known == 0 || in.getNumElements() % known != 0)
      return c.error() << "cannot infer the -1 dimension: " << in.getNumElements()
                       << " elements do not divide by " << known;
    out[inferred] = in.getNumElements() / known;
  } else if (inferred < 0 && in.hasStaticShape() &&
             llvm::none_of(out, ShapedType::isDynamic) &&
             known != in.getNumElements()) {
    return c.error() << "expected a shape of " << in.getNumElements()
                     << " elements (the input's), but found " << known;
  }
  return one(c.create<graph::ReshapeOp>(in.clone(out), c.input(0), Value()));
}

static Results convertFlatten(NodeContext &c) {
  auto shape = staticShape(c, 0);
  if (failed(shape))
    return failure();
  int64_t rank = shape->size(), axis = c.getInt("axis", 1);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis > rank)
    return c.error() << "expected axis in [" << -rank << ", " << rank
                     << "], but found " << c.getInt("axis", 1);
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t &size = i < axis ? rows : cols;
    if (llvm::MulOverflow(size, (*shape)[i], size))
      return c.error() << "expected a shape with fewer than 2^63 elements, "
                          "but found "
                       << c.input(0).getType();
  }
  return one(reshape(c, c.input(0), {rows, cols}));
}

/// Squeeze/Unsqueeze: axes from the attribute (before opset 13) or input 1.
static FailureOr<std::optional<SmallVector<int64_t>>>
axesOf(NodeContext &c, bool fromInput) {
  if (!fromInput)
    return c.getInts("axes");
  if (!c.hasInput(1))
    return std::optional<SmallVector<int64_t>>();
  auto axes = c.constantInts(1, "axes");
  if (failed(axes))
    return failure();
  return std::optional<SmallVector<int64_t>>(*axes);
}

static Handler squeeze(bool fromInput) {
  return [fromInput](NodeContext &c) -> Results {
    auto shape = staticShape(c, 0);
    auto axes = axesOf(c, fromInput);
    if (failed(shape) || failed(axes))
      return failure();
    int64_t rank = shape->size();
    SmallVector<bool> drop(rank, false);
    if (*axes) {
      auto norm = normalizeAxes(c, **axes, rank);
      if (failed(norm))
        return failure();
      for (int64_t a : *norm) {
        if ((*shape)[a] != 1)
          return c.error() << "cannot squeeze dimension " << a << " of size "
                           << (*shape)[a];
        drop[a] = true;
      }
    } else {
      for (int64_t i = 0; i < rank; ++i)
        drop[i] = (*shape)[i] == 1;
    }
    SmallVector<int64_t> out;
    for (int64_t i = 0; i < rank; ++i)
      if (!drop[i])
        out.push_back((*shape)[i]);
    return one(reshape(c, c.input(0), out));
  };
}

static Handler unsqueeze(bool fromInput) {
  return [fromInput](NodeContext &c) -> Results {
    auto shape = staticShape(c, 0);
    auto axes = axesOf(c, fromInput);
    if (failed(shape) || failed(axes))
      return failure();
    if (!*axes)
      return c.error() << "expected axes";
    int64_t rank = shape->size() + (*axes)->size();
    auto norm = normalizeAxes(c, **axes, rank);
    if (failed(norm))
      return failure();
    SmallVector<bool> inserted(rank, false);
    for (int64_t a : *norm) {
      if (inserted[a])
        return c.error() << "expected distinct axes";
      inserted[a] = true;
    }
    SmallVector<int64_t> out;
    int64_t next = 0;
    for (int64_t i = 0; i < rank; ++i)
      out.push_back(inserted[i] ? 1 : (*shape)[next++]);
    return one(reshape(c, c.input(0), out));
  };
}

static Results convertTranspose(NodeContext &c) {
  int64_t rank = c.inputType(0).getRank();
  SmallVector<int64_t> perm;
  if (auto p = c.getInts("perm"))
    perm = *p;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  return one(c.create<graph::TransposeOp>(Type(), c.input(0), i64s(c, perm)));
}

static Results convertConcat(NodeContext &c) {
  SmallVector<Value> inputs;
  for (unsigned i = 0; i < c.numInputs(); ++i)
    if (c.hasInput(i))
      inputs.push_back(c.input(i));
  return one(c.create<graph::ConcatOp>(Type(), inputs,
                                       c.b.getI64IntegerAttr(c.getInt("axis", 0))));
}

FailureOr<Value> mlir::ms::onnx_importer::slice(NodeContext &c, Value input,
                              ArrayRef<int64_t> starts, ArrayRef<int64_t> ends,
                              ArrayRef<int64_t> axes, ArrayRef<int64_t> steps) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> s(rank, 0), e(rank), st(rank, 1);
  for (int64_t i = 0; i < rank; ++i)
    e[i] = type.isDynamicDim(i) ? ShapedType::kDynamic : type.getDimSize(i);
  for (auto [k, axis] : llvm::enumerate(axes)) {
    int64_t dim = type.getDimSize(axis);
    if (ShapedType::isDynamic(dim))
      return c.error() << "cannot slice dynamic dimension " << axis;
    int64_t step = steps[k];
    if (step == 0)
      return c.error() << "expected non-zero steps";
    int64_t start = starts[k], end = ends[k];
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      end = std::max(end, start);
    } else {
      start = std::clamp<int64_t>(start, -1, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      end = std::min(end, start);
    }
    s[axis] = start;
    e[axis] = end;
    st[axis] = step;
  }
  return c.create<graph::SliceOp>(Type(), input, i64s(c, s), i64s(c, e),
                                  i64s(c, st));
}

static Results convertSlice(NodeContext &c) {
  int64_t rank = c.inputType(0).getRank();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (c.opset < 10) {
    auto s = c.getInts("starts"), e = c.getInts("ends");
    if (!s || !e)
      return c.error() << "expected starts and ends attributes";
    starts = *s;
    ends = *e;
    if (auto a = c.getInts("axes"))
      axes = *a;
  } else {
    auto s = c.constantInts(1, "starts");
    auto e = c.constantInts(2, "ends");
    if (failed(s) || failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (c.hasInput(3)) {
      auto a = c.constantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (c.hasInput(4)) {
      auto st = c.constantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    for (int64_t i = 0; i < (int64_t)starts.size(); ++i)
      axes.push_back(i);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return c.error() << "expected starts, ends, axes and steps of one length";
  auto norm = normalizeAxes(c, axes, rank);
  if (failed(norm))
    return failure();
  return one(slice(c, c.input(0), starts, ends, *norm, steps));
}

static Results convertSplit(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  auto axisOr = normalizeAxis(c, c.getInt("axis", 0), rank);
  if (failed(axisOr))
    return failure();
  int64_t axis = *axisOr;
  int64_t dim = type.getDimSize(axis);
  if (ShapedType::isDynamic(dim))
    return c.error() << "cannot split a dynamic dimension";
  SmallVector<int64_t> sizes;
  int64_t outputs = c.node.output_size();
  if (c.opset >= 13 && c.hasInput(1)) {
    auto s = c.constantInts(1, "split");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (auto s = c.getInts("split")) {
    sizes = *s;
  } else {
    int64_t n = c.opset >= 18 ? c.getInt("num_outputs", outputs) : outputs;
    if (n <= 0 || n != outputs)
      return c.error() << "expected num_outputs to equal the node's "
                       << outputs << " outputs, but found " << n;
    int64_t chunk = (dim + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - i * chunk)));
  }
  int64_t total = 0;
  for (int64_t size : sizes)
    if (size < 0 || size > dim || llvm::AddOverflow(total, size, total))
      return c.error() << "expected split sizes in [0, " << dim
                       << "] adding up to it, but found " << size;
  if (total != dim)
    return c.error() << "split sizes do not add up to dimension " << axis
                     << " (" << dim << ")";
  SmallVector<Value> results;
  int64_t offset = 0;
  for (int64_t size : sizes) {
    auto part = slice(c, c.input(0), {offset}, {offset + size}, {axis}, {1});
    if (failed(part))
      return failure();
    results.push_back(*part);
    offset += size;
  }
  return results;
}

static Results convertGather(NodeContext &c) {
  return one(c.create<graph::GatherOp>(
      Type(), c.input(0), c.input(1), c.b.getI64IntegerAttr(c.getInt("axis", 0))));
}

static Results convertExpand(NodeContext &c) {
  auto shape = c.constantInts(1, "the target shape");
  if (failed(shape))
    return failure();
  for (int64_t dim : *shape)
    if (dim < 0)
      return c.error() << "expected non-negative dims in the target shape, "
                          "but found "
                       << dim;
  RankedTensorType in = c.inputType(0);
  auto out = graph::broadcastShapes(in.getShape(), *shape);
  if (failed(out))
    return c.error() << "cannot broadcast " << in << " to the requested shape";
  return one(c.create<graph::ExpandOp>(in.clone(*out), c.input(0), Value()));
}

static Results convertShape(NodeContext &c) {
  auto shape = c.create<graph::ShapeOp>(Type(), c.input(0));
  if (failed(shape))
    return failure();
  int64_t rank = c.inputType(0).getRank();
  int64_t start = c.getInt("start", 0), end = c.getInt("end", rank);
  if (start == 0 && end >= rank)
    return SmallVector<Value>{*shape};
  return one(slice(c, *shape, {start}, {end}, {0}, {1}));
}

static Results convertConstantOfShape(NodeContext &c) {
  auto shape = c.constantInts(0, "the shape");
  if (failed(shape))
    return failure();
  Attribute value = FloatAttr::get(c.b.getF32Type(), 0.0);
  if (const auto *a = c.attr("value")) {
    auto t = convertTensor(a->t(), c.b.getContext(), c.loc, "");
    if (failed(t))
      return failure();
    auto dense = cast<DenseElementsAttr>(*t);
    if (dense.getNumElements() != 1)
      return c.error() << "expected a one-element value tensor";
    value = dense.getSplatValue<Attribute>();
  }
  auto type = RankedTensorType::get(*shape, cast<TypedAttr>(value).getType());
  return SmallVector<Value>{
      c.constant(DenseElementsAttr::get(type, ArrayRef<Attribute>{value}))};
}

static Results convertConstant(NodeContext &c) {
  MLIRContext *ctx = c.b.getContext();
  if (const auto *a = c.attr("value")) {
    auto t = convertTensor(a->t(), ctx, c.loc, "");
    if (failed(t))
      return failure();
    return SmallVector<Value>{c.constant(*t)};
  }
  if (const auto *a = c.attr("value_float"))
    return SmallVector<Value>{c.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, c.b.getF32Type()), a->f()))};
  if (const auto *a = c.attr("value_int"))
    return SmallVector<Value>{c.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, c.b.getI64Type()), (int64_t)a->i()))};
  if (auto floats = c.getFloats("value_floats"))
    return SmallVector<Value>{c.constant(DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)floats->size()}, c.b.getF32Type()),
        ArrayRef<float>(*floats)))};
  if (auto ints = c.getInts("value_ints"))
    return SmallVector<Value>{c.constant(DenseElementsAttr::get(
        RankedTensorType::get({(int64_t)ints->size()}, c.b.getI64Type()),
        ArrayRef<int64_t>(*ints)))};
  return c.error() << "expected a value, value_float(s) or value_int(s) "
                      "attribute (strings and sparse tensors are not "
                      "supported)";
}

static Results convertRange(NodeContext &c) {
  Type elem = c.inputType(0).getElementType();
  auto start = c.constantFloats(0, "start");
  auto limit = c.constantFloats(1, "limit");
  auto delta = c.constantFloats(2, "delta");
  if (succeeded(start) && succeeded(limit) && succeeded(delta)) {
    if ((*delta)[0] == 0)
      return c.error() << "expected a non-zero delta";
    auto count = toInt64(
        c, std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0]),
        "the number of elements");
    if (failed(count))
      return failure();
    int64_t n = std::max<int64_t>(*count, 0);
    return one(c.create<graph::RangeOp>(RankedTensorType::get({n}, elem),
                                        c.input(0), c.input(1), c.input(2)));
  }
  return c.error() << "expected constant start, limit and delta";
}

static Results convertTile(NodeContext &c) {
  auto repeats = c.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  return one(c.create<graph::TileOp>(Type(), c.input(0), i64s(c, *repeats)));
}

/// The axes of a reduction node, from the attribute (before `inputSince`)
/// or input 1, normalized; nullopt when the node is a no-op
/// (`noop_with_empty_axes` with no axes).
static FailureOr<std::optional<SmallVector<int64_t>>>
reductionAxes(NodeContext &c, int64_t inputSince) {
  int64_t rank = c.inputType(0).getRank();
  SmallVector<int64_t> axes;
  bool haveAxes = false;
  if (c.opset >= inputSince) {
    if (c.hasInput(1)) {
      auto a = c.constantInts(1, "axes");
      if (failed(a))
        return failure();
      axes = *a;
      haveAxes = !axes.empty();
    }
  } else if (auto a = c.getInts("axes")) {
    axes = *a;
    haveAxes = true;
  }
  if (!haveAxes && c.getInt("noop_with_empty_axes", 0) != 0)
    return std::optional<SmallVector<int64_t>>();
  auto norm = normalizeAxes(c, axes, rank);
  if (failed(norm))
    return failure();
  return std::optional<SmallVector<int64_t>>(*norm);
}

/// Reductions: axes from the attribute (before `inputSince`) or input 1.
template <typename OpTy>
static Handler reduce(int64_t inputSince) {
  return [inputSince](NodeContext &c) -> Results {
    auto axes = reductionAxes(c, inputSince);
    if (failed(axes))
      return failure();
    if (!*axes)
      return one(c.create<graph::IdentityOp>(c.inputType(0), c.input(0)));
    SmallVector<int64_t> norm = **axes;
    bool keep = c.getInt("keepdims", 1) != 0;
    Value input = c.input(0);
    Type elem = c.inputType(0).getElementType();
    constexpr bool isMinMax = std::is_same_v<OpTy, graph::ReduceMaxOp> ||
                              std::is_same_v<OpTy, graph::ReduceMinOp>;
    if (isMinMax && elem.isInteger(1)) {
      // Booleans reduce as 0/1 bytes: max is "any", min is "all".
      auto bytes = castTo(c, input, c.b.getIntegerType(8));
      if (failed(bytes))
        return failure();
      auto reduced = c.create<OpTy>(Type(), *bytes, i64s(c, norm),
                                    c.b.getBoolAttr(keep));
      if (failed(reduced))
        return failure();
      return one(castTo(c, *reduced, elem));
    }
    return one(c.create<OpTy>(Type(), input, i64s(c, norm),
                              c.b.getBoolAttr(keep)));
  };
}

/// The reductions ONNX defines as compositions: L1 = sum |x|,
/// L2 = sqrt(sum x^2), SumSquare = sum x^2, LogSum = log(sum x),
/// LogSumExp = log(sum exp(x)).
enum class Composite { L1, L2, SumSquare, LogSum, LogSumExp };

template <Composite kind>
static Handler compositeReduce(int64_t inputSince) {
  return [inputSince](NodeContext &c) -> Results {
    auto axes = reductionAxes(c, inputSince);
    if (failed(axes))
      return failure();
    Value x = c.input(0);
    RankedTensorType type = c.inputType(0);
    FailureOr<Value> pre = x;
    if (kind == Composite::L1)
      pre = c.create<graph::AbsOp>(type, x);
    else if (kind == Composite::L2 || kind == Composite::SumSquare)
      pre = c.create<graph::MulOp>(Type(), x, x);
    else if (kind == Composite::LogSumExp)
      pre = c.create<graph::ExpOp>(type, x);
    if (failed(pre))
      return failure();
    FailureOr<Value> sum = *pre;
    if (*axes)
      sum = c.create<graph::ReduceSumOp>(Type(), *pre, i64s(c, **axes),
                                         c.b.getBoolAttr(c.getInt("keepdims", 1) != 0));
    if (failed(sum))
      return failure();
    Type sumType = sum->getType();
    if (kind == Composite::L2)
      return one(c.create<graph::SqrtOp>(sumType, *sum));
    if (kind == Composite::LogSum || kind == Composite::LogSumExp)
      return one(c.create<graph::LogOp>(sumType, *sum));
    return SmallVector<Value>{*sum};
  };
}

template <typename OpTy>
static Results convertArg(NodeContext &c) {
  return one(c.create<OpTy>(Type(), c.input(0),
                            c.b.getI64IntegerAttr(c.getInt("axis", 0)),
                            c.b.getBoolAttr(c.getInt("keepdims", 1) != 0),
                            c.b.getBoolAttr(c.getInt("select_last_index", 0) != 0)));
}

static Results convertPad(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads;
  double value = 0.0;
  if (c.opset < 11) {
    auto p = c.getInts("pads");
    if (!p)
      return c.error() << "expected a pads attribute";
    pads = *p;
    value = c.getFloat("value", 0.0f);
  } else {
    auto p = c.constantInts(1, "pads");
    if (failed(p))
      return failure();
    pads = *p;
    if (c.hasInput(2)) {
      auto v = c.constantFloats(2, "constant_value");
      if (failed(v))
        return failure();
      if (!v->empty())
        value = (*v)[0];
    }
    if (c.hasInput(3)) {
      auto axes = c.constantInts(3, "axes");
      if (failed(axes))
        return failure();
      auto norm = normalizeAxes(c, *axes, rank);
      if (failed(norm))
        return failure();
      if (pads.size() != 2 * norm->size())
        return c.error() << "expected 2 pads per axis";
      SmallVector<int64_t> full(2 * rank, 0);
      for (auto [k, a] : llvm::enumerate(*norm)) {
        full[a] = pads[k];
        full[a + rank] = pads[k + norm->size()];
      }
      pads = full;
    }
  }
  std::string mode = c.getString("mode", "constant");
  return one(c.create<graph::PadOp>(Type(), c.input(0), i64s(c, pads),
                                    c.b.getStringAttr(mode),
                                    c.b.getF64FloatAttr(value)));
}

static Results convertResize(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  auto shape = staticShape(c, 0);
  if (failed(shape))
    return failure();
  int64_t rank = type.getRank();
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  // Opset 10: (X, scales); 11+: (X, roi, scales, sizes).
  unsigned scalesAt = c.opset < 11 ? 1 : 2, sizesAt = 3;
  auto isEmpty = [&](unsigned i) {
    DenseElementsAttr a = c.constantInput(i);
    return !c.hasInput(i) || (a && a.getNumElements() == 0);
  };
  if (!isEmpty(sizesAt)) {
    auto s = c.constantInts(sizesAt, "sizes");
    if (failed(s))
      return failure();
    sizes = *s;
  } else if (!isEmpty(scalesAt)) {
    auto s = c.constantFloats(scalesAt, "scales");
    if (failed(s))
      return failure();
    scales = *s;
  } else {
    return c.error() << "expected scales or sizes";
  }
  SmallVector<int64_t> axes;
  if (auto a = c.getInts("axes")) {
    auto norm = normalizeAxes(c, *a, rank);
    if (failed(norm))
      return failure();
    axes = *norm;
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  std::string mode = c.getString("mode", "nearest");
  std::string ctm = c.getString("coordinate_transformation_mode",
                                c.opset < 11 ? "asymmetric" : "half_pixel");
  // tf_crop_and_resize samples a region of interest: starts then ends per
  // axis, normalized to [0, 1].
  SmallVector<double> roi;
  if (ctm == "tf_crop_and_resize") {
    if (c.opset < 11 || isEmpty(1))
      return c.error() << "tf_crop_and_resize needs the roi input";
    auto r = c.constantFloats(1, "roi");
    if (failed(r))
      return failure();
    if (r->size() != 2 * axes.size())
      return c.error() << "expected roi of " << 2 * axes.size()
                       << " values (starts then ends per axis), but found "
                       << r->size();
    roi.assign(rank, 0.0);
    roi.append(rank, 1.0);
    for (auto [k, a] : llvm::enumerate(axes)) {
      roi[a] = (*r)[k];
      roi[rank + a] = (*r)[axes.size() + k];
    }
  }
  std::string keepAspect = c.getString("keep_aspect_ratio_policy", "stretch");
  SmallVector<double> fullScales(rank, 1.0);
  SmallVector<int64_t> out(*shape);
  if (!sizes.empty()) {
    if (sizes.size() != axes.size())
      return c.error() << "expected one size per axis";
    if (keepAspect != "stretch") {
      double s = keepAspect == "not_larger" ? 1e300 : 0.0;
      for (auto [k, a] : llvm::enumerate(axes)) {
        double r = (double)sizes[k] / (*shape)[a];
        s = keepAspect == "not_larger" ? std::min(s, r) : std::max(s, r);
      }
      for (int64_t a : axes) {
        fullScales[a] = s;
        auto size = toInt64(c, std::round(s * (*shape)[a]), "an output size");
        if (failed(size))
          return failure();
        out[a] = *size;
      }
    } else {
      for (auto [k, a] : llvm::enumerate(axes)) {
        out[a] = sizes[k];
        fullScales[a] = (double)sizes[k] / (*shape)[a];
      }
    }
  } else {
    if (scales.size() != axes.size())
      return c.error() << "expected one scale per axis";
    for (auto [k, a] : llvm::enumerate(axes)) {
      fullScales[a] = scales[k];
      double extent = roi.empty() ? 1.0 : roi[rank + a] - roi[a];
      auto size = toInt64(c, std::floor((*shape)[a] * extent * scales[k]),
                          "an output size");
      if (failed(size))
        return failure();
      out[a] = *size;
    }
  }
  std::string nearest = c.getString("nearest_mode",
                                    c.opset < 11 ? "floor" : "round_prefer_floor");
  if (c.opset < 11 && mode == "linear")
    ctm = "asymmetric";
  return one(c.create<graph::ResizeOp>(
      type.clone(out), c.input(0), c.b.getDenseF64ArrayAttr(fullScales),
      c.b.getStringAttr(mode), c.b.getStringAttr(ctm),
      c.b.getStringAttr(nearest),
      c.b.getF64FloatAttr(c.getFloat("cubic_coeff_a", -0.75f)),
      c.b.getBoolAttr(c.getInt("exclude_outside", 0) != 0),
      roi.empty() ? nullptr : c.b.getDenseF64ArrayAttr(roi),
      c.b.getF64FloatAttr(c.getFloat("extrapolation_value", 0.0f)),
      c.b.getBoolAttr(c.getInt("antialias", 0) != 0)));
}

static Results convertSize(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  if (!type.hasStaticShape())
    return c.error() << "expected a static shape, but found " << type;
  return SmallVector<Value>{c.constant(DenseElementsAttr::get(
      RankedTensorType::get({}, c.b.getI64Type()), type.getNumElements()))};
}

/// Trilu (opset 14): keeps the upper (j - i >= k) or lower (j - i <= k)
/// triangle of the last two dimensions and zeroes the rest, as a `where`
/// with a constant mask.
static Results convertTrilu(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2)
    return c.error() << "expected an input of rank at least 2, but found "
                     << type;
  int64_t rows = type.getDimSize(rank - 2), cols = type.getDimSize(rank - 1);
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols))
    return c.error() << "expected static sizes of the last two dimensions, "
                        "but found "
                     << type;
  int64_t k = 0;
  if (c.hasInput(1)) {
    auto given = c.constantInts(1, "k");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return c.error() << "expected a scalar k, but found " << given->size()
                       << " values";
    k = given->front();
  }
  bool upper = c.getInt("upper", 1) != 0;
  SmallVector<bool> keep;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      keep.push_back(upper ? j - i >= k : j - i <= k);
  Value mask = c.constant(DenseElementsAttr::get(
      RankedTensorType::get({rows, cols}, c.b.getI1Type()), ArrayRef(keep)));
  Composer m(c);
  return m.result(
      m.where(mask, c.input(0), m.scalarLike(c.input(0), 0)));
}

/// DepthToSpace / SpaceToDepth on NCHW: a reshape, a transpose and a
/// reshape.
static Results convertDepthToSpace(NodeContext &c, bool toSpace) {
  Composer m(c);
  auto shape = staticShape(c, 0);
  if (failed(shape))
    return failure();
  if (shape->size() != 4)
    return c.error() << "expected a 4-d (NCHW) input, but found rank "
                     << shape->size();
  int64_t b = c.getInt("blocksize", 0);
  int64_t n = (*shape)[0], ch = (*shape)[1], h = (*shape)[2],
          w = (*shape)[3];
  if (b <= 0)
    return c.error() << "expected a positive blocksize, but found " << b;
  Value x = c.input(0);
  if (toSpace) {
    int64_t square = 0;
    if (llvm::MulOverflow(b, b, square) || ch % square != 0)
      return c.error() << "expected the " << ch
                       << " channels to divide by the square of blocksize "
                       << b;
    int64_t oc = ch / (b * b);
    bool crd = c.getString("mode", "DCR") == "CRD";
    Value t = crd ? m.transpose(m.reshapeTo(x, {n, oc, b, b, h, w}),
                                {0, 1, 4, 2, 5, 3})
                  : m.transpose(m.reshapeTo(x, {n, b, b, oc, h, w}),
                                {0, 3, 4, 1, 5, 2});
    return m.result(m.reshapeTo(t, {n, oc, h * b, w * b}));
  }
  if (h % b != 0 || w % b != 0)
    return c.error() << "expected the spatial size " << h << "x" << w
                     << " to divide by blocksize " << b;
  int64_t outChannels = 0;
  if (llvm::MulOverflow(ch, b, outChannels) ||
      llvm::MulOverflow(outChannels, b, outChannels))
    return c.error() << "blocksize " << b << " is too large for " << ch
                     << " channels";
  Value t = m.transpose(m.reshapeTo(x, {n, ch, h / b, b, w / b, b}),
                        {0, 3, 5, 1, 2, 4});
  return m.result(m.reshapeTo(t, {n, ch * b * b, h / b, w / b}));
}

/// EyeLike: a constant of the input's (static, 2-d) shape with ones on
/// diagonal `k`.
static Results convertEyeLike(NodeContext &c) {
  Composer m(c);
  auto shape = staticShape(c, 0);
  if (failed(shape))
    return failure();
  if (shape->size() != 2)
    return c.error() << "expected a 2-d input, but found rank "
                     << shape->size();
  Type elem = c.inputType(0).getElementType();
  if (const auto *dtype = c.attr("dtype")) {
    elem = convertElementType(c.b.getContext(), dtype->i(), c.loc);
    if (!elem)
      return failure();
  }
  if (!elem.isIntOrFloat())
    return c.error() << "expected a numeric dtype, but found " << elem;
  // The identity is built as a constant now: keep it to what fits.
  if ((*shape)[0] * (*shape)[1] > kMaxBuiltConstantElements)
    return c.error() << "expected at most " << kMaxBuiltConstantElements
                     << " elements for the identity, but found "
                     << (*shape)[0] << "x" << (*shape)[1];
  int64_t k = c.getInt("k", 0);
  SmallVector<double> values;
  for (int64_t i = 0; i < (*shape)[0]; ++i)
    for (int64_t j = 0; j < (*shape)[1]; ++j)
      values.push_back(j - i == k ? 1.0 : 0.0);
  return m.result(m.constant(RankedTensorType::get(*shape, elem), values));
}

/// OneHot: `values[1]` where the (wrapped) index equals the position along
/// the new axis, `values[0]` elsewhere; depth must be a constant.
static Results convertOneHot(NodeContext &c) {
  Composer m(c);
  auto depthValues = c.constantFloats(1, "depth");
  auto shape = staticShape(c, 0);
  if (failed(depthValues) || failed(shape))
    return failure();
  if (depthValues->size() != 1 || depthValues->front() < 1)
    return c.error() << "expected depth to be one positive value";
  auto depthOr = toInt64(c, depthValues->front(), "depth");
  if (failed(depthOr))
    return failure();
  int64_t depth = *depthOr;
  int64_t rank = shape->size() + 1;
  auto axisOr = normalizeAxis(c, c.getInt("axis", -1), rank);
  if (failed(axisOr))
    return failure();
  int64_t axis = *axisOr;
  if (c.inputType(2).getNumElements() != 2)
    return c.error() << "expected 2 values (off, on), but found "
                     << c.inputType(2);
  // Indices truncate to integers; negative ones count from the back.
  Value index = m.castTo(c.input(0), c.b.getI64Type());
  Value isNegative = m.binary<graph::LessOp>(index, m.scalarLike(index, 0));
  index = m.where(isNegative,
                  m.binary<graph::AddOp>(index, m.scalarLike(index, depth)),
                  index);
  SmallVector<int64_t> indexShape(*shape);
  indexShape.insert(indexShape.begin() + axis, 1);
  index = m.reshapeTo(index, indexShape);
  // The positions along the new axis are a range, not a constant: a deep
  // one-hot axis would otherwise be built (and stored) element by element.
  SmallVector<int64_t> positionsShape(rank, 1);
  positionsShape[axis] = depth;
  Type i64 = c.b.getI64Type();
  Value positions = m.reshapeTo(
      m.take(c.create<graph::RangeOp>(RankedTensorType::get({depth}, i64),
                                      scalar(c, i64, 0), scalar(c, i64, depth),
                                      scalar(c, i64, 1))),
      positionsShape);
  Value hot = m.binary<graph::EqualOp>(index, positions);
  Value values = m.reshapeTo(c.input(2), {2});
  auto pick = [&](int64_t i) -> Value {
    if (!values)
      return {};
    auto s = slice(c, values, {i}, {i + 1}, {0}, {1});
    return failed(s) ? Value() : m.reshapeTo(*s, {});
  };
  return m.result(m.where(hot, pick(1), pick(0)));
}

/// CumSum / CumProd: the axis is a constant scalar input.
template <typename OpTy>
static Results convertCumulative(NodeContext &c) {
  auto axis = c.constantInts(1, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return c.error() << "expected one axis, but found " << axis->size()
                     << " values";
  return one(c.create<OpTy>(c.inputType(0), c.input(0),
                            c.b.getI64IntegerAttr(axis->front()),
                            c.b.getBoolAttr(c.getInt("exclusive", 0) != 0),
                            c.b.getBoolAttr(c.getInt("reverse", 0) != 0)));
}

void mlir::ms::onnx_importer::populateTensorOps(OpTable &t) {
  t.onOp("Trilu", 14, convertTrilu);
  t.onOp("GatherElements", 11, [](NodeContext &c) -> Results {
    return one(c.create<graph::GatherElementsOp>(
        Type(), c.input(0), c.input(1),
        c.b.getI64IntegerAttr(c.getInt("axis", 0))));
  });
  t.onOp("Size", 1, convertSize);
  t.onOp("Reshape", 5, convertReshape);
  t.onOp("Flatten", 1, convertFlatten);
  t.onOp("Squeeze", 1, squeeze(false));
  t.onOp("Squeeze", 13, squeeze(true));
  t.onOp("Unsqueeze", 1, unsqueeze(false));
  t.onOp("Unsqueeze", 13, unsqueeze(true));
  t.onOp("Transpose", 1, convertTranspose);
  t.onOp("Concat", 4, convertConcat);
  t.onOp("Slice", 1, convertSlice);
  t.onOp("Split", 2, convertSplit);
  t.onOp("Gather", 1, convertGather);
  t.onOp("Expand", 8, convertExpand);
  t.onOp("Shape", 1, convertShape);
  t.onOp("ConstantOfShape", 9, convertConstantOfShape);
  t.onOp("Constant", 1, convertConstant);
  t.onOp("Range", 11, convertRange);
  t.onOp("Tile", 6, convertTile);
  t.onOp("ReduceSum", 1, reduce<graph::ReduceSumOp>(13));
  t.onOp("ReduceMean", 1, reduce<graph::ReduceMeanOp>(18));
  t.onOp("ReduceMax", 1, reduce<graph::ReduceMaxOp>(18));
  t.onOp("ReduceMin", 1, reduce<graph::ReduceMinOp>(18));
  t.onOp("ReduceProd", 1, reduce<graph::ReduceProdOp>(18));
  t.onOp("ReduceL1", 1, compositeReduce<Composite::L1>(18));
  t.onOp("ReduceL2", 1, compositeReduce<Composite::L2>(18));
  t.onOp("ReduceSumSquare", 1, compositeReduce<Composite::SumSquare>(18));
  t.onOp("ReduceLogSum", 1, compositeReduce<Composite::LogSum>(18));
  t.onOp("ReduceLogSumExp", 1, compositeReduce<Composite::LogSumExp>(18));
  t.onOp("DepthToSpace", 13, [](NodeContext &c) -> Results {
    return convertDepthToSpace(c, /*toSpace=*/true);
  });
  t.onOp("SpaceToDepth", 13, [](NodeContext &c) -> Results {
    return convertDepthToSpace(c, /*toSpace=*/false);
  });
  t.onOp("EyeLike", 9, convertEyeLike);
  t.onOp("OneHot", 11, convertOneHot);
  t.onOp("CumSum", 11, convertCumulative<graph::CumSumOp>);
  t.onOp("CumProd", 26, convertCumulative<graph::CumProdOp>);
  t.onOp("ArgMax", 1, convertArg<graph::ArgMaxOp>);
  t.onOp("ArgMin", 1, convertArg<graph::ArgMinOp>);
  t.onOp("Pad", 2, convertPad);
  t.onOp("Resize", 10, convertResize);
}
