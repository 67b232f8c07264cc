"""Numerics of every ms.ops function against a NumPy reference.

Each case jits a small function using one op, runs it on fixed-seed inputs
and compares with NumPy computed in float64 (then cast). Tolerances:
rtol 1e-5 / atol 1e-6 for float32 unless a case states otherwise
(transcendental ops and long reductions get 1e-4 / 1e-5).
"""

import math

import numpy as np
import pytest

import ms
from ms import ops

from conftest import assert_close

R = np.random.default_rng(1234)


def f32(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, shape).astype(np.float32)


def i64(*shape, low=-5, high=6):
    return R.integers(low, high, shape).astype(np.int64)


_erf = np.vectorize(math.erf)


def ref_gelu(x, approximate="none"):
    x = x.astype(np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                      (x + 0.044715 * x ** 3)))
    return 0.5 * x * (1 + _erf(x / math.sqrt(2)))


def ref_softmax(x, axis=-1):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh = (x.shape[2] - dilation * (kh - 1) - 1) // stride + 1
    ow = (x.shape[3] - dilation * (kw - 1) - 1) // stride + 1
    y = np.zeros((n, o, oh, ow))
    og = o // groups
    for g in range(groups):
        xs = x[:, g * cg:(g + 1) * cg]
        for i in range(oh):
            for j in range(ow):
                patch = xs[:, :, i * stride:i * stride + dilation * (kh - 1) + 1:dilation,
                           j * stride:j * stride + dilation * (kw - 1) + 1:dilation]
                y[:, g * og:(g + 1) * og, i, j] = np.einsum(
                    "nchw,ochw->no", patch, w[g * og:(g + 1) * og])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def ref_conv_transpose2d(x, w, b=None, stride=1, padding=0):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    _, o, kh, kw = w.shape
    full = np.zeros((n, o, (h - 1) * stride + kh, (wd - 1) * stride + kw))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw] += \
                np.einsum("nc,cohw->nohw", x[:, :, i, j], w)
    y = full[:, :, padding:full.shape[2] - padding,
             padding:full.shape[3] - padding]
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def ref_pool(x, k, stride, padding, mode, count_include_pad=True):
    x = x.astype(np.float64)
    fill = -np.inf if mode == "max" else 0.0
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)),
                constant_values=fill)
    ones = np.pad(np.ones_like(x), ((0, 0), (0, 0), (padding, padding),
                                    (padding, padding)))
    oh = (xp.shape[2] - k) // stride + 1
    ow = (xp.shape[3] - k) // stride + 1
    y = np.zeros(x.shape[:2] + (oh, ow))
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k]
            if mode == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                count = k * k if count_include_pad else ones[
                    :, :, i * stride:i * stride + k,
                    j * stride:j * stride + k].sum(axis=(2, 3))
                y[:, :, i, j] = win.sum(axis=(2, 3)) / count
    return y


def ref_attention(q, k, v, mask=None, is_causal=False, scale=None):
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if mask is not None:
        s = s + (np.where(mask, 0, -np.inf) if mask.dtype == np.bool_
                 else mask)
    if is_causal:
        s = np.where(np.arange(k.shape[2]) > np.arange(q.shape[2])[:, None],
                     -np.inf, s)
    return ref_softmax(s) @ v


def ref_layer_norm(x, w, b, axis=-1, eps=1e-5):
    x = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mu = x.mean(axis=axes, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mu) / np.sqrt(var + eps) * w
    return y if b is None else y + b


x34 = f32(3, 4)
y34 = f32(3, 4)
pos34 = f32(3, 4, low=0.1, high=3.0)
row4 = f32(4)
b34 = R.uniform(size=(3, 4)) > 0.5
c34 = R.uniform(size=(3, 4)) > 0.5
img = f32(2, 4, 7, 7)
wconv = f32(6, 4, 3, 3)
wgroup = f32(6, 2, 3, 3)
bconv = f32(6)
wtrans = f32(4, 3, 3, 3)

unit34 = f32(3, 4, low=-0.95, high=0.95)
above1_34 = f32(3, 4, low=1.0, high=20.0)
quarters34 = (R.integers(-20, 20, (3, 4)) / 4).astype(np.float32)
u8a = R.integers(0, 256, (3, 4)).astype(np.uint8)
u8s = R.integers(0, 10, (3, 4)).astype(np.uint8)
i32a = R.integers(-2**31, 2**31, (3, 4)).astype(np.int32)
i32b = R.integers(-2**31, 2**31, (3, 4)).astype(np.int32)
i16a = R.integers(-2**15, 2**15, (3, 4)).astype(np.int16)
i16s = R.integers(0, 18, (3, 4)).astype(np.int16)

# (name, function using ms.ops, reference, inputs, rtol, atol)
CASES = [
    ("sin", ops.sin, np.sin, (x34,), 2e-6, 1e-6),
    ("cos", ops.cos, np.cos, (x34,), 2e-6, 1e-6),
    ("tan", ops.tan, np.tan, (unit34,), 2e-6, 1e-6),
    ("arcsin", ops.arcsin, np.arcsin, (unit34,), 2e-6, 1e-6),
    ("arccos", ops.arccos, np.arccos, (unit34,), 2e-6, 1e-6),
    ("arctan", ops.arctan, np.arctan, (x34,), 2e-6, 1e-6),
    ("sinh", ops.sinh, np.sinh, (x34,), 2e-6, 1e-6),
    ("cosh", ops.cosh, np.cosh, (x34,), 2e-6, 1e-6),
    ("arcsinh", ops.arcsinh, np.arcsinh, (x34,), 2e-6, 1e-6),
    ("arccosh", ops.arccosh, np.arccosh, (above1_34,), 2e-6, 1e-6),
    ("arctanh", ops.arctanh, np.arctanh, (unit34,), 2e-6, 1e-6),
    ("floor", ops.floor, np.floor, (quarters34,), 0, 0),
    ("ceil", ops.ceil, np.ceil, (quarters34,), 0, 0),
    ("round", ops.round, np.round, (quarters34,), 0, 0),
    ("bitwise_and", ops.bitwise_and, np.bitwise_and, (i32a, i32b), 0, 0),
    ("bitwise_or", ops.bitwise_or, np.bitwise_or, (i32a, i32b), 0, 0),
    ("bitwise_xor", ops.bitwise_xor, np.bitwise_xor, (u8a, u8s), 0, 0),
    ("invert", ops.invert, np.invert, (i16a,), 0, 0),
    ("left_shift", ops.left_shift, np.left_shift, (u8a, u8s), 0, 0),
    ("right_shift", ops.right_shift, np.right_shift, (i16a, i16s), 0, 0),
    ("logical_xor", ops.logical_xor, np.logical_xor, (b34, c34), 0, 0),
    ("cumsum", lambda x: ops.cumsum(x, axis=1),
     lambda x: np.cumsum(x, axis=1), (x34,), 1e-5, 1e-6),
    ("cumsum_flat_int", ops.cumsum, np.cumsum, (i16a,), 0, 0),
    ("cumprod", lambda x: ops.cumprod(x, axis=0),
     lambda x: np.cumprod(x, axis=0), (pos34,), 1e-5, 1e-6),
    ("add", ops.add, np.add, (x34, row4), 1e-5, 1e-6),
    ("subtract", ops.subtract, np.subtract, (x34, y34), 1e-5, 1e-6),
    ("multiply", ops.multiply, np.multiply, (x34, y34), 1e-5, 1e-6),
    ("divide", ops.divide, np.divide, (x34, pos34), 1e-5, 1e-6),
    ("divide_int", ops.divide, lambda a, b: np.trunc(a / b).astype(np.int64),
     (i64(3, 4), np.array([1, 2, -3, 4], np.int64)), 0, 0),
    ("power", ops.power, np.power, (pos34, x34), 1e-4, 1e-5),
    ("maximum", ops.maximum, np.maximum, (x34, y34), 0, 0),
    ("minimum", ops.minimum, np.minimum, (x34, y34), 0, 0),
    ("prelu", ops.prelu, lambda x, s: np.where(x < 0, s * x, x), (x34, row4),
     1e-6, 0),
    ("negative", ops.negative, np.negative, (x34,), 0, 0),
    ("abs", ops.abs, np.abs, (x34,), 0, 0),
    ("sqrt", ops.sqrt, np.sqrt, (pos34,), 1e-6, 0),
    ("reciprocal", ops.reciprocal, np.reciprocal, (pos34,), 1e-6, 0),
    ("exp", ops.exp, np.exp, (x34,), 1e-5, 1e-6),
    ("log", ops.log, np.log, (pos34,), 1e-5, 1e-6),
    ("erf", ops.erf, _erf, (x34,), 1e-5, 1e-6),
    ("tanh", ops.tanh, np.tanh, (x34,), 1e-5, 1e-6),
    ("sigmoid", ops.sigmoid, lambda x: 1 / (1 + np.exp(-x.astype(np.float64))),
     (x34,), 1e-5, 1e-6),
    ("relu", ops.relu, lambda x: np.maximum(x, 0), (x34,), 0, 0),
    ("gelu", ops.gelu, ref_gelu, (x34,), 1e-5, 1e-6),
    ("gelu_tanh", lambda x: ops.gelu(x, approximate="tanh"),
     lambda x: ref_gelu(x, "tanh"), (x34,), 1e-5, 1e-6),
    ("leaky_relu", lambda x: ops.leaky_relu(x, 0.1),
     lambda x: np.where(x >= 0, x, 0.1 * x), (x34,), 1e-6, 0),
    ("hard_sigmoid", ops.hard_sigmoid,
     lambda x: np.clip(0.2 * x + 0.5, 0, 1), (x34,), 1e-6, 1e-7),
    ("hard_swish", ops.hard_swish,
     lambda x: x * np.clip(x + 3, 0, 6) / 6, (x34,), 1e-5, 1e-6),
    ("clip", lambda x: ops.clip(x, -0.5, 1.0),
     lambda x: np.clip(x, -0.5, 1.0), (x34,), 0, 0),
    ("clip_min", lambda x: ops.clip(x, min=0.25),
     lambda x: np.maximum(x, 0.25), (x34,), 0, 0),
    ("cast", lambda x: ops.cast(x, np.int32), lambda x: x.astype(np.int32),
     (x34 * 3,), 0, 0),
    ("identity", ops.identity, lambda x: x, (x34,), 0, 0),
    ("constant", lambda x: x + ops.constant(np.arange(4, dtype=np.float32)),
     lambda x: x + np.arange(4, dtype=np.float32), (x34,), 0, 0),
    ("equal", ops.equal, np.equal, (i64(3, 4), i64(3, 4)), 0, 0),
    ("not_equal", ops.not_equal, np.not_equal, (i64(3, 4), i64(3, 4)), 0, 0),
    ("less", ops.less, np.less, (x34, y34), 0, 0),
    ("less_equal", ops.less_equal, np.less_equal, (x34, y34), 0, 0),
    ("greater", ops.greater, np.greater, (x34, y34), 0, 0),
    ("greater_equal", ops.greater_equal, np.greater_equal, (x34, y34), 0, 0),
    ("logical_and", ops.logical_and, np.logical_and, (b34, c34), 0, 0),
    ("logical_or", ops.logical_or, np.logical_or, (b34, c34), 0, 0),
    ("logical_not", ops.logical_not, np.logical_not, (b34,), 0, 0),
    ("where", ops.where, np.where, (b34, x34, y34), 0, 0),
    ("sum", lambda x: ops.sum(x, axis=1), lambda x: x.sum(axis=1), (x34,),
     1e-5, 1e-6),
    ("sum_all", ops.sum, lambda x: x.astype(np.float64).sum(), (x34,), 1e-5,
     1e-6),
    ("mean", lambda x: ops.mean(x, axis=0, keepdims=True),
     lambda x: x.mean(axis=0, keepdims=True), (x34,), 1e-5, 1e-6),
    ("max", lambda x: ops.max(x, axis=-1), lambda x: x.max(axis=-1), (x34,),
     0, 0),
    ("min", lambda x: ops.min(x, axis=(0, 1)), lambda x: x.min(), (x34,), 0,
     0),
    ("prod", lambda x: ops.prod(x, axis=1), lambda x: x.prod(axis=1),
     (x34,), 1e-5, 1e-6),
    ("argmax", lambda x: ops.argmax(x, axis=1), lambda x: x.argmax(axis=1),
     (x34,), 0, 0),
    ("argmin", ops.argmin, lambda x: np.int64(x.argmin()), (x34,), 0, 0),
    ("softmax", ops.softmax, ref_softmax, (x34,), 1e-5, 1e-6),
    ("log_softmax", lambda x: ops.log_softmax(x, axis=0),
     lambda x: np.log(ref_softmax(x, 0)), (x34,), 1e-5, 1e-6),
    ("matmul", ops.matmul, np.matmul, (f32(2, 3, 5), f32(5, 4)), 1e-5, 1e-5),
    ("matmul_vector", ops.matmul, np.matmul, (f32(5), f32(5, 4)), 1e-5, 1e-5),
    ("linear", ops.linear, lambda x, w, b: x @ w.T + b,
     (f32(3, 5), f32(4, 5), f32(4)), 1e-5, 1e-5),
    ("conv2d", lambda x, w, b: ops.conv2d(x, w, b, stride=2, padding=1),
     lambda x, w, b: ref_conv2d(x, w, b, stride=2, padding=1),
     (img, wconv, bconv), 1e-4, 1e-5),
    ("conv2d_groups", lambda x, w: ops.conv2d(x, w, groups=2, dilation=2),
     lambda x, w: ref_conv2d(x, w, groups=2, dilation=2), (img, wgroup),
     1e-4, 1e-5),
    ("conv_transpose2d",
     lambda x, w: ops.conv_transpose2d(x, w, stride=2, padding=1),
     lambda x, w: ref_conv_transpose2d(x, w, stride=2, padding=1),
     (img, wtrans), 1e-4, 1e-5),
    ("max_pool2d", lambda x: ops.max_pool2d(x, 3, stride=2, padding=1),
     lambda x: ref_pool(x, 3, 2, 1, "max"), (img,), 0, 0),
    ("avg_pool2d", lambda x: ops.avg_pool2d(x, 2),
     lambda x: ref_pool(x, 2, 2, 0, "avg"), (img,), 1e-6, 1e-7),
    ("avg_pool2d_exclude_pad",
     lambda x: ops.avg_pool2d(x, 3, stride=1, padding=1,
                              count_include_pad=False),
     lambda x: ref_pool(x, 3, 1, 1, "avg", False), (img,), 1e-6, 1e-7),
    ("batch_norm", lambda x, m, v, w, b: ops.batch_norm(x, m, v, w, b),
     lambda x, m, v, w, b: (x - m.reshape(1, -1, 1, 1)) / np.sqrt(
         v.reshape(1, -1, 1, 1) + 1e-5) * w.reshape(1, -1, 1, 1)
     + b.reshape(1, -1, 1, 1),
     (img, f32(4), f32(4, low=0.5, high=2), f32(4), f32(4)), 1e-5, 1e-5),
    ("layer_norm", ops.layer_norm, ref_layer_norm, (x34, row4, f32(4)), 1e-5,
     1e-5),
    ("layer_norm_no_bias", lambda x, w: ops.layer_norm(x, w, axis=1),
     lambda x, w: ref_layer_norm(x, w, None, axis=1), (img, f32(4, 7, 7)),
     1e-4, 1e-5),
    ("instance_norm", ops.instance_norm,
     lambda x, w, b: ref_layer_norm(
         x.reshape(8, 49), 1, 0).reshape(2, 4, 7, 7) * w.reshape(1, -1, 1, 1)
     + b.reshape(1, -1, 1, 1), (img, f32(4), f32(4)), 1e-4, 1e-5),
    ("attention", lambda q, k, v: ops.attention(q, k, v, is_causal=True),
     lambda q, k, v: ref_attention(q, k, v, is_causal=True),
     (f32(2, 4, 10, 8), f32(2, 2, 12, 8), f32(2, 2, 12, 6)), 1e-5, 1e-6),
    ("attention_bool_mask",
     lambda q, k, v, m: ops.attention(q, k, v, m, scale=0.5),
     lambda q, k, v, m: ref_attention(q, k, v, m, scale=0.5),
     (f32(1, 2, 5, 8), f32(1, 2, 7, 8), f32(1, 2, 7, 8),
      np.arange(35).reshape(5, 7) % 3 != 1), 1e-5, 1e-6),
    ("scaled_dot_product_attention",
     lambda q, k, v, m: ops.scaled_dot_product_attention(q, k, v,
                                                         attn_mask=m),
     lambda q, k, v, m: ref_attention(q, k, v, m),
     (f32(1, 3, 6, 4), f32(1, 3, 6, 4), f32(1, 3, 6, 4), f32(6, 6)), 1e-5,
     1e-6),
    ("reshape", lambda x: ops.reshape(x, (2, -1)),
     lambda x: x.reshape(2, -1), (x34,), 0, 0),
    ("transpose", lambda x: ops.transpose(x, (1, 0, 2)),
     lambda x: x.transpose(1, 0, 2), (f32(2, 3, 4),), 0, 0),
    ("squeeze", ops.squeeze, np.squeeze, (f32(3, 1, 4, 1),), 0, 0),
    ("expand_dims", lambda x: ops.expand_dims(x, -1),
     lambda x: np.expand_dims(x, -1), (x34,), 0, 0),
    ("concat", lambda a, b: ops.concat([a, b], axis=1),
     lambda a, b: np.concatenate([a, b], axis=1), (x34, f32(3, 2)), 0, 0),
    ("stack", lambda a, b: ops.stack([a, b], axis=1),
     lambda a, b: np.stack([a, b], axis=1), (x34, y34), 0, 0),
    ("broadcast_to", lambda x: ops.broadcast_to(x, (2, 3, 4)),
     lambda x: np.broadcast_to(x, (2, 3, 4)), (row4,), 0, 0),
    ("tile", lambda x: ops.tile(x, (2, 3)), lambda x: np.tile(x, (2, 3)),
     (x34,), 0, 0),
    ("pad", lambda x: ops.pad(x, [(1, 0), (2, 1)], constant_values=1.5),
     lambda x: np.pad(x, [(1, 0), (2, 1)], constant_values=1.5), (x34,), 0,
     0),
    ("pad_reflect", lambda x: ops.pad(x, 1, mode="reflect"),
     lambda x: np.pad(x, 1, mode="reflect"), (x34,), 0, 0),
    ("pad_edge", lambda x: ops.pad(x, [(0, 2), (1, 1)], mode="edge"),
     lambda x: np.pad(x, [(0, 2), (1, 1)], mode="edge"), (x34,), 0, 0),
    ("take", lambda x: ops.take(x, [2, 0, 2], axis=1),
     lambda x: np.take(x, [2, 0, 2], axis=1), (x34,), 0, 0),
    ("take_traced", lambda x, i: ops.take(x, i),
     lambda x, i: np.take(x, i, axis=0), (x34, np.array([[1, 0], [2, 2]])),
     0, 0),
]


def _expected(reference, args):
    promoted = [a.astype(np.float64) if a.dtype == np.float32 else a
                for a in args]
    return np.asarray(reference(*promoted))


@pytest.mark.parametrize("name,fn,reference,args,rtol,atol", CASES,
                         ids=[c[0] for c in CASES])
def test_op(name, fn, reference, args, rtol, atol):
    actual = ms.jit(fn)(*args)
    expected = _expected(reference, args)
    if args[-1].dtype == np.float32 and expected.dtype == np.float64:
        expected = expected.astype(np.float32)
    elif any(a.dtype == np.float32 for a in args) and \
            expected.dtype == np.float64:
        expected = expected.astype(np.float32)
    assert_close(actual, expected, rtol=rtol, atol=atol)


def test_every_op_has_a_case():
    covered = {c[0] for c in CASES} | {c[0].rsplit("_", 1)[0] for c in CASES}
    # Ops exercised through others or operators.
    missing = set(ops.__all__) - covered
    assert not missing, f"ops without a numerics case: {sorted(missing)}"


# --- operators and methods on traced tensors ------------------------------

def test_operators():
    a, b = f32(3, 4), f32(3, 4, low=0.5, high=2)

    @ms.jit
    def f(a, b):
        return (a + b, a - b, a * b, a / b, b ** a, -a, abs(a), a @ b.T,
                a < b, a <= b, a > b, a >= b, a == b, a != b,
                2.0 * a, 1.0 - a, 3.0 / b, a + 1, (a > 0) & (b > 1),
                (a > 0) | (b > 1), ~(a > 0))

    results = f(a, b)
    expected = (a + b, a - b, a * b, a / b, b ** a, -a, abs(a), a @ b.T,
                a < b, a <= b, a > b, a >= b, a == b, a != b, 2.0 * a,
                1.0 - a, 3.0 / b, a + 1, (a > 0) & (b > 1),
                (a > 0) | (b > 1), ~(a > 0))
    assert len(results) == len(expected)
    for actual, want in zip(results, expected):
        assert_close(actual, want.astype(actual.dtype), rtol=1e-5, atol=1e-6)


def test_bitwise_operators():
    @ms.jit
    def f(a, b, s):
        return a & b, a | b, a ^ b, ~a, a << s, a >> s

    a, b = i64(3, 4, low=-100, high=100), i64(3, 4, low=-100, high=100)
    s = i64(3, 4, low=0, high=70)
    results = f(a, b, s)
    # NumPy's int64 shifts are undefined at 64 and beyond; the op gives 0
    # (or -1 shifting a negative value right).
    wide = s >= 64
    expected = (a & b, a | b, a ^ b, ~a,
                np.where(wide, 0, np.left_shift(a, np.minimum(s, 63))),
                np.where(wide, np.where(a < 0, -1, 0),
                         np.right_shift(a, np.minimum(s, 63))))
    for actual, want in zip(results, expected):
        np.testing.assert_array_equal(actual, want)


def test_logical_ops_need_bool_tensors():
    with pytest.raises(ms.CompileError, match="logical_and: expected bool "
                       "tensors, but found int64"):
        ms.jit(ops.logical_and)(i64(3), i64(3))


def test_numpy_array_on_the_left():
    a = f32(3, 4)
    w = f32(4)
    assert_close(ms.jit(lambda x: w * x + w)(a), w * a + w)


def test_indexing():
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)

    @ms.jit
    def f(x):
        return (x[1], x[:, 1:3], x[..., ::2], x[::-1, :, -1], x[None, 0, 1:],
                x[2, -1, 4], x[:, [3, 0]], x[0:3:2, ::-2, 1:4], x[5:], x.T,
                x.reshape(12, 5)[3:7])

    expected = (x[1], x[:, 1:3], x[..., ::2], x[::-1, :, -1], x[None, 0, 1:],
                x[2, -1, 4], x[:, [3, 0]], x[0:3:2, ::-2, 1:4], x[5:], x.T,
                x.reshape(12, 5)[3:7])
    for actual, want in zip(f(x), expected):
        assert_close(actual, np.asarray(want), rtol=0, atol=0)


def test_methods():
    x = f32(2, 3, 4)

    @ms.jit
    def f(x):
        return (x.sum(axis=1), x.mean(), x.max(axis=(0, 2), keepdims=True),
                x.min(0), x.prod(axis=-1), x.argmax(axis=2), x.argmin(),
                x.transpose(2, 0, 1), x.reshape(6, 4), x.reshape((4, -1)),
                x.astype(np.float64), x[:, :1].squeeze(1), x.T)

    expected = (x.sum(axis=1), x.mean(), x.max(axis=(0, 2), keepdims=True),
                x.min(0), x.prod(axis=-1), x.argmax(axis=2),
                np.int64(x.argmin()), x.transpose(2, 0, 1), x.reshape(6, 4),
                x.reshape(4, -1), x.astype(np.float64), x[:, :1].squeeze(1),
                x.T)
    for actual, want in zip(f(x), expected):
        assert_close(actual, np.asarray(want), rtol=1e-5, atol=1e-6)


def test_eager_ops():
    x = f32(3, 4)
    assert_close(ops.relu(x), np.maximum(x, 0))
    assert_close(ops.softmax(x, axis=0), ref_softmax(x, 0).astype(np.float32))
    assert_close(ops.add(x, x), x + x)
    assert_close(ops.cast(x, np.float64), x.astype(np.float64))


# --- NumPy-compatibility edge cases ---------------------------------------

def test_integer_division_never_traps():
    a = np.array([7, -7, 5, -2147483648, 0], np.int32)
    b = np.array([2, 2, 0, -1, 0], np.int32)
    np.testing.assert_array_equal(ops.divide(a, b),
                                  np.array([3, -3, 0, -2147483648, 0],
                                           np.int32))
    u = np.array([200, 7], np.uint8)
    np.testing.assert_array_equal(ops.divide(u, np.array([0, 2], np.uint8)),
                                  np.array([0, 3], np.uint8))


def test_true_division_of_integer_tensors_is_float64():
    a = np.array([7, -7, 5], np.int64)
    assert_close(ms.jit(lambda x: x / 2)(a), a / 2)
    assert_close(ms.jit(lambda x, y: x / y)(a, a + 10), a / (a + 10))


def test_python_numbers_must_fit_the_tensor_dtype():
    ints = np.array([7, -7], np.int64)
    np.testing.assert_array_equal(ms.jit(lambda x: x * 2 + 1)(ints),
                                  ints * 2 + 1)
    with pytest.raises(ms.CompileError, match="cast the tensor"):
        ms.jit(lambda x: x * 0.5)(ints)
    with pytest.raises(ms.CompileError, match="does not fit dtype uint8"):
        ms.jit(lambda x: x + 300)(np.array([1], np.uint8))


def test_clip_integer_bounds_outside_the_dtype():
    a = np.array([5, -5, 120], np.int8)
    np.testing.assert_array_equal(ops.clip(a, 0, 1000), np.clip(a, 0, 127))
    np.testing.assert_array_equal(ops.clip(a, -1000, 100),
                                  np.clip(a, -128, 100))
    np.testing.assert_array_equal(ops.clip(a, -1.5, 1e30),
                                  np.clip(a, -1, 127))


def test_eager_ops_keep_their_identity():
    a = np.array([[-3.0, 2.0], [3.0, -1.0]], np.float32)
    np.testing.assert_array_equal(ops.maximum(a, np.float32(0)),
                                  np.maximum(a, 0))
    np.testing.assert_array_equal(ops.max(a, 0), a.max(0))
    np.testing.assert_array_equal(ops.minimum(a, np.float32(0)),
                                  np.minimum(a, 0))
    np.testing.assert_array_equal(ops.min(a, 1), a.min(1))


def test_eager_ops_with_lists_and_keyword_arrays():
    a = f32(2, 3)
    w = f32(4, 3)
    assert_close(ops.concat([a, a], axis=1), np.concatenate([a, a], 1))
    assert_close(ops.stack([a, a]), np.stack([a, a]))
    assert_close(ops.reshape(a, [3, 2]), a.reshape(3, 2))
    assert_close(ops.take(a, [1, 0], axis=1), a[:, [1, 0]])
    assert_close(ops.linear(a, weight=w), a @ w.T, rtol=1e-5, atol=1e-6)


def test_numpy_first_operand_inside_a_trace():
    a = f32(2, 3)
    out = ms.jit(lambda x: x + ops.softmax(a) + ops.gelu(a, "tanh"))(a)
    expected = a + ref_softmax(a) + ref_gelu(a, "tanh")
    assert_close(out, expected.astype(np.float32), rtol=1e-5, atol=1e-6)


def test_argmax_keepdims_without_axis():
    x = f32(2, 3, 4)
    out = ops.argmax(x, keepdims=True)
    assert out.shape == (1, 1, 1)
    assert out.item() == x.argmax()


def test_pad_and_tile_argument_forms():
    x = f32(2, 3)
    np.testing.assert_array_equal(ops.pad(x, (1, 2)), np.pad(x, (1, 2)))
    np.testing.assert_array_equal(ops.pad(x, ((0, 1),)), np.pad(x, ((0, 1),)))
    np.testing.assert_array_equal(ops.tile(x, 2), np.tile(x, 2))
    np.testing.assert_array_equal(ops.tile(x, (2, 1, 1)), np.tile(x, (2, 1, 1)))


def test_bad_indices_are_errors():
    x = f32(3, 4)
    with pytest.raises(ms.CompileError, match="boolean mask"):
        ms.jit(lambda t: t[np.array([True, False, True])])(x)
    with pytest.raises(ms.CompileError, match="out of bounds"):
        ops.take(x, [5])
    with pytest.raises(ms.CompileError, match="must be integers"):
        ops.take(x, [0.5])
    np.testing.assert_array_equal(ops.take(x, [-1, 0]), x[[-1, 0]])


def test_iterating_and_unpacking_tensors():
    x = f32(2, 3)

    @ms.jit
    def f(t):
        first, second = t
        return [row * 2 for row in t], first - second

    rows, diff = f(x)
    assert_close(rows[0], x[0] * 2)
    assert_close(rows[1], x[1] * 2)
    assert_close(diff, x[0] - x[1])


def test_reduction_dtypes_follow_numpy():
    small = np.full((100, 100), 100, np.int8)
    for fn, ref in ((ops.sum, np.sum), (ops.mean, np.mean)):
        out = fn(small)
        assert out.dtype == ref(small).dtype and out == ref(small)
    flags = np.array([True, False, True])
    assert ops.sum(flags) == 2 and ops.sum(flags).dtype == np.int64
    assert ops.mean(np.array([1, 2], np.int64)) == 1.5
    halves = np.ones(3000, np.float16)
    out = ops.sum(halves)
    assert out.dtype == np.float16 and out == np.float16(3000)
    u = np.array([200, 100], np.uint8)
    assert ops.sum(u) == 300 and ops.sum(u).dtype == np.uint64
