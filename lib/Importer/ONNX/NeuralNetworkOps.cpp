//===- NeuralNetworkOps.cpp - ONNX NN ops to msgraph ----------------------===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//
//
// Convolutions, pooling, matmul/Gemm, normalizations and softmax.
//
//===----------------------------------------------------------------------===//

#include "ImporterImpl.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::ms;
using namespace mlir::ms::onnx_importer;


/// Resolves auto_pad into explicit pads (begins then ends) for a window of
/// effective sizes `kernel` (already dilated) and `strides` over `input`'s
/// spatial dims.
static FailureOr<SmallVector<int64_t>>
resolvePads(NodeContext &c, RankedTensorType input, ArrayRef<int64_t> kernel,
            ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  int64_t k = kernel.size();
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  if (autoPad == "NOTSET") {
    auto pads = c.getInts("pads");
    if (!pads)
      return SmallVector<int64_t>(2 * k, 0);
    return *pads;
  }
  SmallVector<int64_t> pads(2 * k, 0);
  if (autoPad == "VALID")
    return pads;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return c.error() << "expected auto_pad NOTSET, VALID, SAME_UPPER or "
                        "SAME_LOWER, but found '"
                     << autoPad << "'";
  for (int64_t i = 0; i < k; ++i) {
    int64_t in = input.getDimSize(i + 2);
    if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel[i]))
      return c.error() << "auto_pad " << autoPad
                       << " needs static spatial dimensions";
    if (kernel[i] <= 0)
      return c.error() << "expected positive kernel sizes, but found "
                       << kernel[i] << " along spatial dimension " << i;
    // out = ceil(in / stride); total = (out - 1) * stride
    //   + (kernel - 1) * dilation + 1 - in, checked: all are user input.
    int64_t out = in / strides[i] + (in % strides[i] != 0);
    std::optional<int64_t> covered =
        llvm::checkedMul<int64_t>(std::max<int64_t>(out - 1, 0), strides[i]);
    std::optional<int64_t> dilated =
        llvm::checkedMulAdd<int64_t>(kernel[i] - 1, dilations[i], 1);
    if (covered && dilated)
      covered = llvm::checkedAdd(*covered, *dilated);
    if (!covered || !dilated)
      return c.error() << "expected window sizes within int64, but auto_pad "
                       << autoPad << " overflows along spatial dimension "
                       << i;
    int64_t total = std::max<int64_t>(0, *covered - in);
    int64_t small = total / 2, big = total - small;
    pads[i] = autoPad == "SAME_UPPER" ? small : big;
    pads[i + k] = autoPad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

static SmallVector<int64_t> intsOr(NodeContext &c, StringRef name,
                                   int64_t count, int64_t fill) {
  auto v = c.getInts(name);
  return v ? *v : SmallVector<int64_t>(count, fill);
}

/// A window attribute (strides, dilations): `count` positive values, `fill`
/// each when absent. Checked here because the converters compute with them
/// before the op's verifier sees them.
static FailureOr<SmallVector<int64_t>>
positiveInts(NodeContext &c, StringRef name, int64_t count, int64_t fill) {
  SmallVector<int64_t> v = intsOr(c, name, count, fill);
  if ((int64_t)v.size() != count)
    return c.error() << "expected " << count << " " << name
                     << " (one per spatial dimension), but found " << v.size();
  for (int64_t x : v)
    if (x <= 0)
      return c.error() << "expected positive " << name << ", but found " << x;
  return v;
}

static Results convertConv(NodeContext &c) {
  RankedTensorType in = c.inputType(0), w = c.inputType(1);
  if (in.getRank() < 3 || w.getRank() != in.getRank())
    return c.error() << "expected input and weight of one rank >= 3, but found "
                     << in << " and " << w;
  int64_t k = in.getRank() - 2;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  auto strideList = positiveInts(c, "strides", k, 1);
  auto dilationList = positiveInts(c, "dilations", k, 1);
  if (failed(strideList) || failed(dilationList))
    return failure();
  SmallVector<int64_t> strides = *strideList, dilations = *dilationList;
  auto pads = resolvePads(c, in, kernel, strides, dilations);
  if (failed(pads))
    return failure();
  return one(c.create<graph::ConvOp>(
      Type(), c.input(0), c.input(1), c.input(2), i64s(c, strides),
      i64s(c, *pads), i64s(c, dilations),
      c.b.getI64IntegerAttr(c.getInt("group", 1))));
}

static Results convertConvTranspose(NodeContext &c) {
  RankedTensorType in = c.inputType(0), w = c.inputType(1);
  if (in.getRank() < 3 || w.getRank() != in.getRank())
    return c.error() << "expected input and weight of one rank >= 3, but found "
                     << in << " and " << w;
  int64_t k = in.getRank() - 2;
  auto strideList = positiveInts(c, "strides", k, 1);
  auto dilationList = positiveInts(c, "dilations", k, 1);
  if (failed(strideList) || failed(dilationList))
    return failure();
  SmallVector<int64_t> strides = *strideList, dilations = *dilationList;
  auto outputPadding = intsOr(c, "output_padding", k, 0);
  if ((int64_t)outputPadding.size() != k)
    return c.error() << "expected " << k
                     << " output_padding values (one per spatial dimension), "
                        "but found "
                     << outputPadding.size();
  SmallVector<int64_t> pads = intsOr(c, "pads", 2 * k, 0);
  std::string autoPad = c.getString("auto_pad", "NOTSET");
  auto outputShape = c.getInts("output_shape");
  if (outputShape && (int64_t)outputShape->size() < k)
    return c.error() << "expected at least " << k
                     << " output_shape values, but found "
                     << outputShape->size();
  if (outputShape || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    // Pads follow from the requested output size.
    for (int64_t i = 0; i < k; ++i) {
      int64_t x = in.getDimSize(i + 2), kk = w.getDimSize(i + 2);
      if (ShapedType::isDynamic(x) || ShapedType::isDynamic(kk))
        return c.error() << "output_shape/auto_pad need static sizes";
      // total = stride * (x - 1) + output_padding + (kk - 1) * dilation + 1
      //   - target, checked: all are user input.
      std::optional<int64_t> target =
          outputShape ? std::optional<int64_t>(
                            (*outputShape)[outputShape->size() - k + i])
                      : llvm::checkedMul(x, strides[i]);
      std::optional<int64_t> covered = llvm::checkedMulAdd<int64_t>(
          strides[i], std::max<int64_t>(x - 1, 0), outputPadding[i]);
      std::optional<int64_t> dilated = llvm::checkedMulAdd<int64_t>(
          std::max<int64_t>(kk - 1, 0), dilations[i], 1);
      if (covered && dilated)
        covered = llvm::checkedAdd(*covered, *dilated);
      if (covered && target)
        covered = llvm::checkedSub(*covered, *target);
      if (!covered || !dilated || !target ||
          *covered == std::numeric_limits<int64_t>::min())
        return c.error() << "expected window sizes within int64, but the "
                            "output size along spatial dimension "
                         << i << " overflows";
      int64_t total = *covered;
      if (total < 0) {
        // A larger output than the kernel covers: extend output_padding.
        std::optional<int64_t> extended =
            llvm::checkedSub(outputPadding[i], total);
        if (!extended)
          return c.error() << "expected window sizes within int64, but the "
                              "output padding along spatial dimension "
                           << i << " overflows";
        outputPadding[i] = *extended;
        total = 0;
      }
      bool upper = autoPad != "SAME_LOWER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + k] = total - pads[i];
    }
  }
  return one(c.create<graph::ConvTransposeOp>(
      Type(), c.input(0), c.input(1), c.input(2), i64s(c, strides),
      i64s(c, pads), i64s(c, dilations), i64s(c, outputPadding),
      c.b.getI64IntegerAttr(c.getInt("group", 1))));
}

template <typename OpTy, bool isMax>
static Results convertPool(NodeContext &c) {
  RankedTensorType in = c.inputType(0);
  auto kernel = c.getInts("kernel_shape");
  if (!kernel)
    return c.error() << "expected a kernel_shape attribute";
  int64_t k = kernel->size();
  if (in.getRank() != k + 2)
    return c.error() << "expected input of rank " << k + 2
                     << " for a " << k << "-d kernel, but found " << in;
  auto strideList = positiveInts(c, "strides", k, 1);
  auto dilationList = positiveInts(c, "dilations", k, 1);
  if (failed(strideList) || failed(dilationList))
    return failure();
  SmallVector<int64_t> strides = *strideList, dilations = *dilationList;
  auto pads = resolvePads(c, in, *kernel, strides, dilations);
  if (failed(pads))
    return failure();
  BoolAttr ceil = c.b.getBoolAttr(c.getInt("ceil_mode", 0) != 0);
  if constexpr (isMax) {
    auto values = c.create<OpTy>(Type(), c.input(0), i64s(c, *kernel),
                                 i64s(c, strides), i64s(c, *pads),
                                 i64s(c, dilations), ceil);
    if (failed(values))
      return failure();
    SmallVector<Value> results{*values};
    // The optional Indices output: flat positions of the maxima.
    if (c.node.output_size() > 1 && !c.node.output(1).empty()) {
      int64_t order = c.getInt("storage_order", 0);
      if (order != 0 && order != 1)
        return c.error() << "expected storage_order 0 or 1, but found "
                         << order;
      auto indices = c.create<graph::MaxPoolIndicesOp>(
          Type(), c.input(0), i64s(c, *kernel), i64s(c, strides),
          i64s(c, *pads), i64s(c, dilations), ceil,
          c.b.getBoolAttr(order == 1));
      if (failed(indices))
        return failure();
      results.push_back(*indices);
    }
    return results;
  } else {
    return one(c.create<OpTy>(
        Type(), c.input(0), i64s(c, *kernel), i64s(c, strides), i64s(c, *pads),
        i64s(c, dilations), ceil,
        c.b.getBoolAttr(c.getInt("count_include_pad", 0) != 0)));
  }
}

template <typename ReduceOpTy>
static Results convertGlobalPool(NodeContext &c) {
  RankedTensorType in = c.inputType(0);
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < in.getRank(); ++i)
    axes.push_back(i);
  return one(c.create<ReduceOpTy>(Type(), c.input(0), i64s(c, axes),
                                  c.b.getBoolAttr(true)));
}

/// Attention (opset 23+): Q, K, V either 4-D (batch x heads x sequence x
/// head size) or 3-D (batch x sequence x heads * head size, with
/// q_num_heads / kv_num_heads), an optional boolean (true attends) or
/// additive mask, an optional past key/value that the new ones extend (the
/// present_key/present_value outputs), is_causal aligned after the past,
/// scale and softcap. One msgraph.attention; qk_matmul_output and
/// nonpad_kv_seqlen are not supported.
static Results convertAttention(NodeContext &c) {
  Composer m(c);
  RankedTensorType qt = c.inputType(0), kt = c.inputType(1),
                   vt = c.inputType(2);
  int64_t rank = qt.getRank();
  if ((rank != 3 && rank != 4) || kt.getRank() != rank ||
      vt.getRank() != rank)
    return c.error() << "expected Q, K and V all of rank 3 or all of rank 4, "
                        "but found "
                     << qt << ", " << kt << " and " << vt;
  if (!qt.hasStaticShape() || !kt.hasStaticShape() || !vt.hasStaticShape())
    return c.error() << "expected static shapes, but found " << qt << ", "
                     << kt << " and " << vt;
  if (c.hasInput(6))
    return c.error() << "input nonpad_kv_seqlen is not supported";
  if (c.node.output_size() > 3 && !c.node.output(3).empty())
    return c.error() << "output qk_matmul_output is not supported";
  if (c.getInt("left_window_size", -1) != -1 ||
      c.getInt("right_window_size", -1) != -1)
    return c.error() << "sliding-window attention (left_window_size, "
                        "right_window_size) is not supported";
  Value q = c.input(0), k = c.input(1), v = c.input(2);
  int64_t batch = qt.getDimSize(0);
  if (rank == 3) {
    int64_t qHeads = c.getInt("q_num_heads", 0),
            kvHeads = c.getInt("kv_num_heads", 0);
    if (qHeads <= 0 || kvHeads <= 0)
      return c.error() << "expected positive q_num_heads and kv_num_heads "
                          "for 3-D inputs, but found "
                       << qHeads << " and " << kvHeads;
    for (auto [type, heads] :
         {std::pair{qt, qHeads}, {kt, kvHeads}, {vt, kvHeads}})
      if (type.getDimSize(2) % heads != 0)
        return c.error() << "expected a hidden size divisible by " << heads
                         << " heads, but found " << type;
    // batch x sequence x (heads * size) -> batch x heads x sequence x size
    auto split = [&](Value x, RankedTensorType type, int64_t heads) {
      Value r = m.reshapeTo(x, {type.getDimSize(0), type.getDimSize(1), heads,
                                type.getDimSize(2) / heads});
      return m.transpose(r, {0, 2, 1, 3});
    };
    q = split(q, qt, qHeads);
    k = split(k, kt, kvHeads);
    v = split(v, vt, kvHeads);
  }
  if (c.hasInput(4) != c.hasInput(5))
    return c.error() << "expected past_key and past_value together";
  int64_t past = 0;
  if (c.hasInput(4)) {
    past = c.inputType(4).getRank() == 4 ? c.inputType(4).getDimSize(2) : 0;
    auto concat = [&](Value pastValue, Value now) -> Value {
      if (!now)
        return {};
      auto r = c.create<graph::ConcatOp>(
          Type(), ValueRange{pastValue, now}, c.b.getI64IntegerAttr(2));
      return succeeded(r) ? *r : Value();
    };
    k = concat(c.input(4), k);
    v = concat(c.input(5), v);
    if (!k || !v)
      return failure();
  }
  Value mask;
  if (c.hasInput(3)) {
    mask = c.input(3);
    auto maskType = cast<RankedTensorType>(mask.getType());
    if (maskType.getRank() > 4)
      return c.error() << "expected attn_mask of rank at most 4, but found "
                       << maskType;
    // A boolean mask says which keys attend; others add to the scores.
    if (maskType.getElementType().isInteger(1))
      mask = m.where(mask, m.scalarLike(q, 0), m.scalarLike(q, -INFINITY));
    else
      mask = m.castTo(mask, qt.getElementType());
    SmallVector<int64_t> shape(4 - maskType.getRank(), 1);
    llvm::append_range(shape, maskType.getShape());
    mask = m.reshapeTo(mask, shape);
  }
  if (!q || !k || !v || (c.hasInput(3) && !mask))
    return failure();
  FloatAttr scale;
  if (c.attr("scale"))
    scale = c.b.getF64FloatAttr(c.getFloat("scale", 1.0f));
  auto y = c.create<graph::AttentionOp>(
      Type(), q, k, v, mask, scale,
      c.b.getBoolAttr(c.getInt("is_causal", 0) != 0),
      c.b.getI64IntegerAttr(past),
      c.b.getF64FloatAttr(c.getFloat("softcap", 0.0f)));
  if (failed(y))
    return failure();
  Value out = *y;
  if (rank == 3) {
    auto type = cast<RankedTensorType>(out.getType());
    out = m.reshapeTo(m.transpose(out, {0, 2, 1, 3}),
                      {batch, type.getDimSize(2),
                       type.getDimSize(1) * type.getDimSize(3)});
  }
  // present_key/present_value keep the 4-D layout.
  Results results = m.result(out);
  if (succeeded(results)) {
    results->push_back(k);
    results->push_back(v);
  }
  return results;
}

/// Softmax-like ops. Before opset 13 the input is coerced to 2-D at `axis`
/// (default 1) and normalized over the second dimension.
template <typename OpTy>
static Handler softmax(bool flatten) {
  return [flatten](NodeContext &c) -> Results {
    RankedTensorType type = c.inputType(0);
    int64_t rank = type.getRank();
    if (!flatten)
      return one(c.create<OpTy>(type, c.input(0),
                                c.b.getI64IntegerAttr(c.getInt("axis", -1))));
    int64_t axis = c.getInt("axis", 1);
    if (axis < 0)
      axis += rank;
    if (!type.hasStaticShape())
      return c.error() << "softmax before opset 13 needs a static shape";
    int64_t rows = 1, cols = 1;
    for (int64_t i = 0; i < rank; ++i)
      (i < axis ? rows : cols) *= type.getDimSize(i);
    auto flat = reshape(c, c.input(0), {rows, cols});
    if (failed(flat))
      return failure();
    auto result = c.create<OpTy>(cast<RankedTensorType>(flat->getType()),
                                 *flat, c.b.getI64IntegerAttr(-1));
    if (failed(result))
      return failure();
    return one(reshape(c, *result, type.getShape()));
  };
}

static Results convertGemm(NodeContext &c) {
  Value a = c.input(0), b = c.input(1);
  auto transpose = [&](Value v) -> FailureOr<Value> {
    return c.create<graph::TransposeOp>(Type(), v, i64s(c, {1, 0}));
  };
  if (c.getInt("transA", 0)) {
    auto t = transpose(a);
    if (failed(t))
      return failure();
    a = *t;
  }
  if (c.getInt("transB", 0)) {
    auto t = transpose(b);
    if (failed(t))
      return failure();
    b = *t;
  }
  auto y = c.create<graph::MatMulOp>(Type(), a, b);
  if (failed(y))
    return failure();
  Type elem = cast<RankedTensorType>(y->getType()).getElementType();
  Value result = *y;
  double alpha = c.getFloat("alpha", 1.0f), beta = c.getFloat("beta", 1.0f);
  if (alpha != 1.0) {
    auto m = c.create<graph::MulOp>(Type(), result, scalar(c, elem, alpha));
    if (failed(m))
      return failure();
    result = *m;
  }
  if (c.hasInput(2) && beta != 0.0) {
    Value bias = c.input(2);
    if (beta != 1.0) {
      auto m = c.create<graph::MulOp>(Type(), bias, scalar(c, elem, beta));
      if (failed(m))
        return failure();
      bias = *m;
    }
    return one(c.create<graph::AddOp>(Type(), result, bias));
  }
  return SmallVector<Value>{result};
}

/// A rank-0 constant of element type `elem`.
/// Training-mode BatchNormalization (opset 14 on): normalizes with the
/// batch's mean and population variance over every axis but 1, and returns
/// the running statistics updated as `running * momentum + batch * (1 -
/// momentum)`.
static Results convertBatchNormTraining(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  if (rank < 2 || ShapedType::isDynamic(type.getDimSize(1)))
    return c.error() << "training mode needs an input of rank >= 2 with a "
                        "static channel dimension, but found "
                     << type;
  Type elem = type.getElementType();
  for (unsigned i = 1; i < 5; ++i)
    if (c.inputType(i).getElementType() != elem)
      return c.error() << "training mode expects scale, bias, mean and var of "
                          "the input's element type "
                       << elem << ", but input #" << i << " is "
                       << c.inputType(i);
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (i != 1)
      axes.push_back(i);
  Value x = c.input(0);
  auto mean = c.create<graph::ReduceMeanOp>(Type(), x, i64s(c, axes),
                                            c.b.getBoolAttr(true));
  if (failed(mean))
    return failure();
  auto diff = c.create<graph::SubOp>(Type(), x, *mean);
  if (failed(diff))
    return failure();
  auto square = c.create<graph::MulOp>(Type(), *diff, *diff);
  if (failed(square))
    return failure();
  auto var = c.create<graph::ReduceMeanOp>(Type(), *square, i64s(c, axes),
                                           c.b.getBoolAttr(true));
  if (failed(var))
    return failure();
  int64_t channels = type.getDimSize(1);
  auto batchMean = reshape(c, *mean, {channels});
  auto batchVar = reshape(c, *var, {channels});
  if (failed(batchMean) || failed(batchVar))
    return failure();
  auto y = c.create<graph::BatchNormOp>(
      type, x, c.input(1), c.input(2), *batchMean, *batchVar,
      c.b.getF32FloatAttr(c.getFloat("epsilon", 1e-5f)));
  if (failed(y))
    return failure();
  SmallVector<Value> results{*y};
  double momentum = c.getFloat("momentum", 0.9f);
  for (auto [running, batch] :
       {std::pair{c.input(3), *batchMean}, std::pair{c.input(4), *batchVar}}) {
    if ((int)results.size() >= c.node.output_size())
      break;
    auto kept = c.create<graph::MulOp>(Type(), running,
                                       scalar(c, elem, momentum));
    auto added = c.create<graph::MulOp>(Type(), batch,
                                        scalar(c, elem, 1.0 - momentum));
    if (failed(kept) || failed(added))
      return failure();
    auto sum = c.create<graph::AddOp>(Type(), *kept, *added);
    if (failed(sum))
      return failure();
    results.push_back(*sum);
  }
  return results;
}

/// The draws of NumPy's legacy generator after np.random.seed(seed):
/// MT19937 seeded with `seed` (std::mt19937 seeds the same way), each double
/// built from two 32-bit outputs as numpy's random_sample does.
static SmallVector<double> numpyUniform(uint32_t seed, int64_t count) {
  std::mt19937 engine(seed);
  SmallVector<double> draws;
  draws.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    uint32_t a = engine() >> 5, b = engine() >> 6;
    draws.push_back((a * 67108864.0 + b) / 9007199254740992.0);
  }
  return draws;
}

/// Dropout: the identity in inference mode (or with a ratio of 0). In
/// training mode the keep mask is drawn at import time, as ONNX's reference
/// draws it: np.random.seed(seed) then uniform(0, 1, shape) >= ratio (seed 0
/// when the node has none), so y = x * mask / (1 - ratio) matches it
/// exactly; the mask is a constant of the compiled module.
static Results convertDropout(NodeContext &c) {
  if (c.getInt("training_mode", 0) != 0)
    return c.error() << "training mode is not supported";
  DenseElementsAttr training = c.constantInput(2);
  if (c.hasInput(2) && !training) {
    (void)c.constantFloats(2, "training_mode"); // Reports the run-time flag.
    return failure();
  }
  RankedTensorType type = c.inputType(0);
  bool wantMask = c.node.output_size() > 1 && !c.node.output(1).empty();
  auto maskType = RankedTensorType::get(type.getShape(), c.b.getI1Type());
  double ratio = 0;
  if (c.hasInput(2) && training.getNumElements() == 1 &&
      *training.getValues<bool>().begin()) {
    ratio = 0.5;
    if (c.hasInput(1)) {
      FailureOr<SmallVector<double>> given = c.constantFloats(1, "ratio");
      if (failed(given))
        return failure();
      if (given->size() != 1)
        return c.error() << "expected a scalar ratio, but found "
                         << given->size() << " values";
      ratio = given->front();
    }
    if (!(ratio >= 0 && ratio < 1))
      return c.error() << "expected a ratio in [0, 1), but found " << ratio;
  }
  if (ratio == 0) {
    auto output = c.create<graph::IdentityOp>(type, c.input(0));
    if (failed(output))
      return failure();
    SmallVector<Value> results{*output};
    // Every element is kept: the optional mask is all true.
    if (wantMask) {
      if (!type.hasStaticShape())
        return c.error() << "the mask output needs a static input shape";
      results.push_back(c.constant(DenseElementsAttr::get(maskType, true)));
    }
    return results;
  }
  if (!type.hasStaticShape())
    return c.error() << "training mode needs a static input shape to draw "
                        "the mask, but found "
                     << type;
  if (!isa<FloatType>(type.getElementType()))
    return c.error() << "expected a floating-point input, but found " << type;
  int64_t seed = c.getInt("seed", 0);
  if (seed < 0 || seed > int64_t(UINT32_MAX))
    return c.error() << "expected a seed in [0, 2^32), but found " << seed;
  SmallVector<double> draws =
      numpyUniform(static_cast<uint32_t>(seed), type.getNumElements());
  // NumPy multiplies the float tensor by the Python float scale in the
  // tensor's type: one multiply by (kept ? scale : 0) rounds the same way.
  Type elem = type.getElementType();
  APFloat scale(1.0 / (1.0 - ratio));
  bool lost = false;
  scale.convert(cast<FloatType>(elem).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
  APFloat zero = APFloat::getZero(scale.getSemantics());
  SmallVector<APFloat> factors;
  SmallVector<bool> keep;
  for (double draw : draws) {
    keep.push_back(draw >= ratio);
    factors.push_back(keep.back() ? scale : zero);
  }
  auto y = c.create<graph::MulOp>(
      Type(), c.input(0), c.constant(DenseElementsAttr::get(type, factors)));
  if (failed(y))
    return failure();
  SmallVector<Value> results{*y};
  if (wantMask)
    results.push_back(c.constant(DenseElementsAttr::get(maskType, keep)));
  return results;
}

/// RMSNormalization (opset 23): x / sqrt(mean(x^2) + epsilon) * scale with
/// the mean over axes axis..rank-1, computed in `stash_type` (f32 by default)
/// and cast back before the scale.
static Results convertRMSNormalization(NodeContext &c) {
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  auto axisOr = normalizeAxis(c, c.getInt("axis", -1), rank);
  if (failed(axisOr))
    return failure();
  int64_t axis = *axisOr;
  SmallVector<int64_t> axes;
  for (int64_t i = axis; i < rank; ++i)
    axes.push_back(i);
  Type stash = convertElementType(c.b.getContext(),
                                  c.getInt("stash_type", 1), c.loc);
  if (!stash)
    return failure();
  if (!isa<FloatType>(stash))
    return c.error() << "expected a floating-point stash_type, but found "
                     << stash;
  Composer m(c);
  Value x = m.castTo(c.input(0), stash);
  Value meanSquare = m.op<graph::ReduceMeanOp>(
      m.binary<graph::MulOp>(x, x), i64s(c, axes), c.b.getBoolAttr(true));
  Value rms = m.unary<graph::SqrtOp>(m.binary<graph::AddOp>(
      meanSquare, m.scalarLike(x, c.getFloat("epsilon", 1e-5f))));
  Value normalized =
      m.castTo(m.binary<graph::DivOp>(x, rms), type.getElementType());
  return m.result(m.binary<graph::MulOp>(normalized, c.input(1)));
}

/// Hardmax (opset 13): one-hot of the first maximum along `axis`, as
/// argmax compared with the positions along that axis.
static Results convertHardmax(NodeContext &c) {
  Composer m(c);
  RankedTensorType type = c.inputType(0);
  int64_t rank = type.getRank();
  auto axisOr = normalizeAxis(c, c.getInt("axis", -1), rank);
  if (failed(axisOr))
    return failure();
  int64_t axis = *axisOr;
  int64_t n = type.getDimSize(axis);
  if (ShapedType::isDynamic(n))
    return c.error() << "expected a static extent along axis " << axis
                     << ", but found " << type;
  Value argmax = m.op<graph::ArgMaxOp>(c.input(0), c.b.getI64IntegerAttr(axis),
                                       c.b.getBoolAttr(true),
                                       c.b.getBoolAttr(false));
  SmallVector<int64_t> positionsShape(rank, 1);
  positionsShape[axis] = n;
  SmallVector<double> positions;
  for (int64_t i = 0; i < n; ++i)
    positions.push_back(i);
  Value index = m.constant(
      RankedTensorType::get(positionsShape, c.b.getI64Type()), positions);
  return m.result(m.castTo(m.binary<graph::EqualOp>(argmax, index),
                           type.getElementType()));
}

/// LpNormalization: x / ||x||_p along `axis` (p is 1 or 2); a zero vector
/// stays zero.
static Results convertLpNormalization(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  int64_t p = c.getInt("p", 2);
  int64_t axis = c.getInt("axis", -1);
  if (p != 1 && p != 2)
    return c.error() << "expected p to be 1 or 2, but found " << p;
  Value norm =
      p == 1 ? m.reduceKeep<graph::ReduceSumOp>(m.unary<graph::AbsOp>(x),
                                                 {axis})
             : m.unary<graph::SqrtOp>(m.reduceKeep<graph::ReduceSumOp>(
                   m.binary<graph::MulOp>(x, x), {axis}));
  // A zero vector stays zero (ONNX's reference divides by 1 there).
  Value isZero = m.binary<graph::EqualOp>(norm, m.scalarLike(x, 0));
  norm = m.where(isZero, m.scalarLike(x, 1), norm);
  return m.result(m.binary<graph::DivOp>(x, norm));
}

/// MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9)
/// over `axes`, as ONNX's function body computes it.
static Results convertMeanVarianceNormalization(NodeContext &c) {
  Composer m(c);
  Value x = c.input(0);
  SmallVector<int64_t> axes = c.getInts("axes").value_or(
      SmallVector<int64_t>{0, 2, 3});
  Value mean = m.reduceKeep<graph::ReduceMeanOp>(x, axes);
  Value meanOfSquares =
      m.reduceKeep<graph::ReduceMeanOp>(m.binary<graph::MulOp>(x, x), axes);
  Value variance = m.binary<graph::SubOp>(
      meanOfSquares, m.binary<graph::MulOp>(mean, mean));
  Value stddev = m.binary<graph::AddOp>(m.unary<graph::SqrtOp>(variance),
                                        m.scalarLike(x, 1e-9));
  return m.result(
      m.binary<graph::DivOp>(m.binary<graph::SubOp>(x, mean), stddev));
}

/// GroupNormalization (opset 21): normalizes each of `num_groups` channel
/// groups over its channels and spatial positions, then applies the
/// per-channel scale and bias; statistics in f32 (stash_type 1).
static Results convertGroupNormalization(NodeContext &c) {
  Composer m(c);
  RankedTensorType type = c.inputType(0);
  if (!type.hasStaticShape() || type.getRank() < 2)
    return c.error() << "expected a statically shaped input of rank >= 2, "
                        "but found "
                     << type;
  if (c.getInt("stash_type", 1) != 1)
    return c.error() << "stash_type other than float32 is not supported";
  ArrayRef<int64_t> shape = type.getShape();
  int64_t groups = c.getInt("num_groups", 0);
  int64_t channels = shape[1];
  if (groups <= 0 || channels % groups != 0)
    return c.error() << "expected num_groups to divide the " << channels
                     << " channels, but found " << groups;
  int64_t perGroup = type.getNumElements() / (shape[0] * groups);
  Type elem = type.getElementType();
  Value x = m.castTo(c.input(0), c.b.getF32Type());
  Value grouped = m.reshapeTo(x, {shape[0], groups, perGroup});
  Value mean = m.reduceKeep<graph::ReduceMeanOp>(grouped, {2});
  Value centered = m.binary<graph::SubOp>(grouped, mean);
  Value variance = m.reduceKeep<graph::ReduceMeanOp>(
      m.binary<graph::MulOp>(centered, centered), {2});
  Value epsilon = m.scalarLike(x, c.getFloat("epsilon", 1e-5f));
  Value normalized = m.binary<graph::DivOp>(
      centered,
      m.unary<graph::SqrtOp>(m.binary<graph::AddOp>(variance, epsilon)));
  normalized = m.castTo(m.reshapeTo(normalized, shape), elem);
  SmallVector<int64_t> channelShape(shape.size(), 1);
  channelShape[1] = channels;
  Value scale = m.reshapeTo(c.input(1), channelShape);
  Value bias = m.reshapeTo(c.input(2), channelShape);
  return m.result(m.binary<graph::AddOp>(
      m.binary<graph::MulOp>(normalized, scale), bias));
}

void mlir::ms::onnx_importer::populateNeuralNetworkOps(OpTable &t) {
  t.onOp("Conv", 1, convertConv);
  t.onOp("ConvTranspose", 1, convertConvTranspose);
  t.onOp("MaxPool", 1, convertPool<graph::MaxPoolOp, true>);
  t.onOp("AveragePool", 1, convertPool<graph::AvgPoolOp, false>);
  t.onOp("GlobalAveragePool", 1, convertGlobalPool<graph::ReduceMeanOp>);
  t.onOp("GlobalMaxPool", 1, convertGlobalPool<graph::ReduceMaxOp>);
  t.onOp("MatMul", 1, [](NodeContext &c) -> Results {
    return one(c.create<graph::MatMulOp>(Type(), c.input(0), c.input(1)));
  });
  t.onOp("Gemm", 1, convertGemm);
  t.onOp("RMSNormalization", 23, convertRMSNormalization);
  t.onOp("Attention", 23, convertAttention);
  t.onOp("Softmax", 1, softmax<graph::SoftmaxOp>(true));
  t.onOp("Softmax", 13, softmax<graph::SoftmaxOp>(false));
  t.onOp("LogSoftmax", 1, softmax<graph::LogSoftmaxOp>(true));
  t.onOp("LogSoftmax", 13, softmax<graph::LogSoftmaxOp>(false));
  t.onOp("BatchNormalization", 1, [](NodeContext &c) -> Results {
    if (c.getInt("training_mode", 0) != 0) {
      if (c.opset < 14)
        return c.error() << "training_mode before opset 14 is not supported";
      return convertBatchNormTraining(c);
    }
    return one(c.create<graph::BatchNormOp>(
        c.inputType(0), c.input(0), c.input(1), c.input(2), c.input(3),
        c.input(4), c.b.getF32FloatAttr(c.getFloat("epsilon", 1e-5f))));
  });
  t.onOp("Hardmax", 13, convertHardmax);
  t.onOp("LpNormalization", 1, convertLpNormalization);
  t.onOp("MeanVarianceNormalization", 9, convertMeanVarianceNormalization);
  t.onOp("GroupNormalization", 21, convertGroupNormalization);
  t.onOp("InstanceNormalization", 1, [](NodeContext &c) -> Results {
    return one(c.create<graph::InstanceNormOp>(
        c.inputType(0), c.input(0), c.input(1), c.input(2),
        c.b.getF32FloatAttr(c.getFloat("epsilon", 1e-5f))));
  });
  t.onOp("LayerNormalization", 17, [](NodeContext &c) -> Results {
    if (c.getInt("stash_type", 1) != 1)
      return c.error() << "stash_type other than float32 is not supported";
    int64_t axis = c.getInt("axis", -1);
    float epsilon = c.getFloat("epsilon", 1e-5f);
    auto y = c.create<graph::LayerNormOp>(
        c.inputType(0), c.input(0), c.input(1), c.input(2),
        c.b.getI64IntegerAttr(axis), c.b.getF32FloatAttr(epsilon));
    if (failed(y))
      return failure();
    SmallVector<Value> results = {*y};
    if (c.node.output_size() < 2)
      return results;
    // Mean and InvStdDev outputs: reductions over the normalized axes.
    int64_t rank = c.inputType(0).getRank();
    if (axis < 0)
      axis += rank;
    SmallVector<int64_t> axes;
    for (int64_t i = axis; i < rank; ++i)
      axes.push_back(i);
    auto mean = c.create<graph::ReduceMeanOp>(Type(), c.input(0), i64s(c, axes),
                                              c.b.getBoolAttr(true));
    if (failed(mean))
      return failure();
    results.push_back(*mean);
    if (c.node.output_size() < 3)
      return results;
    auto diff = c.create<graph::SubOp>(Type(), c.input(0), *mean);
    if (failed(diff))
      return failure();
    auto sq = c.create<graph::MulOp>(Type(), *diff, *diff);
    if (failed(sq))
      return failure();
    auto var = c.create<graph::ReduceMeanOp>(Type(), *sq, i64s(c, axes),
                                             c.b.getBoolAttr(true));
    if (failed(var))
      return failure();
    Type elem = c.inputType(0).getElementType();
    Value eps = c.constant(DenseElementsAttr::get(
        RankedTensorType::get({}, elem), c.b.getFloatAttr(elem, epsilon)));
    auto shifted = c.create<graph::AddOp>(Type(), *var, eps);
    if (failed(shifted))
      return failure();
    auto root = c.create<graph::SqrtOp>(shifted->getType(), *shifted);
    if (failed(root))
      return failure();
    auto inv = c.create<graph::ReciprocalOp>(root->getType(), *root);
    if (failed(inv))
      return failure();
    results.push_back(*inv);
    return results;
  });
  t.onOp("LRN", 1, [](NodeContext &c) -> Results {
    return one(c.create<graph::LRNOp>(
        c.inputType(0), c.input(0), c.b.getI64IntegerAttr(c.getInt("size", 0)),
        c.b.getF32FloatAttr(c.getFloat("alpha", 1e-4f)),
        c.b.getF32FloatAttr(c.getFloat("beta", 0.75f)),
        c.b.getF32FloatAttr(c.getFloat("bias", 1.0f))));
  });
  t.onOp("Dropout", 1, convertDropout);
}
