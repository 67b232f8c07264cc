"""The msgraph op set as Python functions on traced tensors.

Use these inside a function decorated with `ms.jit`. Arguments may be traced
tensors, NumPy arrays (which become constants of the compiled module) or
Python numbers (which take the dtype of the tensor they combine with). Shapes
and dtypes are checked as each op is traced: a mismatch raises
`ms.CompileError` naming the line that caused it.

Called outside a trace with NumPy arrays, each function compiles itself (once
per signature) and runs eagerly, so `ms.ops.relu(np.ones(4, np.float32))`
works too.
"""

import builtins
import functools
import inspect
import math
import numbers

import numpy as np

from . import _tracing
from ._tracing import (Tensor, boolean, compile_error, current_trace, f32,
                       f64, f64s, i64, i64s, integer, string)

__all__ = [
    "abs", "add", "arccos", "arccosh", "arcsin", "arcsinh", "arctan",
    "arctanh", "argmax", "argmin", "attention", "avg_pool2d", "batch_norm",
    "bitwise_and", "bitwise_or", "bitwise_xor", "broadcast_to", "cast",
    "ceil", "clip", "concat", "constant", "conv2d", "conv_transpose2d",
    "cos", "cosh", "cumprod", "cumsum", "divide", "equal", "erf", "exp",
    "expand_dims", "floor", "gelu", "greater", "greater_equal",
    "hard_sigmoid", "hard_swish", "identity", "instance_norm", "invert",
    "layer_norm", "leaky_relu", "left_shift", "less", "less_equal",
    "linear", "log", "log_softmax", "logical_and", "logical_not",
    "logical_or", "logical_xor", "matmul", "max", "max_pool2d", "maximum",
    "mean", "min", "minimum", "multiply", "negative", "not_equal", "pad",
    "power", "prelu", "prod", "reciprocal", "relu", "reshape",
    "right_shift", "round", "scaled_dot_product_attention", "sigmoid",
    "sin", "sinh", "softmax", "sqrt",
    "squeeze", "stack", "subtract", "sum", "take", "tan", "tanh", "tile",
    "transpose", "where",
]


# --- helpers --------------------------------------------------------------

def _eager(fn):
    """Lets an op run outside a trace: it is jitted once per signature, with
    the arrays among its arguments (also inside lists and keywords) as
    inputs and everything else static."""

    params = list(inspect.signature(fn).parameters)
    takes_x = bool(params) and params[0] == "x"

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        trace = current_trace()
        if trace is not None or _has_tensor(args, kwargs):
            if args and isinstance(args[0], (np.ndarray, np.generic)):
                args = (_tensor(args[0], trace=trace or _trace_of(*args)),) \
                    + args[1:]
            # The operand `x` is a tensor (or an array, made one above).
            x = args[0] if args else kwargs.get("x", _ARRAY)
            if takes_x and x is not _ARRAY and not isinstance(x, Tensor):
                if isinstance(x, (np.ndarray, np.generic)):
                    kwargs["x"] = _tensor(x, trace=trace or _trace_of(
                        *args, *kwargs.values()))
                else:
                    raise TypeError(
                        f"{fn.__name__}: expected a tensor or a NumPy array "
                        f"for x, but found {type(x).__name__}")
            return fn(*args, **kwargs)
        from ._jit import jit
        arrays = []
        spec = _split_arrays((args, kwargs), arrays)
        key = (wrapper, spec)
        jitted = _EAGER_CACHE.get(key)
        if jitted is None:
            def flat(*leaves):
                call_args, call_kwargs = _join_arrays(spec, iter(leaves))
                return fn(*call_args, **call_kwargs)
            flat.__qualname__ = fn.__name__
            jitted = jit(flat)
            _EAGER_CACHE[key] = jitted
        return jitted(*arrays)

    return wrapper


_EAGER_CACHE = {}
_ARRAY = object()


def _split_arrays(value, arrays):
    """A hashable spec of `value` with its arrays moved into `arrays`."""
    if isinstance(value, (np.ndarray, np.generic)):
        arrays.append(value)
        return _ARRAY
    if isinstance(value, dict):
        return (dict, tuple((k, _split_arrays(v, arrays))
                            for k, v in sorted(value.items())))
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_split_arrays(v, arrays) for v in value))
    try:
        hash(value)
    except TypeError:
        raise TypeError(f"unhashable argument {value!r}") from None
    return ("static", value)


def _join_arrays(spec, leaves):
    if spec is _ARRAY:
        return next(leaves)
    kind, payload = spec
    if kind == "static":
        return payload
    if kind is dict:
        return {k: _join_arrays(v, leaves) for k, v in payload}
    return kind(_join_arrays(v, leaves) for v in payload)


def _freeze(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def _has_tensor(args, kwargs):
    def any_tensor(v):
        if isinstance(v, Tensor):
            return True
        if isinstance(v, (list, tuple)):
            return builtins.any(any_tensor(x) for x in v)
        return False
    return any_tensor(args) or any_tensor(list(kwargs.values()))


def _trace_of(*values):
    for v in values:
        if isinstance(v, Tensor):
            return v.trace
    trace = current_trace()
    if trace is None:
        raise compile_error(
            "ms.ops functions take traced tensors; call them inside an "
            "@ms.jit function or pass NumPy arrays")
    return trace


def _tensor(value, like=None, trace=None):
    """`value` as a tensor: Python numbers take `like`'s dtype."""
    if isinstance(value, Tensor):
        return value
    trace = trace or _trace_of(like)
    if isinstance(value, (bool, np.bool_)) and not isinstance(value,
                                                              np.ndarray):
        dtype = np.bool_ if like is None else like.dtype
        return trace.constant(value, dtype)
    if isinstance(value, numbers.Number) and not isinstance(
            value, (np.ndarray, np.generic)):
        if like is None:
            dtype = np.float32 if isinstance(value, float) else np.int64
            return trace.constant(value, dtype)
        return trace.constant(_scalar_for(value, like.dtype), like.dtype)
    return trace.constant(value)


def _scalar_for(value, dtype):
    """`value` checked to be exactly representable enough in `dtype`: a
    Python number takes the dtype of the tensor it meets (no promotion), so a
    fraction with an integer tensor or an out-of-range integer is an error."""
    if dtype == np.bool_:
        if value not in (0, 1):
            raise compile_error(
                f"the number {value!r} meets a bool tensor; expected a "
                "bool (or 0/1)")
        return bool(value)
    if np.issubdtype(dtype, np.integer):
        if isinstance(value, float) and not float(value).is_integer():
            raise compile_error(
                f"the number {value!r} meets a tensor of dtype {dtype}; "
                "cast the tensor with .astype() (ms does not promote)")
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise compile_error(
                f"the number {value!r} does not fit dtype {dtype} "
                f"([{info.min}, {info.max}])")
        return int(value)
    return value


def _binary_operands(lhs, rhs, name):
    if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
        trace = _trace_of()
        lhs = _tensor(lhs, trace=trace)
    like = lhs if isinstance(lhs, Tensor) else rhs
    lhs, rhs = _tensor(lhs, like), _tensor(rhs, like)
    if lhs.dtype != rhs.dtype:
        raise compile_error(
            f"{name}: operands have dtypes {lhs.dtype} and {rhs.dtype}; "
            "expected one dtype (convert one with .astype())")
    return lhs, rhs


def _axis(axis, rank):
    axis = integer(axis, "axis")
    if not -rank <= axis < builtins.max(rank, 1):
        raise compile_error(
            f"axis {axis} is out of range for a tensor of rank {rank}")
    return axis % rank if rank else 0


def _pair(value, n=2):
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise compile_error(f"expected {n} values, but found {value}")
        return [integer(v) for v in value]
    return [integer(value)] * n


# --- constants and casts --------------------------------------------------

def constant(value, dtype=None):
    """A constant tensor (inside a trace)."""
    return _trace_of().constant(value, dtype)


@_eager
def cast(x, dtype):
    """Converts elements to `dtype` (NumPy's astype, C truncation for
    float to integer)."""
    dtype = np.dtype(dtype)
    _tracing.dtype_name(dtype)
    if dtype == x.dtype:
        return x
    return x.trace.op("msgraph.cast", [x], result=(dtype, x.shape))


@_eager
def identity(x):
    """A copy of `x`."""
    return x.trace.op("msgraph.identity", [x])


# --- elementwise ----------------------------------------------------------

def _unary(op, doc):
    def fn(x):
        x = _tensor(x)
        return x.trace.op(op, [x])
    fn.__name__ = fn.__qualname__ = op.split(".")[1]
    fn.__doc__ = doc
    return _eager(fn)


negative = _unary("msgraph.neg", "Elementwise -x.")
negative.__name__ = "negative"
abs = _unary("msgraph.abs", "Elementwise |x|.")
sqrt = _unary("msgraph.sqrt", "Elementwise square root.")
reciprocal = _unary("msgraph.reciprocal", "Elementwise 1 / x.")
exp = _unary("msgraph.exp", "Elementwise e^x.")
log = _unary("msgraph.log", "Elementwise natural logarithm.")
erf = _unary("msgraph.erf", "Elementwise error function.")
tanh = _unary("msgraph.tanh", "Elementwise hyperbolic tangent.")
sigmoid = _unary("msgraph.sigmoid", "Elementwise 1 / (1 + e^-x).")
relu = _unary("msgraph.relu", "Elementwise max(x, 0).")
hard_swish = _unary("msgraph.hard_swish",
                    "Elementwise x * relu6(x + 3) / 6.")
sin = _unary("msgraph.sin", "Elementwise sine.")
cos = _unary("msgraph.cos", "Elementwise cosine.")
tan = _unary("msgraph.tan", "Elementwise tangent.")
arcsin = _unary("msgraph.asin", "Elementwise inverse sine.")
arccos = _unary("msgraph.acos", "Elementwise inverse cosine.")
arctan = _unary("msgraph.atan", "Elementwise inverse tangent.")
sinh = _unary("msgraph.sinh", "Elementwise hyperbolic sine.")
cosh = _unary("msgraph.cosh", "Elementwise hyperbolic cosine.")
arcsinh = _unary("msgraph.asinh", "Elementwise inverse hyperbolic sine.")
arccosh = _unary("msgraph.acosh", "Elementwise inverse hyperbolic cosine.")
arctanh = _unary("msgraph.atanh", "Elementwise inverse hyperbolic tangent.")
floor = _unary("msgraph.floor", "Elementwise floor.")
ceil = _unary("msgraph.ceil", "Elementwise ceiling.")
invert = _unary("msgraph.not",
                "Elementwise bitwise not (logical not on bool tensors).")
invert.__name__ = "invert"
for _fn, _name in ((arcsin, "arcsin"), (arccos, "arccos"),
                   (arctan, "arctan"), (arcsinh, "arcsinh"),
                   (arccosh, "arccosh"), (arctanh, "arctanh")):
    _fn.__name__ = _name


def _bool_only(fn, name):
    """`fn` restricted to bool tensors, as NumPy's logical_* compute truth
    values where msgraph's and/or/xor/not would work bitwise."""
    def checked(*args):
        for a in args:
            if getattr(a, "dtype", np.bool_) != np.bool_:
                raise compile_error(
                    f"{name}: expected bool tensors, but found {a.dtype} "
                    "(compare with 0 first, or use the bitwise_* ops)")
        return fn(*args)
    checked.__name__ = name
    checked.__doc__ = fn.__doc__
    return checked


logical_not = _bool_only(invert, "logical_not")
logical_not.__doc__ = "Elementwise not of a bool tensor."


@_eager
def round(x, decimals=0):
    """Elementwise rounding to the nearest integer, halves to even (as
    numpy.round with decimals=0)."""
    if decimals != 0:
        raise compile_error(f"round: only decimals=0 is supported, but "
                            f"found {decimals}")
    x = _tensor(x)
    return x.trace.op("msgraph.round", [x])


def _scan(op, doc):
    def fn(x, axis=None):
        x = _tensor(x)
        if axis is None:
            x, axis = reshape(x, (-1,)), 0
        # NumPy scans bools and narrow integers in 64-bit integers.
        compute = x.dtype
        if x.dtype == np.bool_ or (np.issubdtype(x.dtype, np.signedinteger)
                                   and x.dtype.itemsize < 8):
            compute = np.dtype(np.int64)
        elif (np.issubdtype(x.dtype, np.unsignedinteger)
              and x.dtype.itemsize < 8):
            compute = np.dtype(np.uint64)
        y = cast(x, compute)
        return y.trace.op(op, [y], {"axis": i64(_axis(axis, x.ndim))})
    fn.__name__ = fn.__qualname__ = op.split(".")[1]
    fn.__doc__ = doc + " along `axis` (None: of the flattened tensor)."
    return _eager(fn)


cumsum = _scan("msgraph.cumsum", "Cumulative sum")
cumprod = _scan("msgraph.cumprod", "Cumulative product")


@_eager
def gelu(x, approximate="none"):
    """Gaussian error linear unit; approximate is "none" (erf) or "tanh"."""
    return x.trace.op("msgraph.gelu", [_tensor(x)],
                      {"approximate": string(approximate)})


@_eager
def leaky_relu(x, alpha=0.01):
    """Elementwise x if x >= 0 else alpha * x."""
    return x.trace.op("msgraph.leaky_relu", [x], {"alpha": f32(alpha)})


@_eager
def hard_sigmoid(x, alpha=0.2, beta=0.5):
    """Elementwise max(0, min(1, alpha * x + beta))."""
    return x.trace.op("msgraph.hard_sigmoid", [x],
                      {"alpha": f32(alpha), "beta": f32(beta)})


@_eager
def clip(x, min=None, max=None):
    """Elementwise clamp to [min, max] (either bound may be None)."""
    x = _tensor(x)
    if np.issubdtype(x.dtype, np.integer):
        # Bounds outside the dtype's range would wrap: clamp them first.
        info = np.iinfo(x.dtype)
        if min is not None:
            min = builtins.min(builtins.max(math.ceil(min), info.min),
                               info.max)
        if max is not None:
            max = builtins.max(builtins.min(math.floor(max), info.max),
                               info.min)
    return x.trace.op("msgraph.clip", [x], {
        "min": None if min is None else f64(min),
        "max": None if max is None else f64(max)})


def _binary(op, doc):
    def fn(lhs, rhs):
        lhs, rhs = _binary_operands(lhs, rhs, fn.__name__)
        return lhs.trace.op(op, [lhs, rhs])
    fn.__name__ = fn.__qualname__ = op.split(".")[1]
    fn.__doc__ = doc + " Operands broadcast as in NumPy."
    return _eager(fn)


add = _binary("msgraph.add", "Elementwise lhs + rhs.")
subtract = _binary("msgraph.sub", "Elementwise lhs - rhs.")
multiply = _binary("msgraph.mul", "Elementwise lhs * rhs.")
divide = _binary("msgraph.div",
                 "Elementwise lhs / rhs (integers truncate toward zero).")
power = _binary("msgraph.pow", "Elementwise lhs ** rhs (floats).")
maximum = _binary("msgraph.max", "Elementwise max(lhs, rhs).")
minimum = _binary("msgraph.min", "Elementwise min(lhs, rhs).")
prelu = _binary("msgraph.prelu", "Elementwise lhs < 0 ? rhs * lhs : lhs.")
bitwise_and = _binary("msgraph.and",
                      "Elementwise bitwise and (logical on bool tensors).")
bitwise_or = _binary("msgraph.or",
                     "Elementwise bitwise or (logical on bool tensors).")
bitwise_xor = _binary("msgraph.xor",
                      "Elementwise bitwise xor (logical on bool tensors).")
left_shift = _binary("msgraph.shift_left",
                     "Elementwise lhs << rhs of integer tensors (0 once "
                     "the shift reaches the bit width).")
right_shift = _binary("msgraph.shift_right",
                      "Elementwise lhs >> rhs of integer tensors, "
                      "arithmetic for signed ones.")
for _fn, _name in ((bitwise_and, "bitwise_and"), (bitwise_or, "bitwise_or"),
                   (bitwise_xor, "bitwise_xor"), (left_shift, "left_shift"),
                   (right_shift, "right_shift")):
    _fn.__name__ = _name
logical_and = _bool_only(bitwise_and, "logical_and")
logical_and.__doc__ = "Elementwise and of bool tensors."
logical_or = _bool_only(bitwise_or, "logical_or")
logical_or.__doc__ = "Elementwise or of bool tensors."
logical_xor = _bool_only(bitwise_xor, "logical_xor")
logical_xor.__doc__ = "Elementwise xor of bool tensors."
equal = _binary("msgraph.equal", "Elementwise lhs == rhs (bool result).")
less = _binary("msgraph.less", "Elementwise lhs < rhs (bool result).")
less_equal = _binary("msgraph.less_equal",
                     "Elementwise lhs <= rhs (bool result).")
greater = _binary("msgraph.greater", "Elementwise lhs > rhs (bool result).")
greater_equal = _binary("msgraph.greater_equal",
                        "Elementwise lhs >= rhs (bool result).")
for _fn, _name in ((subtract, "subtract"), (multiply, "multiply"),
                   (divide, "divide"), (power, "power"),
                   (maximum, "maximum"), (minimum, "minimum"),
                   (logical_and, "logical_and"), (logical_or, "logical_or")):
    _fn.__name__ = _name


@_eager
def not_equal(lhs, rhs):
    """Elementwise lhs != rhs (bool result)."""
    return logical_not(equal(lhs, rhs))


@_eager
def where(condition, x, y):
    """Elementwise condition ? x : y, broadcasting all three."""
    like = x if isinstance(x, Tensor) else y if isinstance(y, Tensor) else None
    trace = _trace_of(condition, x, y)
    condition = _tensor(condition, trace=trace)
    if like is None:
        x = _tensor(x, trace=trace)
        like = x
    x, y = _tensor(x, like, trace), _tensor(y, like, trace)
    if x.dtype != y.dtype:
        raise compile_error(f"where: branches have dtypes {x.dtype} and "
                            f"{y.dtype}; expected one dtype")
    return trace.op("msgraph.where", [condition, x, y])


# --- reductions -----------------------------------------------------------

def _axes(x, axis):
    if axis is None:
        return list(range(x.ndim))
    if isinstance(axis, (list, tuple)):
        return [_axis(a, x.ndim) for a in axis]
    return [_axis(axis, x.ndim)]


def _accumulator(op, dtype):
    """The dtype NumPy reduces `dtype` in for `op` (sum/prod of bools and
    narrow integers in 64-bit integers, mean of integers in float64, float16
    accumulated in float32 and rounded back)."""
    if op in ("msgraph.reduce_sum", "msgraph.reduce_prod"):
        if dtype == np.bool_ or (np.issubdtype(dtype, np.signedinteger)
                                 and dtype.itemsize < 8):
            return np.dtype(np.int64), np.dtype(np.int64)
        if np.issubdtype(dtype, np.unsignedinteger) and dtype.itemsize < 8:
            return np.dtype(np.uint64), np.dtype(np.uint64)
    if op == "msgraph.reduce_mean" and not np.issubdtype(dtype, np.floating):
        return np.dtype(np.float64), np.dtype(np.float64)
    if dtype == np.float16 and op != "msgraph.reduce_max" \
            and op != "msgraph.reduce_min":
        return np.dtype(np.float32), dtype
    return dtype, dtype


def _reduction(op, doc):
    def fn(x, axis=None, keepdims=False):
        x = _tensor(x)
        compute, result = _accumulator(op, x.dtype)
        y = cast(x, compute)
        y = y.trace.op(op, [y], {"axes": i64s(_axes(x, axis)),
                                 "keep_dims": boolean(keepdims)})
        return cast(y, result)
    fn.__name__ = fn.__qualname__ = op.split("_")[1]
    fn.__doc__ = doc + " over `axis` (int, tuple or None for all)."
    return _eager(fn)


sum = _reduction("msgraph.reduce_sum", "Sum")
mean = _reduction("msgraph.reduce_mean", "Mean")
max = _reduction("msgraph.reduce_max", "Maximum")
min = _reduction("msgraph.reduce_min", "Minimum")
prod = _reduction("msgraph.reduce_prod", "Product")


def _arg(op, doc):
    def fn(x, axis=None, keepdims=False):
        x = _tensor(x)
        if axis is None:
            flat = reshape(x, (-1,))
            y = flat.trace.op(op, [flat], {"axis": i64(0),
                                           "keep_dims": boolean(False)})
            return reshape(y, (1,) * x.ndim) if keepdims else y
        return x.trace.op(op, [x], {"axis": i64(_axis(axis, x.ndim)),
                                    "keep_dims": boolean(keepdims)})
    fn.__name__ = fn.__qualname__ = op.split(".")[1]
    fn.__doc__ = doc
    return _eager(fn)


argmax = _arg("msgraph.argmax", "Index (int64) of the largest element "
              "along `axis` (the flattened tensor when None).")
argmin = _arg("msgraph.argmin", "Index (int64) of the smallest element "
              "along `axis` (the flattened tensor when None).")


@_eager
def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis`."""
    return x.trace.op("msgraph.softmax", [x], {"axis": i64(axis)})


@_eager
def log_softmax(x, axis=-1):
    """log(softmax(x)) along `axis`."""
    return x.trace.op("msgraph.log_softmax", [x], {"axis": i64(axis)})


# --- linear algebra and neural network ops --------------------------------

@_eager
def matmul(lhs, rhs):
    """Matrix product with NumPy's matmul semantics (batched, broadcast)."""
    lhs, rhs = _binary_operands(lhs, rhs, "matmul")
    return lhs.trace.op("msgraph.matmul", [lhs, rhs])


@_eager
def linear(x, weight, bias=None):
    """x @ weight.T + bias, with weight stored [out, in] as in PyTorch."""
    y = matmul(x, transpose(_tensor(weight, x)))
    return y if bias is None else add(y, bias)


@_eager
def attention(query, key, value, mask=None, is_causal=False, scale=None,
              softcap=0.0, causal_offset=0):
    """softmax(query @ key^T * scale + mask) @ value over [B, H, S, D]
    tensors, one fused kernel (msgraph.attention). `key`/`value` may have
    fewer heads than `query` (grouped-query attention). `mask` is boolean
    (True attends, as in PyTorch) or additive, broadcast to
    [B, Hq, S, T]; `is_causal` hides key j from query i when
    j > i + causal_offset; `scale` defaults to 1/sqrt(D); `softcap > 0`
    caps scores as softcap * tanh(score / softcap)."""
    if not isinstance(query, Tensor):
        raise TypeError("attention: expected a tensor or a NumPy array for "
                        f"query, but found {type(query).__name__}")
    key, value = _tensor(key, query), _tensor(value, query)
    operands = [query, key, value]
    if mask is not None:
        mask = _tensor(mask, query)
        if mask.dtype == np.bool_:
            mask = where(mask, 0.0, -np.inf)
            mask = cast(mask, query.dtype)
        if mask.ndim > 4:
            raise compile_error(
                f"attention: expected a mask of rank at most 4, but found "
                f"shape {mask.shape}")
        mask = reshape(mask, (1,) * (4 - mask.ndim) + mask.shape)
        operands.append(mask)
    attributes = {"is_causal": boolean(is_causal),
                  "causal_offset": i64(causal_offset),
                  "softcap": f64(softcap)}
    if scale is not None:
        attributes["scale"] = f64(scale)
    return query.trace.op("msgraph.attention", operands, attributes)


def scaled_dot_product_attention(query, key, value, attn_mask=None,
                                 is_causal=False, scale=None):
    """PyTorch's torch.nn.functional.scaled_dot_product_attention (no
    dropout): `attention` with PyTorch's argument names."""
    return attention(query, key, value, mask=attn_mask, is_causal=is_causal,
                     scale=scale)


@_eager
def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution, NCHW input, OIHW weight (PyTorch's conv2d)."""
    weight = _tensor(weight, x)
    operands = [x, weight]
    if bias is not None:
        operands.append(_tensor(bias, x))
    ph, pw = _pair(padding)
    return x.trace.op("msgraph.conv", operands, {
        "strides": i64s(_pair(stride)), "pads": i64s([ph, pw, ph, pw]),
        "dilations": i64s(_pair(dilation)), "group": i64(groups)})


@_eager
def conv_transpose2d(x, weight, bias=None, stride=1, padding=0,
                     output_padding=0, dilation=1, groups=1):
    """2-D transposed convolution, NCHW input, weight [C_in, C_out/g, kH, kW]
    (PyTorch's conv_transpose2d)."""
    weight = _tensor(weight, x)
    operands = [x, weight]
    if bias is not None:
        operands.append(_tensor(bias, x))
    ph, pw = _pair(padding)
    return x.trace.op("msgraph.conv_transpose", operands, {
        "strides": i64s(_pair(stride)), "pads": i64s([ph, pw, ph, pw]),
        "dilations": i64s(_pair(dilation)),
        "output_padding": i64s(_pair(output_padding)), "group": i64(groups)})


def _pool_attributes(kernel_size, stride, padding, dilation, ceil_mode):
    ph, pw = _pair(padding)
    return {"kernel_shape": i64s(_pair(kernel_size)),
            "strides": i64s(_pair(kernel_size if stride is None else stride)),
            "pads": i64s([ph, pw, ph, pw]),
            "dilations": i64s(_pair(dilation)),
            "ceil_mode": boolean(ceil_mode)}


@_eager
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1,
               ceil_mode=False):
    """2-D max pooling over NCHW (stride defaults to kernel_size)."""
    return x.trace.op("msgraph.max_pool", [x], _pool_attributes(
        kernel_size, stride, padding, dilation, ceil_mode))


@_eager
def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """2-D average pooling over NCHW (stride defaults to kernel_size)."""
    attributes = _pool_attributes(kernel_size, stride, padding, 1, ceil_mode)
    attributes["count_include_pad"] = boolean(count_include_pad)
    return x.trace.op("msgraph.avg_pool", [x], attributes)


@_eager
def batch_norm(x, mean, var, weight, bias, eps=1e-5):
    """Inference batch normalization over axis 1 (N x C x ...)."""
    operands = [x] + [_tensor(v, x) for v in (weight, bias, mean, var)]
    return x.trace.op("msgraph.batch_norm", operands, {"epsilon": f32(eps)},
                      result=(x.dtype, x.shape))


@_eager
def layer_norm(x, weight, bias=None, axis=-1, eps=1e-5):
    """Normalizes over the axes from `axis` to the last, then scales by
    `weight` and shifts by `bias`."""
    operands = [x, _tensor(weight, x)]
    if bias is not None:
        operands.append(_tensor(bias, x))
    return x.trace.op("msgraph.layer_norm", operands,
                      {"axis": i64(axis), "epsilon": f32(eps)},
                      result=(x.dtype, x.shape))


@_eager
def instance_norm(x, weight, bias, eps=1e-5):
    """Normalizes each (sample, channel) over the spatial axes."""
    return x.trace.op("msgraph.instance_norm",
                      [x, _tensor(weight, x), _tensor(bias, x)],
                      {"epsilon": f32(eps)}, result=(x.dtype, x.shape))


# --- data movement --------------------------------------------------------

def _resolve_shape(shape, size):
    shape = [integer(d, "a dimension")
             for d in (shape if isinstance(shape, (list, tuple))
                       else (shape,))]
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1 or builtins.any(d < -1 for d in shape):
        raise compile_error(f"invalid shape {tuple(shape)}")
    known = int(np.prod([d for d in shape if d != -1], dtype=np.int64))
    if unknown:
        if known == 0 or size % known:
            raise compile_error(
                f"cannot reshape {size} elements into {tuple(shape)}")
        shape[unknown[0]] = size // known
    elif known != size:
        raise compile_error(
            f"cannot reshape {size} elements into shape {tuple(shape)}")
    return tuple(shape)


@_eager
def reshape(x, shape):
    """The elements of `x` in a new shape (one dimension may be -1)."""
    shape = _resolve_shape(shape, x.size)
    if shape == x.shape:
        return x
    return x.trace.op("msgraph.reshape", [x], result=(x.dtype, shape))


@_eager
def transpose(x, axes=None):
    """Permutes the axes (reverses them by default)."""
    axes = list(reversed(range(x.ndim))) if axes is None else [
        _axis(a, x.ndim) for a in axes]
    if axes == list(range(x.ndim)):
        return x
    return x.trace.op("msgraph.transpose", [x],
                      {"permutation": i64s(axes)})


@_eager
def squeeze(x, axis=None):
    """Removes size-1 axes (all of them, or those in `axis`)."""
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None \
        else _axes(x, axis)
    for a in axes:
        if x.shape[a] != 1:
            raise compile_error(
                f"cannot squeeze axis {a} of size {x.shape[a]}")
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


@_eager
def expand_dims(x, axis):
    """Inserts a size-1 axis at `axis`."""
    axis = _axis(axis, x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


@_eager
def concat(tensors, axis=0):
    """Joins tensors along `axis`."""
    tensors = list(tensors)
    if not tensors:
        raise compile_error("concat of no tensors")
    like = next((t for t in tensors if isinstance(t, Tensor)), None)
    tensors = [_tensor(t, like) for t in tensors]
    if len(tensors) == 1:
        return tensors[0]
    return tensors[0].trace.op("msgraph.concat", tensors,
                               {"axis": i64(axis)})


@_eager
def stack(tensors, axis=0):
    """Joins tensors along a new axis."""
    return concat([expand_dims(t, axis) for t in tensors], axis)


@_eager
def broadcast_to(x, shape):
    """`x` broadcast to `shape` (NumPy rules)."""
    if not isinstance(shape, (list, tuple)):
        shape = (shape,)
    shape = tuple(integer(d, "a dimension") for d in shape)
    try:
        result = np.broadcast_shapes(x.shape, shape)
    except ValueError:
        raise compile_error(
            f"cannot broadcast shape {x.shape} to {shape}") from None
    if result != shape:
        raise compile_error(f"cannot broadcast shape {x.shape} to {shape}")
    if shape == x.shape:
        return x
    return x.trace.op("msgraph.expand", [x], result=(x.dtype, shape))


@_eager
def tile(x, reps):
    """Repeats `x` reps[i] times along axis i."""
    x = _tensor(x)
    reps = [integer(r, "a repeat count")
            for r in (reps if isinstance(reps, (list, tuple, np.ndarray))
                      else [reps])]
    if len(reps) < x.ndim:
        reps = [1] * (x.ndim - len(reps)) + reps
    elif len(reps) > x.ndim:
        x = reshape(x, (1,) * (len(reps) - x.ndim) + x.shape)
    return x.trace.op("msgraph.tile", [x], {"repeats": i64s(reps)})


@_eager
def pad(x, pad_width, mode="constant", constant_values=0):
    """Pads like numpy.pad: pad_width is [(before, after)] per axis (or one
    pair for all); mode is constant, reflect or edge."""
    x = _tensor(x)
    widths = np.asarray(pad_width)
    if widths.size and not np.issubdtype(widths.dtype, np.integer):
        raise TypeError(f"pad_width must hold integers, but found "
                        f"{pad_width!r}")
    widths = widths.astype(np.int64)
    if widths.ndim == 0:
        widths = np.full((x.ndim, 2), int(widths))
    elif widths.ndim == 1:
        widths = widths.reshape((1, 2) if widths.size == 2 else (-1, 1))
    if widths.ndim == 2 and widths.shape[1] == 1:
        widths = np.repeat(widths, 2, axis=1)
    pairs = [tuple(int(v) for v in p) for p in widths]
    if len(pairs) == 1 and x.ndim != 1:
        pairs = pairs * x.ndim
    if len(pairs) != x.ndim:
        raise compile_error(
            f"pad_width has {len(pairs)} pairs for a tensor of rank {x.ndim}")
    pads = [p[0] for p in pairs] + [p[1] for p in pairs]
    return x.trace.op("msgraph.pad", [x], {
        "pads": i64s(pads), "mode": string(mode),
        "value": f64(constant_values)})


@_eager
def take(x, indices, axis=0):
    """Elements of `x` at `indices` (int32/int64) along `axis`."""
    trace = x.trace
    if x.ndim == 0:
        raise compile_error("take: expected a tensor of rank >= 1, but "
                            "found a scalar")
    axis = _axis(axis, x.ndim)
    if not isinstance(indices, Tensor):
        array = np.asarray(indices)
        if array.dtype == np.bool_ or not (
                array.size == 0 or np.issubdtype(array.dtype, np.integer)):
            raise compile_error(
                f"indices must be integers, but found dtype {array.dtype} "
                "(boolean masks are not supported)")
        size = x.shape[axis]
        if array.size and (array.min() < -size or array.max() >= size):
            raise compile_error(
                f"index {int(array.max() if array.max() >= size else array.min())}"
                f" is out of bounds for axis {axis} of size {size}")
        indices = trace.constant(array.astype(np.int64))
    elif not np.issubdtype(indices.dtype, np.integer):
        raise compile_error(
            f"indices must be integers, but found dtype {indices.dtype}")
    return trace.op("msgraph.gather", [x, indices], {"axis": i64(axis)})


def _getitem(x, index):
    if not isinstance(index, tuple):
        index = (index,)
    if builtins.sum(1 for i in index if i is Ellipsis) > 1:
        raise compile_error("an index can only have one ellipsis")
    used = builtins.sum(1 for i in index if i is not None and i is not Ellipsis)
    if used > x.ndim:
        raise compile_error(
            f"too many indices ({used}) for a tensor of rank {x.ndim}")
    expanded = []
    for i in index:
        if i is Ellipsis:
            expanded.extend([slice(None)] * (x.ndim - used))
        else:
            expanded.append(i)
    expanded.extend([slice(None)] * (x.ndim - builtins.sum(
        1 for i in expanded if i is not None)))

    starts, ends, steps, shape = [], [], [], []
    gather = None
    dim = 0
    for i in expanded:
        if i is None:
            shape.append(1)
            continue
        size = x.shape[dim]
        if isinstance(i, slice):
            start, stop, step = i.indices(size)
            if step > 0:
                stop = builtins.max(start, stop)
            else:
                start = builtins.min(start, size - 1)
                stop = builtins.min(stop, start)
            starts.append(start)
            ends.append(stop)
            steps.append(step)
            shape.append(len(range(start, stop, step)))
        elif isinstance(i, (int, np.integer)):
            k = int(i)
            if not -size <= k < size:
                raise compile_error(
                    f"index {k} is out of bounds for axis {dim} of size "
                    f"{size}")
            k %= size
            starts.append(k)
            ends.append(k + 1)
            steps.append(1)
        elif isinstance(i, (Tensor, np.ndarray, list)):
            kind = i.dtype if isinstance(i, (Tensor, np.ndarray)) \
                else np.asarray(i).dtype
            if kind == np.bool_:
                raise compile_error(
                    "boolean mask indexing is not supported (its result "
                    "shape depends on the values); use ms.ops.where")
            if gather is not None:
                raise compile_error(
                    "only one array index per indexing expression is "
                    "supported")
            gather = (len(shape), i)
            starts.append(0)
            ends.append(size)
            steps.append(1)
            shape.append(size)
        else:
            raise compile_error(f"unsupported index {i!r}")
        dim += 1
    y = x
    if (starts != [0] * x.ndim or ends != list(x.shape)
            or steps != [1] * x.ndim):
        y = x.trace.op("msgraph.slice", [x], {
            "starts": i64s(starts), "ends": i64s(ends), "steps": i64s(steps)})
    y = reshape(y, shape)
    if gather is not None:
        y = take(y, gather[1], gather[0])
    return y


# --- Tensor operators and methods -----------------------------------------

def _reflected(fn):
    return lambda self, other: fn(other, self)


Tensor.__add__ = add
Tensor.__radd__ = _reflected(add)
Tensor.__sub__ = subtract
Tensor.__rsub__ = _reflected(subtract)
Tensor.__mul__ = multiply
Tensor.__rmul__ = _reflected(multiply)
def _true_divide(lhs, rhs):
    """`/` as in NumPy: integer tensors divide as float64."""
    def promote(v):
        if isinstance(v, Tensor) and not np.issubdtype(v.dtype, np.floating):
            return cast(v, np.float64)
        return v
    return divide(promote(lhs), promote(rhs))


Tensor.__truediv__ = _true_divide
Tensor.__rtruediv__ = _reflected(_true_divide)
Tensor.__pow__ = power
Tensor.__rpow__ = _reflected(power)
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = _reflected(matmul)
Tensor.__neg__ = negative
Tensor.__pos__ = lambda self: self
Tensor.__abs__ = abs
Tensor.__lt__ = less
Tensor.__le__ = less_equal
Tensor.__gt__ = greater
Tensor.__ge__ = greater_equal
Tensor.__eq__ = equal
Tensor.__ne__ = not_equal
Tensor.__and__ = bitwise_and
Tensor.__or__ = bitwise_or
Tensor.__xor__ = bitwise_xor
Tensor.__lshift__ = left_shift
Tensor.__rshift__ = right_shift
Tensor.__invert__ = invert
Tensor.__getitem__ = _getitem
Tensor.__iter__ = lambda self: (self[i] for i in range(len(self)))
Tensor.T = property(lambda self: transpose(self))
Tensor.reshape = lambda self, *shape: reshape(
    self, shape[0] if len(shape) == 1 and isinstance(shape[0], (list, tuple))
    else shape)
Tensor.transpose = lambda self, *axes: transpose(
    self, (axes[0] if len(axes) == 1 and isinstance(axes[0], (list, tuple))
           else axes) or None)
Tensor.astype = cast
Tensor.sum = sum
Tensor.mean = mean
Tensor.max = max
Tensor.min = min
Tensor.prod = prod
Tensor.argmax = argmax
Tensor.argmin = argmin
Tensor.squeeze = squeeze
Tensor.__hash__ = object.__hash__
