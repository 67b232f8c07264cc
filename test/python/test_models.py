"""Whole models written with ms.ops: a two-layer MLP and a transformer
attention block, against NumPy (float64) and, where Debian's python3-torch
is installed, against torch's own modules.

Tolerances: rtol 1e-4, atol 1e-5 (float32 kernels against float64 NumPy;
torch's float32 results agree to the same bounds).
"""

import math

import numpy as np
import pytest

import ms
from ms import ops

from conftest import assert_close

RTOL, ATOL = 1e-4, 1e-5
_erf = np.vectorize(math.erf)


@ms.jit
def mlp(x, w1, b1, w2, b2):
    h = ops.gelu(x @ w1 + b1)
    return ops.softmax(h @ w2 + b2, axis=-1)


def mlp_reference(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = (a.astype(np.float64) for a in (x, w1, b1, w2, b2))
    h = x @ w1 + b1
    h = 0.5 * h * (1 + _erf(h / math.sqrt(2)))
    z = h @ w2 + b2
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


HEADS = 4


@ms.jit
def attention_block(x, wq, wk, wv, wo, gamma, beta, causal=True):
    """Pre-softmax-scaled multi-head self-attention with a residual and a
    layer norm (a transformer encoder's first half)."""
    batch, seq, dim = x.shape
    head = dim // HEADS

    def heads(t):
        return t.reshape(batch, seq, HEADS, head).transpose(0, 2, 1, 3)

    q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
    scores = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(head))
    if causal:
        mask = np.tril(np.ones((seq, seq), dtype=bool))
        scores = ops.where(mask, scores, -1e9)
    p = ops.softmax(scores, axis=-1)
    o = (p @ v).transpose(0, 2, 1, 3).reshape(batch, seq, dim)
    return ops.layer_norm(x + o @ wo, gamma, beta, eps=1e-5)


def attention_reference(x, wq, wk, wv, wo, gamma, beta, causal=True):
    x, wq, wk, wv, wo, gamma, beta = (
        a.astype(np.float64) for a in (x, wq, wk, wv, wo, gamma, beta))
    b, s, d = x.shape
    h = d // HEADS

    def heads(t):
        return t.reshape(b, s, HEADS, h).transpose(0, 2, 1, 3)

    q, k, v = heads(x @ wq), heads(x @ wk), heads(x @ wv)
    scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(h)
    if causal:
        scores = np.where(np.tril(np.ones((s, s), bool)), scores, -1e9)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = (p @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
    y = x + o @ wo
    mu = y.mean(-1, keepdims=True)
    var = ((y - mu) ** 2).mean(-1, keepdims=True)
    return (y - mu) / np.sqrt(var + 1e-5) * gamma + beta


def mlp_inputs(rng, batch=8, features=32, hidden=64, classes=10):
    return (rng.standard_normal((batch, features)).astype(np.float32),
            (rng.standard_normal((features, hidden)) / 6).astype(np.float32),
            rng.standard_normal(hidden).astype(np.float32) * 0.1,
            (rng.standard_normal((hidden, classes)) / 8).astype(np.float32),
            rng.standard_normal(classes).astype(np.float32) * 0.1)


def attention_inputs(rng, batch=2, seq=16, dim=32):
    x = rng.standard_normal((batch, seq, dim)).astype(np.float32)
    ws = [(rng.standard_normal((dim, dim)) / math.sqrt(dim)).astype(
        np.float32) for _ in range(4)]
    gamma = (1 + 0.1 * rng.standard_normal(dim)).astype(np.float32)
    beta = (0.1 * rng.standard_normal(dim)).astype(np.float32)
    return (x, *ws, gamma, beta)


def test_mlp_matches_numpy(rng):
    args = mlp_inputs(rng)
    out = mlp(*args)
    assert_close(out, mlp_reference(*args).astype(np.float32), RTOL, ATOL)
    np.testing.assert_allclose(out.sum(-1), 1, rtol=1e-5)


@pytest.mark.parametrize("causal", [True, False])
def test_attention_matches_numpy(rng, causal):
    args = attention_inputs(rng)
    out = attention_block(*args, causal=causal)
    assert_close(out, attention_reference(*args, causal).astype(np.float32),
                 RTOL, ATOL)


def test_mlp_matches_torch(rng):
    torch = pytest.importorskip("torch")
    x, w1, b1, w2, b2 = mlp_inputs(rng)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.GELU(),
                                torch.nn.Linear(64, 10),
                                torch.nn.Softmax(dim=-1))
    with torch.no_grad():
        model[0].weight.copy_(torch.from_numpy(w1.T.copy()))
        model[0].bias.copy_(torch.from_numpy(b1))
        model[2].weight.copy_(torch.from_numpy(w2.T.copy()))
        model[2].bias.copy_(torch.from_numpy(b2))
        expected = model(torch.from_numpy(x)).numpy()
    assert_close(mlp(x, w1, b1, w2, b2), expected, RTOL, ATOL)


def test_attention_matches_torch(rng):
    torch = pytest.importorskip("torch")
    x, wq, wk, wv, wo, gamma, beta = attention_inputs(rng)
    dim = x.shape[-1]
    mha = torch.nn.MultiheadAttention(dim, HEADS, bias=False,
                                      batch_first=True)
    norm = torch.nn.LayerNorm(dim, eps=1e-5)
    seq = x.shape[1]
    mask = torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.from_numpy(
            np.concatenate([wq.T, wk.T, wv.T])))
        mha.out_proj.weight.copy_(torch.from_numpy(wo.T.copy()))
        norm.weight.copy_(torch.from_numpy(gamma))
        norm.bias.copy_(torch.from_numpy(beta))
        t = torch.from_numpy(x)
        attended, _ = mha(t, t, t, attn_mask=mask, need_weights=False)
        expected = norm(t + attended).numpy()
    out = attention_block(x, wq, wk, wv, wo, gamma, beta, causal=True)
    assert_close(out, expected, RTOL, ATOL)


def test_small_cnn_matches_numpy(rng):
    @ms.jit
    def cnn(x, w, b, fc):
        h = ops.max_pool2d(ops.relu(ops.conv2d(x, w, b, padding=1)), 2)
        return h.reshape(x.shape[0], -1) @ fc

    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    w = (rng.standard_normal((4, 3, 3, 3)) / 5).astype(np.float32)
    b = (rng.standard_normal(4) / 10).astype(np.float32)
    fc = (rng.standard_normal((64, 5)) / 8).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((2, 4, 8, 8))
    for i in range(8):
        for j in range(8):
            conv[:, :, i, j] = np.einsum("nchw,ochw->no",
                                         xp[:, :, i:i + 3, j:j + 3], w)
    h = np.maximum(conv + b.reshape(1, -1, 1, 1), 0)
    h = h.reshape(2, 4, 4, 2, 4, 2).max(axis=(3, 5))
    expected = h.reshape(2, -1) @ fc
    assert_close(cnn(x, w, b, fc), expected.astype(np.float32), RTOL, ATOL)
