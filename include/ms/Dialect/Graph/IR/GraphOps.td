//===- GraphOps.td - msgraph operations --------------------*- tablegen -*-===//
//
// Part of the ms project.
//
//===----------------------------------------------------------------------===//

#ifndef MS_DIALECT_GRAPH_IR_GRAPHOPS_TD
#define MS_DIALECT_GRAPH_IR_GRAPHOPS_TD

include "ms/Dialect/Graph/IR/GraphBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Op classes
//===----------------------------------------------------------------------===//

/// An elementwise op with one operand whose result has the operand's type.
class Graph_UnaryOp<string mnemonic, Type type, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, Elementwise,
                                      SameOperandsAndResultType], traits)> {
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

/// An elementwise op with two operands of one element type that broadcast
/// numpy-style (docs/spec/msgraph.md, "Broadcasting").
class Graph_BinaryOp<string mnemonic, Type operandType, Type resultType,
                     list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, InferTypeOpAdaptorWithIsCompatible],
                                     traits)> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs resultType:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

/// A reduction over a set of axes.
class Graph_ReduceOp<string mnemonic, Type type, string body>
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "reduces a tensor with " # body # " over the given axes";
  let description = [{
    Reduces `input` over `axes` with }] # body # [{. Axes may be negative
    (counted from the back) and must be distinct. An empty `axes` list
    reduces over every axis. With `keep_dims` the reduced axes stay as size
    1; otherwise they are removed.

    ```mlir
    %r = msgraph.}] # mnemonic # [{ %x {axes = array<i64: 1>, keep_dims = false}
        : (tensor<2x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins type:$input, DenseI64ArrayAttr:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keep_dims);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Constants and shapes
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "a constant tensor";
  let description = [{
    Produces the tensor held in `value`. Weights, ONNX initializers and the
    results of constant folding are constants.

    ```mlir
    %c = msgraph.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Graph_ConstantOfShapeOp : Graph_Op<"constant_of_shape", [Pure]> {
  let summary = "a tensor of a runtime shape filled with one value";
  let description = [{
    Produces a tensor whose shape is the value of the 1-D i64 `shape` operand,
    every element equal to `value`. The result type gives the element type and
    the rank (the length of `shape`); its dimensions may be dynamic.

    ```mlir
    %t = msgraph.constant_of_shape %s {value = 0.0 : f32}
        : (tensor<2xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Graph_ShapeTensor:$shape, TypedAttrInterface:$value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$shape attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_ShapeOp : Graph_Op<"shape",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "the shape of a tensor as a 1-D i64 tensor";
  let description = [{
    Returns the dimensions of `input` as a 1-D i64 tensor of length rank.
    Folds to a constant when the input shape is static.

    ```mlir
    %s = msgraph.shape %x : (tensor<?x4xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_ShapeTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_RangeOp : Graph_Op<"range", [Pure]> {
  let summary = "a 1-D tensor of evenly spaced values";
  let description = [{
    Produces `[start, start + delta, ...]` up to but excluding `limit`; the
    length is `max(ceil((limit - start) / delta), 0)`. The three operands are
    0-D tensors of the result's element type; `delta` must not be zero.

    ```mlir
    %r = msgraph.range %start, %limit, %delta
        : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$start, Graph_NumericTensor:$limit,
                       Graph_NumericTensor:$delta);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = [{
    $start `,` $limit `,` $delta attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_IdentityOp : Graph_UnaryOp<"identity", Graph_Tensor> {
  let summary = "returns its operand";
  let description = [{
    Returns `input` unchanged. ONNX Identity and inference-mode Dropout import
    as this op; canonicalization removes it.

    ```mlir
    %y = msgraph.identity %x : tensor<4xf32>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def Graph_NegOp : Graph_UnaryOp<"neg", Graph_SignedTensor, [Involution]> {
  let summary = "elementwise negation";
  let description = [{
    `result[i] = -input[i]`.

    ```mlir
    %y = msgraph.neg %x : tensor<4xf32>
    ```
  }];
}

def Graph_AbsOp : Graph_UnaryOp<"abs", Graph_NumericTensor, [Idempotent]> {
  let summary = "elementwise absolute value";
  let description = [{
    `result[i] = |input[i]|`; unsigned inputs are returned unchanged.

    ```mlir
    %y = msgraph.abs %x : tensor<4xi32>
    ```
  }];
}

def Graph_SqrtOp : Graph_UnaryOp<"sqrt", Graph_FloatTensor> {
  let summary = "elementwise square root";
  let description = [{
    `result[i] = sqrt(input[i])`; negative inputs give NaN.

    ```mlir
    %y = msgraph.sqrt %x : tensor<4xf32>
    ```
  }];
}

def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", Graph_FloatTensor> {
  let summary = "elementwise reciprocal";
  let description = [{
    `result[i] = 1 / input[i]`.

    ```mlir
    %y = msgraph.reciprocal %x : tensor<4xf32>
    ```
  }];
}

def Graph_ExpOp : Graph_UnaryOp<"exp", Graph_FloatTensor> {
  let summary = "elementwise natural exponential";
  let description = [{
    `result[i] = e^input[i]`.

    ```mlir
    %y = msgraph.exp %x : tensor<4xf32>
    ```
  }];
}

def Graph_LogOp : Graph_UnaryOp<"log", Graph_FloatTensor> {
  let summary = "elementwise natural logarithm";
  let description = [{
    `result[i] = ln(input[i])`.

    ```mlir
    %y = msgraph.log %x : tensor<4xf32>
    ```
  }];
}

def Graph_ErfOp : Graph_UnaryOp<"erf", Graph_FloatTensor> {
  let summary = "elementwise Gauss error function";
  let description = [{
    `result[i] = erf(input[i])`.

    ```mlir
    %y = msgraph.erf %x : tensor<4xf32>
    ```
  }];
}

def Graph_TanhOp : Graph_UnaryOp<"tanh", Graph_FloatTensor> {
  let summary = "elementwise hyperbolic tangent";
  let description = [{
    `result[i] = tanh(input[i])`.

    ```mlir
    %y = msgraph.tanh %x : tensor<4xf32>
    ```
  }];
}

/// A float unary op computing one libm-style function.
class Graph_FloatMathOp<string mnemonic, string what, string expr>
    : Graph_UnaryOp<mnemonic, Graph_FloatTensor> {
  let summary = "elementwise " # what;
  let description = [{
    `result[i] = }] # expr # [{` with `x = input[i]`; f16 and bf16 are
    computed in f32 and rounded once.

    ```mlir
    %y = msgraph.}] # mnemonic # [{ %x : tensor<4xf32>
    ```
  }];
}

def Graph_SinOp : Graph_FloatMathOp<"sin", "sine", "sin(x)">;
def Graph_CosOp : Graph_FloatMathOp<"cos", "cosine", "cos(x)">;
def Graph_TanOp : Graph_FloatMathOp<"tan", "tangent", "tan(x)">;
def Graph_AsinOp : Graph_FloatMathOp<"asin", "arcsine",
    "asin(x), NaN outside [-1, 1]">;
def Graph_AcosOp : Graph_FloatMathOp<"acos", "arccosine",
    "acos(x), NaN outside [-1, 1]">;
def Graph_AtanOp : Graph_FloatMathOp<"atan", "arctangent", "atan(x)">;
def Graph_SinhOp : Graph_FloatMathOp<"sinh", "hyperbolic sine", "sinh(x)">;
def Graph_CoshOp : Graph_FloatMathOp<"cosh", "hyperbolic cosine", "cosh(x)">;
def Graph_AsinhOp : Graph_FloatMathOp<"asinh", "inverse hyperbolic sine",
    "asinh(x)">;
def Graph_AcoshOp : Graph_FloatMathOp<"acosh", "inverse hyperbolic cosine",
    "acosh(x), NaN below 1">;
def Graph_AtanhOp : Graph_FloatMathOp<"atanh", "inverse hyperbolic tangent",
    "atanh(x), NaN outside [-1, 1]">;
def Graph_FloorOp : Graph_FloatMathOp<"floor", "floor",
    "the largest integer not greater than x">;
def Graph_CeilOp : Graph_FloatMathOp<"ceil", "ceiling",
    "the smallest integer not less than x">;
def Graph_RoundOp : Graph_FloatMathOp<"round",
    "rounding to the nearest integer, halves to even",
    "the integer nearest to x; halves round to the even neighbour "
    "(round(2.5) = 2, round(-1.5) = -2)">;

def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", Graph_FloatTensor> {
  let summary = "elementwise logistic sigmoid";
  let description = [{
    `result[i] = 1 / (1 + e^-input[i])`.

    ```mlir
    %y = msgraph.sigmoid %x : tensor<4xf32>
    ```
  }];
}

def Graph_ReluOp : Graph_UnaryOp<"relu", Graph_SignedTensor, [Idempotent]> {
  let summary = "elementwise rectified linear unit";
  let description = [{
    `result[i] = max(input[i], 0)`.

    ```mlir
    %y = msgraph.relu %x : tensor<4xf32>
    ```
  }];
}

def Graph_NotOp : Graph_UnaryOp<"not", Graph_BitsTensor, [Involution]> {
  let summary = "elementwise logical or bitwise not";
  let description = [{
    `result[i] = ~input[i]`: logical not on booleans (i1), every bit
    flipped on integers.

    ```mlir
    %y = msgraph.not %x : tensor<4xi1>
    ```
  }];
}

def Graph_HardSwishOp : Graph_UnaryOp<"hard_swish", Graph_FloatTensor> {
  let summary = "elementwise hard swish";
  let description = [{
    `result[i] = x * max(0, min(1, x / 6 + 1 / 2))` with `x = input[i]`.

    ```mlir
    %y = msgraph.hard_swish %x : tensor<4xf32>
    ```
  }];
}

def Graph_GeluOp : Graph_UnaryOp<"gelu", Graph_FloatTensor> {
  let summary = "elementwise Gaussian error linear unit";
  let description = [{
    With `approximate = "none"` (default): `x * (1 + erf(x / sqrt(2))) / 2`.
    With `approximate = "tanh"`:
    `x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) / 2`.

    ```mlir
    %y = msgraph.gelu %x {approximate = "tanh"} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<StrAttr, "\"none\"">:$approximate);
  let hasVerifier = 1;
}

def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu", Graph_FloatTensor> {
  let summary = "elementwise leaky rectified linear unit";
  let description = [{
    `result[i] = x >= 0 ? x : alpha * x`.

    ```mlir
    %y = msgraph.leaky_relu %x {alpha = 0.1 : f32} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.01">:$alpha);
}

def Graph_HardSigmoidOp : Graph_UnaryOp<"hard_sigmoid", Graph_FloatTensor> {
  let summary = "elementwise hard sigmoid";
  let description = [{
    `result[i] = max(0, min(1, alpha * x + beta))`.

    ```mlir
    %y = msgraph.hard_sigmoid %x {alpha = 0.2 : f32, beta = 0.5 : f32}
        : tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<F32Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.5">:$beta);
}

def Graph_ClipOp : Graph_UnaryOp<"clip", Graph_NumericTensor> {
  let summary = "elementwise clamp to constant bounds";
  let description = [{
    `result[i] = min(max(input[i], min), max)`; a missing bound is
    unbounded. Bounds that are runtime values import as `max`/`min` ops.

    ```mlir
    %y = msgraph.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input, OptionalAttr<F64Attr>:$min,
                       OptionalAttr<F64Attr>:$max);
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_Op<"cast", [Pure]> {
  let summary = "elementwise element type conversion";
  let description = [{
    Converts each element to the result's element type: float to float
    rounds to nearest even, float to integer truncates toward zero, integer
    to float rounds, any value to i1 is `value != 0`, and integers wrap
    (signless operands are signed, `ui*` unsigned). Shapes must be compatible.

    ```mlir
    %y = msgraph.cast %x : (tensor<4xf32>) -> tensor<4xi32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary (broadcasting)
//===----------------------------------------------------------------------===//

class Graph_ArithOp<string mnemonic, string expr, Type type = Graph_NumericTensor,
                    list<Trait> traits = []>
    : Graph_BinaryOp<mnemonic, type, type, traits> {
  let summary = "elementwise " # mnemonic # " with broadcasting";
  let description = [{
    `result = }] # expr # [{` elementwise, after broadcasting the operands to
    a common shape (docs/spec/msgraph.md, "Broadcasting"). Both operands have
    one element type, which is the result's.

    ```mlir
    %z = msgraph.}] # mnemonic # [{ %x, %y
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

def Graph_AddOp : Graph_ArithOp<"add", "lhs + rhs", Graph_NumericTensor,
                                [Commutative]> {
  let hasCanonicalizer = 1;
}
def Graph_SubOp : Graph_ArithOp<"sub", "lhs - rhs">;
def Graph_MulOp : Graph_ArithOp<"mul", "lhs * rhs", Graph_NumericTensor,
                                [Commutative]> {
  let hasCanonicalizer = 1;
}
def Graph_DivOp : Graph_ArithOp<"div",
    "lhs / rhs (integers truncate toward zero; an integer x / 0 is 0)">;
def Graph_ModOp : Graph_ArithOp<"mod",
    "lhs mod rhs, the remainder of floor division, with the sign of rhs "
    "(NumPy's %; an integer x mod 0 is 0)">;
def Graph_FModOp : Graph_ArithOp<"fmod",
    "fmod(lhs, rhs), the remainder of truncating division, with the sign of "
    "lhs (C's fmod and %; an integer fmod(x, 0) is 0)">;
def Graph_PowOp : Graph_ArithOp<"pow", "lhs ^ rhs", Graph_FloatTensor>;
def Graph_MaxOp : Graph_ArithOp<"max", "max(lhs, rhs)", Graph_NumericTensor,
                                [Commutative]>;
def Graph_MinOp : Graph_ArithOp<"min", "min(lhs, rhs)", Graph_NumericTensor,
                                [Commutative]>;
def Graph_PReluOp : Graph_ArithOp<"prelu", "lhs < 0 ? rhs * lhs : lhs",
                                  Graph_SignedTensor> {
  let summary = "elementwise parametric ReLU with a broadcast slope";
}
def Graph_AndOp : Graph_ArithOp<"and",
    "lhs & rhs (logical on i1, bitwise on integers)", Graph_BitsTensor,
    [Commutative]>;
def Graph_OrOp : Graph_ArithOp<"or",
    "lhs | rhs (logical on i1, bitwise on integers)", Graph_BitsTensor,
    [Commutative]>;
def Graph_XorOp : Graph_ArithOp<"xor",
    "lhs ^ rhs (logical on i1, bitwise on integers)", Graph_BitsTensor,
    [Commutative]>;
def Graph_ShiftLeftOp : Graph_ArithOp<"shift_left",
    "lhs << rhs; a shift amount that is negative or not below the bit width "
    "gives 0", Graph_IntegerTensor>;
def Graph_ShiftRightOp : Graph_ArithOp<"shift_right",
    "lhs >> rhs, logical for unsigned and arithmetic for signless (signed) "
    "types; a shift amount that is negative or not below the bit width "
    "shifts every bit out (0, or -1 for a negative signed lhs)",
    Graph_IntegerTensor>;

class Graph_CompareOp<string mnemonic, string expr, list<Trait> traits = []>
    : Graph_BinaryOp<mnemonic, Graph_Tensor, Graph_BoolTensor, traits> {
  let summary = "elementwise " # mnemonic # " comparison with broadcasting";
  let description = [{
    `result = }] # expr # [{` elementwise as i1, after broadcasting. Both
    operands have one element type.

    ```mlir
    %z = msgraph.}] # mnemonic # [{ %x, %y
        : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    ```
  }];
}

def Graph_EqualOp : Graph_CompareOp<"equal", "lhs == rhs", [Commutative]>;
def Graph_LessOp : Graph_CompareOp<"less", "lhs < rhs">;
def Graph_LessEqualOp : Graph_CompareOp<"less_equal", "lhs <= rhs">;
def Graph_GreaterOp : Graph_CompareOp<"greater", "lhs > rhs">;
def Graph_GreaterEqualOp : Graph_CompareOp<"greater_equal", "lhs >= rhs">;

def Graph_WhereOp : Graph_Op<"where",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "elementwise selection with broadcasting";
  let description = [{
    `result = condition ? on_true : on_false` elementwise after broadcasting
    all three operands to a common shape. `on_true` and `on_false` share the
    result's element type.

    ```mlir
    %r = msgraph.where %c, %a, %b
        : (tensor<4xi1>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$on_true,
                       Graph_Tensor:$on_false);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    functional-type(operands, results)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", Graph_NumericTensor, "sum">;
def Graph_ReduceMeanOp
    : Graph_ReduceOp<"reduce_mean", Graph_NumericTensor, "arithmetic mean">;
def Graph_ReduceMaxOp
    : Graph_ReduceOp<"reduce_max", Graph_NumericTensor, "maximum">;
def Graph_ReduceMinOp
    : Graph_ReduceOp<"reduce_min", Graph_NumericTensor, "minimum">;
def Graph_ReduceProdOp
    : Graph_ReduceOp<"reduce_prod", Graph_NumericTensor, "product">;

/// A scan (inclusive or exclusive prefix combination) along one axis.
class Graph_CumulativeOp<string mnemonic, string what, string identity>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "cumulative " # what # " along one axis";
  let description = [{
    Combines the elements of `input` along `axis` (negative counts from the
    back) with }] # what # [{: `result[..., i, ...]` combines
    `input[..., j, ...]` for `j <= i`. With `exclusive` the element at `i`
    itself is left out (the first result is }] # identity # [{); with
    `reverse` the scan runs from the last element to the first (`j >= i`).

    ```mlir
    %y = msgraph.}] # mnemonic # [{ %x {axis = 1 : i64, exclusive = true}
        : tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "false">:$exclusive,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Graph_CumSumOp : Graph_CumulativeOp<"cumsum", "sum", "0">;
def Graph_CumProdOp : Graph_CumulativeOp<"cumprod", "product", "1">;

class Graph_ArgOp<string mnemonic, string what>
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "index of the " # what # " along an axis";
  let description = [{
    Returns, as i64, the index of the }] # what # [{ element along `axis`.
    Ties resolve to the first index, or the last with `select_last_index`.
    With `keep_dims` the axis stays as size 1.

    ```mlir
    %i = msgraph.}] # mnemonic # [{ %x {axis = 1 : i64, keep_dims = false}
        : (tensor<2x3xf32>) -> tensor<2xi64>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input, I64Attr:$axis,
                       DefaultValuedAttr<BoolAttr, "true">:$keep_dims,
                       DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ArgMaxOp : Graph_ArgOp<"argmax", "largest">;
def Graph_ArgMinOp : Graph_ArgOp<"argmin", "smallest">;

//===----------------------------------------------------------------------===//
// Composite ops
//===----------------------------------------------------------------------===//

class Graph_SoftmaxLikeOp<string mnemonic, string expr>
    : Graph_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = mnemonic # " along one axis";
  let description = [{
    `result = }] # expr # [{` along `axis` (negative counts from the back),
    computed stably by subtracting the maximum first.

    ```mlir
    %y = msgraph.}] # mnemonic # [{ %x {axis = -1 : i64} : tensor<2x8xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Graph_SoftmaxOp : Graph_SoftmaxLikeOp<"softmax", "exp(x) / sum(exp(x))">;
def Graph_LogSoftmaxOp
    : Graph_SoftmaxLikeOp<"log_softmax", "x - log(sum(exp(x)))">;

def Graph_MatMulOp : Graph_Op<"matmul",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "batched matrix product with numpy semantics";
  let description = [{
    Matrix product of the last two dimensions with broadcasting over the
    leading (batch) dimensions, as `numpy.matmul`: a 1-D `lhs` is a row
    vector and a 1-D `rhs` a column vector, and the added dimension is
    removed from the result. The contracted dimensions must agree. This is
    the op attention blocks use for `Q @ K^T` and `P @ V`.

    ```mlir
    %c = msgraph.matmul %a, %b
        : (tensor<8x64x32xf32>, tensor<32x16xf32>) -> tensor<8x64x16xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$lhs, Graph_NumericTensor:$rhs);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

def Graph_AttentionOp : Graph_Op<"attention",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "scaled dot-product attention: softmax(Q K^T s + mask) V";
  let description = [{
    Multi-head attention over `query` (B x Hq x S x D), `key`
    (B x Hkv x T x D) and `value` (B x Hkv x T x Dv); query head `h` reads
    key/value head `h / (Hq / Hkv)` (grouped-query attention when
    Hkv < Hq). Scores are `Q K^T * scale` (default `1 / sqrt(D)`), capped
    as `softcap * tanh(score / softcap)` when `softcap > 0`, plus the
    optional additive `mask` (rank 4, each dim 1 or the full
    B x Hq x S x T), with key `j` hidden from query `i` when `is_causal` and
    `j > i + causal_offset`. The result (B x Hq x S x Dv) is
    `softmax(scores) V` over the keys; a query that sees no key (every
    score `-inf`) gets zeros. Kernels compute it in tiles with an online
    softmax and never materialize the S x T score matrix.

    ```mlir
    %y = msgraph.attention %q, %k, %v {is_causal = true}
        : (tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>,
           tensor<1x12x128x64xf32>) -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$query, Graph_FloatTensor:$key,
                       Graph_FloatTensor:$value,
                       Optional<Graph_FloatTensor>:$mask,
                       OptionalAttr<F64Attr>:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       DefaultValuedAttr<I64Attr, "0">:$causal_offset,
                       DefaultValuedAttr<F64Attr, "0.0">:$softcap);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`,` $mask^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_ConvOp : Graph_Op<"conv",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "N-d grouped convolution in NC[spatial] layout";
  let description = [{
    Cross-correlation of `input` (N x C x D1..Dk) with `weight`
    (M x C/group x K1..Kk), plus an optional 1-D `bias` of length M.
    `strides` and `dilations` have k entries (default 1); `pads` has 2k
    entries, all begins then all ends (default 0). Output spatial size is
    `floor((D + pb + pe - ((K - 1) * d + 1)) / s) + 1`.

    ```mlir
    %y = msgraph.conv %x, %w, %b {strides = array<i64: 2, 2>,
                                  pads = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x224x224xf32>, tensor<64x3x3x3xf32>, tensor<64xf32>)
        -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$weight,
                       Optional<Graph_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def Graph_ConvTransposeOp : Graph_Op<"conv_transpose",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "N-d grouped transposed convolution in NC[spatial] layout";
  let description = [{
    The gradient of `conv` with respect to its input: `input` is
    N x C x D1..Dk, `weight` is C x M/group x K1..Kk, `bias` has length M.
    Output spatial size is
    `s * (D - 1) + op + ((K - 1) * d + 1) - pb - pe` with `op` from
    `output_padding` (each entry smaller than its stride or dilation).

    ```mlir
    %y = msgraph.conv_transpose %x, %w {strides = array<i64: 2, 2>}
        : (tensor<1x8x4x4xf32>, tensor<8x4x3x3xf32>) -> tensor<1x4x9x9xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$weight,
                       Optional<Graph_FloatTensor>:$bias,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$group);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

class Graph_PoolOp<string mnemonic, string what, Type tensorType,
                   dag extraArgs>
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "N-d " # what # " pooling in NC[spatial] layout";
  let description = [{
    Slides a `kernel_shape` window over the spatial dimensions of `input`
    (N x C x D1..Dk) and takes the }] # what # [{ of each window. `strides`
    and `dilations` have k entries (default 1), `pads` 2k (begins, then
    ends; default 0); padded elements never win a max and, unless
    `count_include_pad`, do not count toward an average. With `ceil_mode`
    the output size rounds up, dropping a last window that would start in
    the end padding.

    ```mlir
    %y = msgraph.}] # mnemonic # [{ %x {kernel_shape = array<i64: 2, 2>,
                                    strides = array<i64: 2, 2>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xf32>
    ```
  }];
  let arguments = !con((ins tensorType:$input,
                            DenseI64ArrayAttr:$kernel_shape,
                            OptionalAttr<DenseI64ArrayAttr>:$strides,
                            OptionalAttr<DenseI64ArrayAttr>:$pads,
                            OptionalAttr<DenseI64ArrayAttr>:$dilations,
                            DefaultValuedAttr<BoolAttr, "false">:$ceil_mode),
                       extraArgs);
  let results = (outs tensorType:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

// Max pooling also takes integers (ONNX MaxPool does since opset 12).
def Graph_MaxPoolOp
    : Graph_PoolOp<"max_pool", "maximum", Graph_NumericTensor, (ins)>;
def Graph_AvgPoolOp : Graph_PoolOp<"avg_pool", "average", Graph_FloatTensor,
    (ins DefaultValuedAttr<BoolAttr, "false">:$count_include_pad)>;

def Graph_MaxPoolIndicesOp : Graph_Op<"max_pool_indices",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "where each max_pool window's maximum is";
  let description = [{
    For the windows of `msgraph.max_pool` with the same attributes, the flat
    position in `input` of each window's maximum as i64: the first in
    window order when several are equal, and never a padded position.
    Positions count over the whole tensor: `(n * C + c) * S + s`, with `s`
    the spatial position in row-major order, or column-major (first spatial
    dimension fastest) with `column_major` (ONNX `storage_order = 1`).

    ```mlir
    %i = msgraph.max_pool_indices %x {kernel_shape = array<i64: 2, 2>,
                                      strides = array<i64: 2, 2>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x16x16xi64>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$strides,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$column_major);
  let results = (outs RankedTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_BatchNormOp : Graph_Op<"batch_norm", [Pure]> {
  let summary = "inference-mode batch normalization over channel axis 1";
  let description = [{
    `result = (input - mean) / sqrt(variance + epsilon) * scale + bias`,
    where `scale`, `bias`, `mean` and `variance` are 1-D of length C (the
    size of dimension 1) and broadcast over the other dimensions.

    ```mlir
    %y = msgraph.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
           tensor<8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias, Graph_FloatTensor:$mean,
                       Graph_FloatTensor:$variance,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_LayerNormOp : Graph_Op<"layer_norm",
    [Pure]> {
  let summary = "layer normalization over the trailing axes";
  let description = [{
    Normalizes over dimensions `axis..rank-1`:
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, where `scale` and the
    optional `bias` broadcast to the normalized shape (unidirectionally).

    ```mlir
    %y = msgraph.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32}
        : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
        -> tensor<2x16x64xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Optional<Graph_FloatTensor>:$bias,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_InstanceNormOp : Graph_Op<"instance_norm", [Pure]> {
  let summary = "instance normalization over the spatial axes";
  let description = [{
    For each sample and channel of `input` (N x C x D1..Dk), normalizes over
    the spatial dimensions: `(x - mean) / sqrt(var + epsilon) * scale + bias`
    with `scale` and `bias` 1-D of length C.

    ```mlir
    %y = msgraph.instance_norm %x, %s, %b {epsilon = 1.0e-05 : f32}
        : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
        -> tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_LRNOp : Graph_Op<"lrn", [Pure, SameOperandsAndResultType]> {
  let summary = "local response normalization across channels";
  let description = [{
    For input N x C x ..., with `square_sum[c]` the sum of `x[c']^2` over
    channels `c'` in `[c - floor((size - 1) / 2), c + ceil((size - 1) / 2)]`:
    `result = x / (bias + alpha / size * square_sum) ^ beta`.

    ```mlir
    %y = msgraph.lrn %x {size = 3 : i64, alpha = 1.0e-04 : f32,
                         beta = 0.75 : f32, bias = 1.0 : f32}
        : tensor<1x8x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$size,
                       DefaultValuedAttr<F32Attr, "1.0e-4">:$alpha,
                       DefaultValuedAttr<F32Attr, "0.75">:$beta,
                       DefaultValuedAttr<F32Attr, "1.0">:$bias);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure]> {
  let summary = "reinterprets a tensor with another shape";
  let description = [{
    Returns `input`'s elements in row-major order with the result's shape.
    Without a `shape` operand the result type gives the shape; with one (a
    1-D i64 tensor of length result-rank holding the runtime shape, no
    -1 or 0 entries) the result may have dynamic dimensions. Element counts
    must agree where both are static.

    ```mlir
    %y = msgraph.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
    %z = msgraph.reshape %x, %s : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_ShapeTensor>:$shape);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`.

    ```mlir
    %y = msgraph.transpose %x {permutation = array<i64: 1, 0>}
        : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def Graph_ConcatOp : Graph_Op<"concat",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "joins tensors along one axis";
  let description = [{
    All inputs have one rank and element type and agree on every dimension
    but `axis` (negative counts from the back).

    ```mlir
    %y = msgraph.concat %a, %b {axis = 0 : i64}
        : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_Op<"slice",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "a strided window of a tensor";
  let description = [{
    Takes, along every dimension `i`, the elements `starts[i]`,
    `starts[i] + steps[i]`, ... while before `ends[i]` (past it for negative
    steps). Values are normalized: for a positive step
    `0 <= start <= end <= dim`; for a negative step `-1 <= end <= start < dim`
    (end -1 meaning "through index 0"). The size is
    `max(ceil((end - start) / step), 0)`. Dynamic dimensions must be taken
    whole (start 0, end the `kDynamic` sentinel, step 1).

    ```mlir
    %y = msgraph.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 2, 5>,
                           steps = array<i64: 1, 2>}
        : (tensor<2x6xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_GatherOp : Graph_Op<"gather",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "picks slices along an axis by index";
  let description = [{
    `result[p..., q..., r...] = input[p..., indices[q...], r...]` where
    `p` spans the dimensions before `axis`. Negative indices count from the
    end; an index outside `[-dim, dim)` is undefined behaviour that the CPU
    kernels clamp.

    ```mlir
    %y = msgraph.gather %table, %ids {axis = 0 : i64}
        : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements",
    [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "picks elements along an axis by a same-rank index tensor";
  let description = [{
    `result[i_0, ..., i_axis, ..., i_n] = input[i_0, ..., indices[i_0, ...,
    i_n], ..., i_n]` (NumPy's `take_along_axis`): the result has the shape
    of `indices`, which has the input's rank and, off `axis`, extents no
    larger than the input's. Negative indices count from the end; an index
    outside `[-dim, dim)` is undefined behaviour that the CPU kernels clamp.

    ```mlir
    %y = msgraph.gather_elements %x, %i {axis = 1 : i64}
        : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices attr-dict `:` functional-type(operands, results)
  }];
}

def Graph_ExpandOp : Graph_Op<"expand", [Pure]> {
  let summary = "broadcasts a tensor to a larger shape";
  let description = [{
    Broadcasts `input` numpy-style to the result shape. The result's rank is
    at least the input's and each input dimension is 1 or equal to the
    aligned result dimension. With a `shape` operand (1-D i64 of length
    result-rank) the result may be dynamic.

    ```mlir
    %y = msgraph.expand %x : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, Optional<Graph_ShapeTensor>:$shape);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $input (`,` $shape^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TileOp : Graph_Op<"tile", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "repeats a tensor along each dimension";
  let description = [{
    `result.shape[i] = input.shape[i] * repeats[i]`, with
    `result[j] = input[j mod input.shape]`.

    ```mlir
    %y = msgraph.tile %x {repeats = array<i64: 2, 1>}
        : (tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$repeats);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def Graph_PadOp : Graph_Op<"pad", [Pure, InferTypeOpAdaptorWithIsCompatible]> {
  // Verified by running the type inference (GraphOps.cpp).
  let hasVerifier = 1;
  let summary = "pads a tensor with a constant or by reflection";
  let description = [{
    `pads` has 2 x rank entries, all begins then all ends; negative entries
    crop. `mode` is "constant" (fill with `value`), "reflect" (mirror without
    repeating the edge), "edge" (repeat the edge) or "wrap" (cyclic).

    ```mlir
    %y = msgraph.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "constant",
                         value = 0.0 : f64}
        : (tensor<2x3xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<StrAttr, "\"constant\"">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def Graph_ResizeOp : Graph_Op<"resize", [Pure]> {
  let summary = "resamples a tensor by interpolation";
  let description = [{
    Resamples `input` to the result shape. `scales` (one per dimension) map
    output coordinates to input coordinates through
    `coordinate_transformation_mode` ("half_pixel", "half_pixel_symmetric",
    "pytorch_half_pixel", "align_corners", "asymmetric" or
    "tf_crop_and_resize", which samples the region `roi` (starts then ends,
    normalized, 2 x rank values) and yields `extrapolation_value` where a
    sample falls outside the input). `mode` is "nearest" (rounded by
    `nearest_mode`: "round_prefer_floor", "round_prefer_ceil", "floor",
    "ceil"), "linear" or "cubic" (with `cubic_coeff_a` and
    `exclude_outside`). With `antialias`, linear and cubic downsampling
    widen the filter by the inverse scale.

    ```mlir
    %y = msgraph.resize %x {mode = "nearest", scales = array<f64: 1.0, 1.0, 2.0, 2.0>}
        : (tensor<1x3x8x8xf32>) -> tensor<1x3x16x16xf32>
    ```
  }];
  let arguments = (ins Graph_NumericTensor:$input, DenseF64ArrayAttr:$scales,
      DefaultValuedAttr<StrAttr, "\"nearest\"">:$mode,
      DefaultValuedAttr<StrAttr, "\"half_pixel\"">:$coordinate_transformation_mode,
      DefaultValuedAttr<StrAttr, "\"round_prefer_floor\"">:$nearest_mode,
      DefaultValuedAttr<F64Attr, "-0.75">:$cubic_coeff_a,
      DefaultValuedAttr<BoolAttr, "false">:$exclude_outside,
      OptionalAttr<DenseF64ArrayAttr>:$roi,
      DefaultValuedAttr<F64Attr, "0.0">:$extrapolation_value,
      DefaultValuedAttr<BoolAttr, "false">:$antialias);
  let results = (outs Graph_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// String ops (executed by the runtime)
//===----------------------------------------------------------------------===//

def Graph_StringEqualOp : Graph_BinaryOp<"string_equal", Graph_StringTensor,
    Graph_BoolTensor, [Commutative, Graph_HostExecuted]> {
  let summary = "elementwise string equality with broadcasting";
  let description = [{
    `result = lhs == rhs` elementwise as i1, after broadcasting: two strings
    are equal when their UTF-8 bytes are. Executed by the runtime.

    ```mlir
    %z = msgraph.string_equal %x, %y
        : (tensor<2x!msgraph.string>, tensor<1x!msgraph.string>) -> tensor<2xi1>
    ```
  }];
  let hasFolder = 0;
}

def Graph_StringConcatOp : Graph_BinaryOp<"string_concat", Graph_StringTensor,
    Graph_StringTensor, [Graph_HostExecuted]> {
  let summary = "elementwise string concatenation with broadcasting";
  let description = [{
    `result = lhs ++ rhs` elementwise, after broadcasting. Executed by the
    runtime.

    ```mlir
    %z = msgraph.string_concat %x, %y
        : (tensor<2x!msgraph.string>, tensor<!msgraph.string>)
        -> tensor<2x!msgraph.string>
    ```
  }];
  let hasFolder = 0;
}

def Graph_StringNormalizerOp : Graph_Op<"string_normalizer",
    [Pure, Graph_HostExecuted, InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "drops stop words from a list of words and changes case";
  let description = [{
    Takes words `[C]` or `[1, C]` and keeps, in order, those that are not in
    `stopwords` (compared exactly, or lower-cased on both sides unless
    `is_case_sensitive`), then upper- or lower-cases them per
    `case_change_action` (`NONE`, `UPPER`, `LOWER`; Unicode simple case
    mapping). When no word is kept the result is one empty string. With stop
    words the number of words kept depends on the data, so the last result
    extent is dynamic (`?`) and only known once the op has run. `locale` is
    recorded but case mapping is locale-independent. Executed by the
    runtime.

    ```mlir
    %y = msgraph.string_normalizer %x {case_change_action = "UPPER",
        stopwords = ["monday"]} : (tensor<4x!msgraph.string>)
        -> tensor<?x!msgraph.string>
    ```
  }];
  let arguments = (ins Graph_StringTensor:$input,
                       DefaultValuedStrAttr<StrAttr, "NONE">:$case_change_action,
                       DefaultValuedAttr<BoolAttr, "false">:$is_case_sensitive,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$stopwords,
                       DefaultValuedStrAttr<StrAttr, "">:$locale);
  let results = (outs Graph_StringTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // MS_DIALECT_GRAPH_IR_GRAPHOPS_TD
