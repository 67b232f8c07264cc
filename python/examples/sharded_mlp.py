"""A tensor- and data-parallel MLP block with ms.jit, in JAX's conventions.

Run it as 4 local processes (ranks):

    python3 -m ms.launch --nproc 4 python/examples/sharded_mlp.py

or under Open MPI: `mpirun -np 4 python3 python/examples/sharded_mlp.py`.

Every rank passes the whole arrays; the batch is split over "dp", the first
weight by columns and the second by rows over "tp" (one all_reduce), and
every rank gets the whole result, which rank 0 checks against NumPy.
"""

import numpy as np

import ms
from ms import ops

mesh = ms.Mesh((2, 2), ("dp", "tp"))


def block(x, w1, b1, w2):
    h = ops.gelu(x @ w1 + b1)
    h = ms.shard(h, ms.P("dp", "tp"))   # pin the hidden layout (optional)
    return ops.layer_norm(x + h @ w2, np.ones(64, np.float32),
                          np.zeros(64, np.float32), axis=-1)


f = ms.jit(block, mesh=mesh,
           in_shardings=(ms.P("dp", None), ms.P(None, "tp"), ms.P("tp"),
                         ms.P("tp", None)),
           out_shardings=ms.P())

rng = np.random.default_rng(0)
x = rng.standard_normal((8, 64)).astype(np.float32)
w1 = (rng.standard_normal((64, 256)) * 0.1).astype(np.float32)
b1 = (rng.standard_normal(256) * 0.1).astype(np.float32)
w2 = (rng.standard_normal((256, 64)) * 0.1).astype(np.float32)

y = f(x, w1, b1, w2)

if ms.distributed.rank() == 0:
    from math import erf
    h = x.astype(np.float64) @ w1 + b1
    h = 0.5 * h * (1 + np.vectorize(erf)(h / np.sqrt(2)))
    r = x + h @ w2
    ref = (r - r.mean(-1, keepdims=True)) / np.sqrt(r.var(-1, keepdims=True)
                                                     + 1e-5)
    print(f"ranks: {ms.distributed.world_size()}, output {y.shape} "
          f"{y.dtype}, max |ms - numpy float64| = "
          f"{np.abs(y - ref).max():.2e} (tolerance 1e-4)")
    assert np.abs(y - ref).max() < 1e-4
