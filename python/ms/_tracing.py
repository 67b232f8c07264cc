"""Tracing: Python calls on traced tensors become msgraph ops.

A `Trace` owns one `_ms.GraphBuilder`. Each op is added to the builder as the
Python code runs; the compiler infers its result type and verifies it on the
spot, so a shape mismatch raises `ms.CompileError` at the line that caused it,
and every op carries that line as its location for later diagnostics.
"""

import linecache
import math
import numbers
import os
import struct
import sys
import threading

import numpy as np

from . import _ms

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

# The runtime's dtype table (runtime/include/ms/runtime/DTypes.def), less the
# dtypes NumPy cannot hold (bf16, string).
_NAME_OF_DTYPE = {
    np.dtype(numpy): name for name, numpy in _ms.dtypes().items() if numpy
}
_DTYPE_OF_NAME = {name: dtype for dtype, name in _NAME_OF_DTYPE.items()}


def dtype_name(dtype):
    """The compiler's name for a NumPy dtype; TypeError when unsupported."""
    dtype = np.dtype(dtype)
    try:
        return _NAME_OF_DTYPE[dtype]
    except KeyError:
        raise TypeError(
            f"unsupported dtype {dtype}; expected one of "
            + ", ".join(str(d) for d in _NAME_OF_DTYPE)) from None


def numpy_dtype(name):
    """The NumPy dtype for a compiler dtype name."""
    return _DTYPE_OF_NAME[name]


class _State(threading.local):
    trace = None


_state = _State()


def current_trace():
    """The trace active on this thread, or None."""
    return _state.trace


def user_location():
    """(file, line) of the innermost caller outside the ms package."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(
            _PACKAGE_DIR):
        frame = frame.f_back
    if frame is None:
        return "", 0
    return frame.f_code.co_filename, frame.f_lineno


def with_source(message, file, line):
    """Appends the offending source line to a compiler diagnostic."""
    text = linecache.getline(file, line).strip() if file else ""
    if text:
        message += f"\n  {file}:{line}: {text}"
    return message


def compile_error(message, file=None, line=None):
    """An ms.CompileError for `message` raised at the user's line."""
    if file is None:
        file, line = user_location()
    prefix = f"{file}:{line}: error: " if file else "error: "
    return _ms.CompileError(with_source(prefix + message, file, line))


# --- attribute text -------------------------------------------------------

def _float_text(value, bits):
    value = float(value)
    if math.isfinite(value):
        return "%.17e" % value if bits == 64 else "%.9e" % value
    # MLIR spells non-finite floats as their bit pattern.
    if bits == 64:
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    return "0x%08X" % struct.unpack("<I", struct.pack("<f", value))[0]


def _short_repr(value, limit=60):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def integer(value, what="a value"):
    """`value` as a Python int within int64: a non-integer (a float, a
    string, None) is a TypeError, an integer beyond int64 a CompileError."""
    if not isinstance(value, (numbers.Integral, np.integer)):
        raise TypeError(f"{what} must be an integer, but found "
                        f"{type(value).__name__} {value!r}")
    value = int(value)
    if not -2**63 <= value < 2**63:
        raise compile_error(f"{what} {value} does not fit in int64")
    return value


def i64(value):
    return f"{integer(value)} : i64"


def f32(value):
    return f"{_float_text(value, 32)} : f32"


def f64(value):
    return f"{_float_text(value, 64)} : f64"


def boolean(value):
    return "true" if value else "false"


def string(value):
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def i64s(values):
    values = [integer(v) for v in values]
    return "array<i64" + (": " + ", ".join(map(str, values)) if values
                          else "") + ">"


def f64s(values):
    values = [_float_text(v, 64) for v in values]
    return "array<f64" + (": " + ", ".join(values) if values else "") + ">"


def _attribute_text(attributes):
    if not attributes:
        return ""
    return "{" + ", ".join(f"{k} = {v}" for k, v in attributes.items()
                           if v is not None) + "}"


# --- traces and tensors ---------------------------------------------------

class Trace:
    """One function being traced into an msgraph function."""

    def __init__(self, name):
        self.builder = _ms.GraphBuilder(name)
        self._scalars = {}
        # Value ids of constants.
        self.constants = set()

    def __enter__(self):
        self._outer = _state.trace
        _state.trace = self
        return self

    def __exit__(self, *exc):
        _state.trace = self._outer
        return False

    def input(self, name, dtype, shape):
        value = self.builder.add_input(name, dtype_name(dtype), list(shape))
        return Tensor(self, value, tuple(shape), np.dtype(dtype))

    def constant(self, value, dtype=None):
        """A constant tensor holding `value` (array-like)."""
        try:
            array = np.asarray(value, dtype=dtype)
        except (OverflowError, ValueError, TypeError) as error:
            raise compile_error(
                f"cannot make a constant of {_short_repr(value)}"
                + (f" as {np.dtype(dtype).name}" if dtype is not None else "")
                + f": {error}") from None
        if array.dtype == object:
            raise compile_error(
                f"cannot make a constant of {_short_repr(value)}: expected "
                "numbers or arrays of one shape (found Python objects)")
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        name = dtype_name(array.dtype)
        key = None
        if array.ndim == 0:
            key = (name, array.tobytes())
            if key in self._scalars:
                return self._scalars[key]
        file, line = user_location()
        data = array.view(np.uint8) if array.dtype == np.bool_ else array
        value_id = self.builder.add_constant(
            data.reshape(-1) if data.ndim else data.reshape(1), name,
            list(array.shape), file, line)
        tensor = Tensor(self, value_id, array.shape, array.dtype)
        self.constants.add(value_id)
        if key is not None:
            self._scalars[key] = tensor
        return tensor

    def op(self, name, operands, attributes=None, result=None):
        """Adds op `name`; `result` is (dtype, shape) for ops that do not
        infer their result type."""
        file, line = user_location()
        ids = []
        for operand in operands:
            if operand.trace is not self:
                raise compile_error(
                    f"'{name}' uses a tensor of another trace (a tensor "
                    "leaked out of a jitted function?)", file, line)
            ids.append(operand.value)
        result_type = None
        if result is not None:
            result_type = (dtype_name(result[0]), [int(d) for d in result[1]])
        try:
            value, dtype, shape = self.builder.add_op(
                name, ids, _attribute_text(attributes), result_type, file,
                line)
        except _ms.CompileError as error:
            raise _ms.CompileError(with_source(str(error), file, line)) \
                from None
        return Tensor(self, value, shape, numpy_dtype(dtype))


class Tensor:
    """A value of a function being traced: shape and dtype are known, the
    contents are not. Supports NumPy-style operators, indexing and methods;
    see `ms.ops` for the full op set."""

    __slots__ = ("trace", "value", "shape", "dtype")
    # NumPy defers binary operators with a Tensor operand to the Tensor.
    __array_ufunc__ = None

    def __init__(self, trace, value, shape, dtype):
        self.trace = trace
        self.value = value
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self):
        return f"Tensor(shape={self.shape}, dtype={self.dtype})"

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __bool__(self):
        raise TypeError(
            "a traced tensor has no value while tracing, so it cannot "
            "decide Python control flow; use ms.ops.where instead of if")

    def __array__(self, dtype=None):
        raise TypeError(
            "a traced tensor cannot become a NumPy array while tracing; "
            "use ms.ops functions on it instead")

    __hash__ = object.__hash__

    # Operators are bound in ms.ops (they need the op set).
