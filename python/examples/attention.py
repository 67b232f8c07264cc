#!/usr/bin/python3
"""A transformer encoder block written with ms.ops and compiled by ms.jit.

Multi-head causal self-attention with a residual and layer norm, then a GELU
MLP with a residual and layer norm, on NumPy inputs. Prints the output's
shape, its largest difference from a float64 NumPy reference, the cache
counters (run the script twice: the second run compiles nothing) and the
time per call.

Run: PYTHONPATH=build/python /usr/bin/python3 python/examples/attention.py
"""

import math
import time

import numpy as np

import ms
from ms import ops

HEADS = 4


@ms.jit
def encoder_block(x, wq, wk, wv, wo, g1, b1, w1, c1, w2, c2, g2, b2):
    batch, seq, dim = x.shape
    head = dim // HEADS

    def split(t):
        return t.reshape(batch, seq, HEADS, head).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    scores = (q @ k.transpose(0, 1, 3, 2)) * (1.0 / math.sqrt(head))
    causal = np.tril(np.ones((seq, seq), dtype=bool))
    p = ops.softmax(ops.where(causal, scores, -1e9), axis=-1)
    attended = (p @ v).transpose(0, 2, 1, 3).reshape(batch, seq, dim)
    h = ops.layer_norm(x + attended @ wo, g1, b1)
    mlp = ops.gelu(h @ w1 + c1) @ w2 + c2
    return ops.layer_norm(h + mlp, g2, b2)


def reference(x, wq, wk, wv, wo, g1, b1, w1, c1, w2, c2, g2, b2):
    erf = np.vectorize(math.erf)

    def norm(t, g, b):
        mu = t.mean(-1, keepdims=True)
        var = ((t - mu) ** 2).mean(-1, keepdims=True)
        return (t - mu) / np.sqrt(var + 1e-5) * g + b

    batch, seq, dim = x.shape
    head = dim // HEADS

    def split(t):
        return t.reshape(batch, seq, HEADS, head).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(head)
    s = np.where(np.tril(np.ones((seq, seq), bool)), s, -1e9)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    h = norm(x + (p @ v).transpose(0, 2, 1, 3).reshape(batch, seq, dim) @ wo,
             g1, b1)
    u = h @ w1 + c1
    return norm(h + (0.5 * u * (1 + erf(u / math.sqrt(2)))) @ w2 + c2, g2, b2)


def main():
    rng = np.random.default_rng(0)
    batch, seq, dim, hidden = 2, 32, 64, 256

    def weight(*shape):
        return (rng.standard_normal(shape) / math.sqrt(shape[0])).astype(
            np.float32)

    x = rng.standard_normal((batch, seq, dim)).astype(np.float32)
    args = (x, weight(dim, dim), weight(dim, dim), weight(dim, dim),
            weight(dim, dim), np.ones(dim, np.float32),
            np.zeros(dim, np.float32), weight(dim, hidden),
            np.zeros(hidden, np.float32), weight(hidden, dim),
            np.zeros(dim, np.float32), np.ones(dim, np.float32),
            np.zeros(dim, np.float32))

    start = time.perf_counter()
    y = encoder_block(*args)
    first = time.perf_counter() - start
    expected = reference(*(a.astype(np.float64) for a in args))
    error = float(np.abs(y - expected).max())
    start = time.perf_counter()
    calls = 200
    for _ in range(calls):
        encoder_block(*args)
    per_call = (time.perf_counter() - start) / calls

    print(f"encoder block: input {x.shape} {x.dtype} -> output {y.shape} "
          f"{y.dtype}")
    print(f"max |ms - numpy float64| = {error:.2e} (tolerance 1e-4)")
    print(f"cache: {encoder_block.cache_info()} "
          f"(directory {ms.cache_dir()})")
    print(f"first call (trace + compile or disk-cache load): "
          f"{first * 1e3:.1f} ms; cached call: {per_call * 1e3:.3f} ms")
    print("first row of the output:", np.array2string(
        y[0, 0, :6], precision=4), "...")
    if error > 1e-4:
        raise SystemExit("mismatch against the NumPy reference")


if __name__ == "__main__":
    main()
