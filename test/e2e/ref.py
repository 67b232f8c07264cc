"""NumPy reference implementations for the end-to-end tests.

Each function mirrors one msgraph op's semantics (docs/spec/msgraph.md) in
plain NumPy, independent of the compiler.
"""
import math

import numpy as np

_erf = np.vectorize(math.erf, otypes=[np.float64])


def bf16(x):
    """Rounds float32 `x` to bfloat16 (to nearest, ties to even; NaN stays
    NaN) and returns it as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return np.where(np.isnan(x), x, rounded.astype(np.uint32).view(np.float32))


def erf(x):
    return _erf(x.astype(np.float64)).astype(x.dtype)


def gelu(x, approximate="none"):
    x64 = x.astype(np.float64)
    if approximate == "tanh":
        y = 0.5 * x64 * (1 + np.tanh(np.sqrt(2 / np.pi) * (x64 + 0.044715 * x64**3)))
    else:
        y = 0.5 * x64 * (1 + _erf(x64 / np.sqrt(2)))
    return y.astype(x.dtype)


def sigmoid(x):
    return (1 / (1 + np.exp(-x.astype(np.float64)))).astype(x.dtype)


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis=-1):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def hard_sigmoid(x, alpha=0.2, beta=0.5):
    return np.clip(alpha * x + beta, 0, 1).astype(x.dtype)


def hard_swish(x):
    return (x * np.clip(x / 6 + 0.5, 0, 1)).astype(x.dtype)


def leaky_relu(x, alpha=0.01):
    return np.where(x >= 0, x, alpha * x).astype(x.dtype)


def prelu(x, slope):
    return np.where(x < 0, x * slope, x).astype(x.dtype)


def conv(x, w, b=None, strides=None, pads=None, dilations=None, group=1):
    """Grouped N-d cross-correlation, NC[spatial] layout."""
    k = x.ndim - 2
    strides = strides or [1] * k
    dilations = dilations or [1] * k
    pads = pads or [0] * (2 * k)
    xp = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + k]) for i in range(k)])
    n, c = x.shape[:2]
    m = w.shape[0]
    ks = w.shape[2:]
    out_sp = [(xp.shape[2 + i] - ((ks[i] - 1) * dilations[i] + 1)) // strides[i] + 1
              for i in range(k)]
    out = np.zeros((n, m, *out_sp), dtype=np.float64)
    cg, mg = c // group, m // group
    for g in range(group):
        xs = xp[:, g * cg:(g + 1) * cg].astype(np.float64)
        ws = w[g * mg:(g + 1) * mg].astype(np.float64)
        for kidx in np.ndindex(*ks):
            sl = tuple(slice(kidx[i] * dilations[i],
                             kidx[i] * dilations[i] + (out_sp[i] - 1) * strides[i] + 1,
                             strides[i]) for i in range(k))
            patch = xs[(slice(None), slice(None)) + sl]  # n, cg, out...
            wk = ws[(slice(None), slice(None)) + kidx]   # mg, cg
            out[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", patch, wk)
    if b is not None:
        out += b.reshape((1, m) + (1,) * k)
    return out.astype(x.dtype)


def winograd_bf16(x, w, b=None, pads=None):
    """A 3x3 stride-1 convolution (even output rows and columns) as ms's
    Winograd F(2x2, 3x3) computes it with --precision bf16: the filter
    transform G g G^T in float64, rounded to float32 then to bfloat16; the
    input transform B^T d B of each 4x4 patch in float32, in the kernel's
    order of operations, rounded to bfloat16; their products summed over the
    input channels (float64 here, float32 there); the output transform A^T
    M A."""
    pads = pads or [0, 0, 0, 0]
    xp = np.pad(np.asarray(x, np.float32),
                [(0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])])
    oh, ow = xp.shape[2] - 2, xp.shape[3] - 2
    g = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])
    u = np.einsum("ai,mcij,ej->aemc", g, np.asarray(w, np.float64), g)
    u = bf16(u.astype(np.float32)).astype(np.float64)
    d = [[xp[:, :, i:i + oh:2, j:j + ow:2] for j in range(4)] for i in range(4)]

    def bt(x0, x1, x2, x3):
        return [x0 - x2, x1 + x2, x2 - x1, x1 - x3]

    cols = [bt(d[0][j], d[1][j], d[2][j], d[3][j]) for j in range(4)]
    v = np.empty((4, 4) + d[0][0].shape, np.float32)
    for a in range(4):
        row = bt(cols[0][a], cols[1][a], cols[2][a], cols[3][a])
        for e in range(4):
            v[a, e] = row[e]
    v = bf16(v).astype(np.float64)
    prod = np.einsum("aemc,aenchw->aenmhw", u, v)

    def at(x0, x1, x2, x3):
        return [x0 + x1 + x2, x1 - x2 - x3]

    cols = [at(prod[0][e], prod[1][e], prod[2][e], prod[3][e]) for e in range(4)]
    out = np.empty(prod.shape[2:4] + (oh, ow))
    for i in range(2):
        row = at(cols[0][i], cols[1][i], cols[2][i], cols[3][i])
        for j in range(2):
            out[:, :, i::2, j::2] = row[j]
    if b is not None:
        out += np.asarray(b, np.float64).reshape(1, -1, 1, 1)
    return out


def conv_transpose(x, w, b=None, strides=None, pads=None, dilations=None,
                   output_padding=None, group=1):
    k = x.ndim - 2
    strides = strides or [1] * k
    dilations = dilations or [1] * k
    pads = pads or [0] * (2 * k)
    output_padding = output_padding or [0] * k
    n, c = x.shape[:2]
    cg = c // group
    mg = w.shape[1]
    m = mg * group
    ks = w.shape[2:]
    full = [(x.shape[2 + i] - 1) * strides[i] + (ks[i] - 1) * dilations[i] + 1
            + output_padding[i] for i in range(k)]
    out = np.zeros((n, m, *full), dtype=np.float64)
    for g in range(group):
        for idx in np.ndindex(*x.shape[2:]):
            xv = x[(slice(None), slice(g * cg, (g + 1) * cg)) + idx].astype(np.float64)
            for kidx in np.ndindex(*ks):
                pos = tuple(idx[i] * strides[i] + kidx[i] * dilations[i] for i in range(k))
                wk = w[(slice(g * cg, (g + 1) * cg), slice(None)) + kidx].astype(np.float64)
                out[(slice(None), slice(g * mg, (g + 1) * mg)) + pos] += xv @ wk
    sl = tuple(slice(pads[i], full[i] - pads[i + k]) for i in range(k))
    out = out[(slice(None), slice(None)) + sl]
    if b is not None:
        out += b.reshape((1, m) + (1,) * k)
    return out.astype(x.dtype)


def pool(x, kind, kernel_shape, strides=None, pads=None, dilations=None,
         ceil_mode=False, count_include_pad=False):
    k = x.ndim - 2
    strides = strides or [1] * k
    dilations = dilations or [1] * k
    pads = pads or [0] * (2 * k)
    out_sp = []
    for i in range(k):
        span = x.shape[2 + i] + pads[i] + pads[i + k] - ((kernel_shape[i] - 1) * dilations[i] + 1)
        o = (-(-span // strides[i]) if ceil_mode else span // strides[i]) + 1
        if ceil_mode and (o - 1) * strides[i] >= x.shape[2 + i] + pads[i]:
            o -= 1
        out_sp.append(o)
    out = np.zeros(x.shape[:2] + tuple(out_sp), dtype=np.float64)
    for o in np.ndindex(*out_sp):
        vals, counts = [], 0
        acc = None
        count = 1
        for i in range(k):
            lo = -pads[i] if count_include_pad else 0
            hi = x.shape[2 + i] + pads[i + k] if count_include_pad else x.shape[2 + i]
            pos = [o[i] * strides[i] + j * dilations[i] - pads[i] for j in range(kernel_shape[i])]
            count *= max(sum(1 for p in pos if lo <= p < hi), 1)
        for kidx in np.ndindex(*kernel_shape):
            pos = tuple(o[i] * strides[i] + kidx[i] * dilations[i] - pads[i] for i in range(k))
            if all(0 <= pos[i] < x.shape[2 + i] for i in range(k)):
                v = x[(slice(None), slice(None)) + pos].astype(np.float64)
                if acc is None:
                    acc = v.copy()
                elif kind == "max":
                    acc = np.maximum(acc, v)
                else:
                    acc = acc + v
        if acc is None:
            acc = np.zeros(x.shape[:2]) if kind == "avg" else np.full(x.shape[:2], -np.inf)
        out[(slice(None), slice(None)) + o] = acc if kind == "max" else acc / count
    return out.astype(x.dtype)


def batch_norm(x, scale, bias, mean, var, epsilon=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + epsilon)
            * scale.reshape(shape) + bias.reshape(shape)).astype(x.dtype)


def layer_norm(x, scale, bias=None, axis=-1, epsilon=1e-5):
    axis = axis % x.ndim
    axes = tuple(range(axis, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + epsilon) * scale
    if bias is not None:
        y = y + bias
    return y.astype(x.dtype)


def instance_norm(x, scale, bias, epsilon=1e-5):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return ((x - mean) / np.sqrt(var + epsilon) * scale.reshape(shape)
            + bias.reshape(shape)).astype(x.dtype)


def lrn(x, size, alpha=1e-4, beta=0.75, bias=1.0):
    c = x.shape[1]
    sq = np.zeros_like(x, dtype=np.float64)
    lo, hi = (size - 1) // 2, size - 1 - (size - 1) // 2
    for ci in range(c):
        a, b = max(0, ci - lo), min(c - 1, ci + hi)
        sq[:, ci] = (x[:, a:b + 1].astype(np.float64) ** 2).sum(axis=1)
    return (x / (bias + alpha / size * sq) ** beta).astype(x.dtype)


def resize_nearest(x, scales, mode="half_pixel", nearest_mode="round_prefer_floor"):
    out_shape = [int(np.floor(d * s)) for d, s in zip(x.shape, scales)]
    idx = []
    for d, (n_in, n_out, s) in enumerate(zip(x.shape, out_shape, scales)):
        o = np.arange(n_out)
        if mode == "asymmetric":
            c = o / s
        elif mode == "align_corners":
            c = o * (n_in - 1) / max(n_out - 1, 1)
        else:
            c = (o + 0.5) / s - 0.5
        if nearest_mode == "floor":
            i = np.floor(c)
        elif nearest_mode == "ceil":
            i = np.ceil(c)
        elif nearest_mode == "round_prefer_ceil":
            i = np.floor(c + 0.5)
        else:
            i = np.ceil(c - 0.5)
        idx.append(np.clip(i, 0, n_in - 1).astype(np.int64))
    return x[np.ix_(*idx)]


def resize_linear(x, scales, mode="half_pixel"):
    out = x.astype(np.float64)
    for d, s in enumerate(scales):
        n_in = x.shape[d]
        n_out = int(np.floor(n_in * s))
        if n_out == n_in and s == 1.0:
            continue
        o = np.arange(n_out)
        if mode == "align_corners":
            c = o * (n_in - 1) / max(n_out - 1, 1)
        elif mode == "asymmetric":
            c = o / s
        else:
            c = (o + 0.5) / s - 0.5
        c = np.clip(c, 0, n_in - 1)
        i0 = np.floor(c).astype(np.int64)
        i1 = np.minimum(i0 + 1, n_in - 1)
        w1 = c - i0
        a = np.take(out, i0, axis=d)
        b = np.take(out, i1, axis=d)
        shape = [1] * x.ndim
        shape[d] = n_out
        out = a * (1 - w1).reshape(shape) + b * w1.reshape(shape)
    return out.astype(x.dtype)


def _cubic_weight(t, a):
    t = abs(t)
    if t <= 1:
        return ((a + 2) * t - (a + 3)) * t * t + 1
    if t < 2:
        return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a
    return 0.0


def resize_cubic(x, scales, a=-0.75, exclude_outside=False):
    """Bicubic resize with half_pixel coordinates, edge-clamped taps (the
    ONNX reference behaviour)."""
    out = x.astype(np.float64)
    for d, s in enumerate(scales):
        n_in = x.shape[d]
        n_out = int(np.floor(n_in * s))
        if n_out == n_in and s == 1.0:
            continue
        rows = []
        for o in range(n_out):
            c = (o + 0.5) / s - 0.5
            i0 = int(np.floor(c))
            frac = c - i0
            taps, ws = [], []
            for j in range(4):
                src = i0 - 1 + j
                w = _cubic_weight(frac - (j - 1), a)
                if exclude_outside and (src < 0 or src >= n_in):
                    w = 0.0
                taps.append(min(max(src, 0), n_in - 1))
                ws.append(w)
            if exclude_outside:
                total = sum(ws)
                ws = [w / total for w in ws]
            rows.append(sum(w * np.take(out, t, axis=d) for t, w in zip(taps, ws)))
        out = np.stack(rows, axis=d)
    return out.astype(x.dtype)


def string_normalizer(x, case_change_action="NONE", is_case_sensitive=False,
                      stopwords=()):
    """ONNX StringNormalizer on words [C] or [1, C] with Unicode simple case
    mapping (a character whose full mapping has several, like 'ß', stays);
    one empty string when no word is kept."""
    def simple(word, upper):
        mapped = (c.upper() if upper else c.lower() for c in word)
        return "".join(m if len(m) == 1 else c for c, m in zip(word, mapped))
    words = list(x.reshape(-1))
    if is_case_sensitive:
        stops = set(stopwords)
        kept = [w for w in words if w not in stops]
    else:
        stops = {s.lower() for s in stopwords}
        kept = [w for w in words if w.lower() not in stops]
    if case_change_action == "UPPER":
        kept = [simple(w, True) for w in kept]
    elif case_change_action == "LOWER":
        kept = [simple(w, False) for w in kept]
    if not kept:
        kept = [""]
    out = np.array(kept, dtype=np.str_)
    return out.reshape(1, -1) if x.ndim == 2 else out


def max_pool_indices(x, kernel_shape, strides=None, pads=None, dilations=None,
                     column_major=False):
    """Flat positions in x of each max-pool window's first maximum (ONNX
    MaxPool's Indices; column_major is storage_order 1). No ceil_mode."""
    k = x.ndim - 2
    strides = strides or [1] * k
    dilations = dilations or [1] * k
    pads = pads or [0] * (2 * k)
    spatial = x.shape[2:]
    out_sp = [(spatial[i] + pads[i] + pads[i + k] - ((kernel_shape[i] - 1) * dilations[i] + 1))
              // strides[i] + 1 for i in range(k)]
    out = np.zeros(x.shape[:2] + tuple(out_sp), dtype=np.int64)
    size = int(np.prod(spatial))
    for n, c in np.ndindex(*x.shape[:2]):
        for o in np.ndindex(*out_sp):
            best, where = None, -1
            for kidx in np.ndindex(*kernel_shape):
                pos = [o[i] * strides[i] + kidx[i] * dilations[i] - pads[i] for i in range(k)]
                if not all(0 <= pos[i] < spatial[i] for i in range(k)):
                    continue
                v = x[(n, c) + tuple(pos)]
                if best is None or v > best:
                    best = v
                    dims = range(k - 1, -1, -1) if column_major else range(k)
                    flat = 0
                    for i in dims:
                        flat = flat * spatial[i] + pos[i]
                    where = (n * x.shape[1] + c) * size + flat
            out[(n, c) + o] = where
    return out


def gather_elements(x, indices, axis=0):
    """ONNX GatherElements: take_along_axis with negative indices wrapped."""
    indices = np.where(indices < 0, indices + x.shape[axis], indices)
    idx = [np.arange(n).reshape([-1 if d == i else 1 for d in range(indices.ndim)])
           for i, n in enumerate(indices.shape)]
    idx[axis] = indices
    return x[tuple(idx)]


def cumulative(x, axis, exclusive=False, reverse=False, prod=False):
    """Scan along `axis` as msgraph.cumsum / msgraph.cumprod; the running
    value wraps in the element type as the compiled code's does."""
    x = np.asarray(x)
    if reverse:
        x = np.flip(x, axis)
    moved = np.moveaxis(x, axis, 0)
    out = np.empty_like(moved)
    acc = np.full(moved.shape[1:], 1 if prod else 0, dtype=x.dtype)
    with np.errstate(over="ignore"):
        for i in range(moved.shape[0]):
            nxt = acc * moved[i] if prod else acc + moved[i]
            out[i] = acc if exclusive else nxt
            acc = nxt.astype(x.dtype)
    out = np.moveaxis(out, 0, axis)
    return np.flip(out, axis) if reverse else out


def attention(q, k, v, mask=None, scale=None, is_causal=False, causal_offset=0,
              softcap=0.0):
    """softmax(Q K^T * scale (softcapped) + mask, causal) V in float64, the
    whole score matrix at once; a query that sees no key gets zeros."""
    q64, k64, v64 = (t.astype(np.float64) for t in (q, k, v))
    group = q.shape[1] // k.shape[1]
    k64 = np.repeat(k64, group, axis=1)
    v64 = np.repeat(v64, group, axis=1)
    if scale is None:
        scale = 1 / np.sqrt(q.shape[-1])
    s = q64 @ np.swapaxes(k64, -1, -2) * scale
    if softcap > 0:
        s = softcap * np.tanh(s / softcap)
    if mask is not None:
        s = s + mask.astype(np.float64)
    if is_causal:
        rows = np.arange(q.shape[2])[:, None] + causal_offset
        cols = np.arange(k.shape[2])[None, :]
        s = np.where(cols > rows, -np.inf, s)
    m = s.max(axis=-1, keepdims=True)
    seen = np.isfinite(m)
    e = np.where(seen, np.exp(s - np.where(seen, m, 0)), 0)
    total = e.sum(axis=-1, keepdims=True)
    p = np.where(total > 0, e / np.where(total > 0, total, 1), 0)
    return (p @ v64).astype(q.dtype)
