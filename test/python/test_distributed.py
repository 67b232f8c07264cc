"""ms.Mesh, ms.P, ms.shard, ms.jit with a mesh, ms.distributed and the
ms.launch launcher: sharded functions run as several local processes and
match NumPy (float32; split contractions reorder sums: rtol 1e-5, atol
1e-5)."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ms
from ms import ops


def run_ranks(tmp_path, nproc, body, timeout=120, grace=5):
    """Runs `body` (a script) as `nproc` ranks under ms.launch; returns the
    completed process."""
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent(body))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-m", "ms.launch", "--nproc", str(nproc),
         "--grace", str(grace), str(script)], env=env, capture_output=True, text=True,
        timeout=timeout, cwd=tmp_path)


def test_mesh_and_spec_validation():
    assert ms.Mesh((2, 2), ("dp", "tp")).size == 4
    assert ms.P("dp", None, ("x", "y")).text() == "dp,-,x+y"
    with pytest.raises(ValueError, match="one axis name per dim"):
        ms.Mesh((2, 2), ("dp",))
    with pytest.raises(ValueError, match="distinct"):
        ms.Mesh((2, 2), ("dp", "dp"))
    with pytest.raises(TypeError, match="mesh axis name"):
        ms.P(3)
    with pytest.raises(TypeError, match="need a mesh"):
        ms.jit(lambda x: x, in_shardings=(ms.P("dp"),))


def test_unknown_axis_is_a_compile_error():
    f = ms.jit(lambda x: x + 1, mesh=ms.Mesh(2, "tp"),
               in_shardings=(ms.P("dp"),))
    with pytest.raises(ms.CompileError,
                       match="mesh axis 'dp' does not exist"):
        f(np.zeros(4, np.float32))


def test_lowered_partition_has_one_all_reduce():
    f = ms.jit(lambda x, w: x @ w, mesh=ms.Mesh(2, "tp"),
               in_shardings=(ms.P(None, "tp"), ms.P("tp", None)))
    text = f.lower(np.zeros((4, 8), np.float32),
                   np.zeros((8, 6), np.float32)).as_text("dist")
    assert text.count("shard.all_reduce") == 1
    assert "tensor<4x4xf32>, tensor<4x6xf32>" in text


def test_world_of_one_refuses_a_sharded_module():
    f = ms.jit(lambda x: x * 2, mesh=ms.Mesh(2, "dp"),
               in_shardings=(ms.P("dp"),))
    with pytest.raises(ms.ExecutionError, match="compiled for 2 ranks"):
        f(np.ones(4, np.float32))


def test_distributed_without_launcher(monkeypatch):
    for name in ("MS_RANK", "MS_WORLD_SIZE", "OMPI_COMM_WORLD_RANK",
                 "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE"):
        monkeypatch.delenv(name, raising=False)
    assert (ms.distributed.rank(), ms.distributed.world_size()) == (0, 1)
    monkeypatch.setenv("MS_RANK", "3")
    monkeypatch.setenv("MS_WORLD_SIZE", "2")
    with pytest.raises(RuntimeError, match="is not a rank"):
        ms.distributed.rank()


def test_multi_copy_splits_the_all_reduce():
    f = ms.jit(lambda x, w: ops.relu(x @ w), mesh=ms.Mesh(2, "tp"),
               in_shardings=(ms.P(None, "tp"), ms.P("tp", None)),
               multi_copy=2)
    text = f.lower(np.zeros((4, 8), np.float32),
                   np.zeros((8, 6), np.float32)).as_text("dist")
    assert text.count("shard.all_reduce") == 2
    assert "tensor<2x6xf32> -> tensor<2x6xf32>" in text
    with pytest.raises(ValueError, match="multi_copy must be an int"):
        ms.jit(lambda x: x, mesh=ms.Mesh(2, "tp"), multi_copy=0)
    with pytest.raises(TypeError, match="needs a mesh"):
        ms.jit(lambda x: x, multi_copy=2)


@pytest.mark.parametrize("nproc,mesh,copies", [(2, "(2,), ('tp',)", 1),
                                               (2, "(2,), ('tp',)", 2),
                                               (4, "(2, 2), ('dp', 'tp')", 1),
                                               (4, "(2, 2), ('dp', 'tp')", 2)])
def test_launch_tensor_and_data_parallel(tmp_path, nproc, mesh, copies):
    done = run_ranks(tmp_path, nproc, f"""
        import numpy as np
        import ms
        from ms import ops
        mesh = ms.Mesh({mesh})
        dp = "dp" if "dp" in mesh.axis_names else None
        def mlp(x, w1, w2):
            h = ops.relu(x @ w1)
            h = ms.shard(h, ms.P(dp, "tp"))
            return ops.softmax(h @ w2)
        f = ms.jit(mlp, mesh=mesh, level="O1", multi_copy={copies},
                   in_shardings=(ms.P(dp, None), ms.P(None, "tp"),
                                 ms.P("tp", None)))
        rng = np.random.default_rng(0)
        x = rng.standard_normal((8, 16)).astype(np.float32)
        w1 = rng.standard_normal((16, 32)).astype(np.float32)
        w2 = rng.standard_normal((32, 8)).astype(np.float32)
        y = f(x, w1, w2)
        np.save(f"y{{ms.distributed.rank()}}.npy", y)
        np.save("ref.npy", x)
        """)
    assert done.returncode == 0, done.stderr
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 16)).astype(np.float32)
    w1 = rng.standard_normal((16, 32)).astype(np.float32)
    w2 = rng.standard_normal((32, 8)).astype(np.float32)
    logits = np.maximum(x.astype(np.float64) @ w1, 0) @ w2
    e = np.exp(logits - logits.max(-1, keepdims=True))
    reference = e / e.sum(-1, keepdims=True)
    for rank in range(nproc):
        y = np.load(tmp_path / f"y{rank}.npy")
        np.testing.assert_allclose(y, reference, rtol=1e-5, atol=1e-5)


def test_attention_split_by_heads(tmp_path):
    # msgraph.attention shards by heads: each of 2 ranks attends on its 2
    # heads (causal), with 2 copies of the batch, and the heads are gathered.
    done = run_ranks(tmp_path, 2, """
        import numpy as np
        import ms
        from ms import ops
        f = ms.jit(lambda q, k, v: ops.attention(q, k, v, is_causal=True),
                   mesh=ms.Mesh(2, "tp"), level="O1", multi_copy=2,
                   in_shardings=(ms.P(None, "tp"), ms.P(None, "tp"),
                                 ms.P(None, "tp")))
        text = f.lower(*[np.zeros((2, 4, 8, 16), np.float32)] * 3).as_text(
            "dist")
        assert "tensor<1x2x8x16xf32>" in text, text
        rng = np.random.default_rng(0)
        q, k, v = (rng.standard_normal((2, 4, 8, 16)).astype(np.float32)
                   for _ in range(3))
        np.save(f"y{ms.distributed.rank()}.npy", f(q, k, v))
        """)
    assert done.returncode == 0, done.stderr
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 4, 8, 16)).astype(np.float64)
               for _ in range(3))
    s = q @ k.transpose(0, 1, 3, 2) / 4.0
    s = np.where(np.tril(np.ones((8, 8), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    reference = (p / p.sum(-1, keepdims=True)) @ v
    for rank in range(2):
        np.testing.assert_allclose(np.load(tmp_path / f"y{rank}.npy"),
                                   reference, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("nproc,mesh,ids_spec,table_spec",
                         [(2, "2, 'tp'", "None", "ms.P('tp', None)"),
                          (4, "(2, 2), ('dp', 'tp')", "ms.P('dp', None)",
                           "ms.P('tp', None)"),
                          (4, "(2, 2), ('dp', 'tp')", "None",
                           "ms.P(('dp', 'tp'), None)")])
def test_embedding_split_by_vocabulary(tmp_path, nproc, mesh, ids_spec,
                                       table_spec):
    # ops.take from a table split by rows (vocabulary): each rank gathers
    # the rows it holds, zeros elsewhere, one all_reduce sums them; with
    # the ids split over dp and the table over tp (data and vocabulary
    # parallel), and with the table split over both axes. Ids include
    # negative ones (counted from the end, as NumPy's take).
    done = run_ranks(tmp_path, nproc, f"""
        import numpy as np
        import ms
        from ms import ops
        f = ms.jit(lambda ids, table: ops.take(table, ids, axis=0),
                   mesh=ms.Mesh({mesh}), level="O1",
                   in_shardings=({ids_spec}, {table_spec}))
        text = f.lower(np.zeros((4, 6), np.int64),
                       np.zeros((16, 8), np.float32)).as_text("dist")
        assert "all_reduce" in text, text
        ids = (np.arange(24, dtype=np.int64).reshape(4, 6) * 7) % 32 - 16
        table = np.random.default_rng(0).standard_normal((16, 8)).astype(
            np.float32)
        np.save(f"y{{ms.distributed.rank()}}.npy", f(ids, table))
        """)
    assert done.returncode == 0, done.stderr
    ids = (np.arange(24, dtype=np.int64).reshape(4, 6) * 7) % 32 - 16
    table = np.random.default_rng(0).standard_normal((16, 8)).astype(
        np.float32)
    for rank in range(nproc):
        np.testing.assert_array_equal(np.load(tmp_path / f"y{rank}.npy"),
                                      np.take(table, ids, axis=0))


def test_parallel_block_sums_once(tmp_path):
    # A parallel attention-and-feed-forward style block: two row-parallel
    # branches added into the residual. Their partial sums are added
    # before one all_reduce (msdist-combine-collectives), not all-reduced
    # apart.
    done = run_ranks(tmp_path, 2, """
        import numpy as np
        import ms
        from ms import ops
        def block(x, w1, w2, w3, w4):
            return x + ops.relu(x @ w1) @ w2 + ops.tanh(x @ w3) @ w4
        f = ms.jit(block, mesh=ms.Mesh(2, "tp"), level="O1",
                   in_shardings=(None, ms.P(None, "tp"), ms.P("tp", None),
                                 ms.P(None, "tp"), ms.P("tp", None)))
        rng = np.random.default_rng(0)
        args = [rng.standard_normal(s).astype(np.float32)
                for s in ((8, 16), (16, 32), (32, 16), (16, 32), (32, 16))]
        text = f.lower(*args).as_text("dist")
        assert text.count("shard.all_reduce") == 1, text
        np.save(f"y{ms.distributed.rank()}.npy", f(*args))
        """)
    assert done.returncode == 0, done.stderr
    rng = np.random.default_rng(0)
    x, w1, w2, w3, w4 = [rng.standard_normal(s).astype(np.float64)
                         for s in ((8, 16), (16, 32), (32, 16), (16, 32),
                                   (32, 16))]
    reference = x + np.maximum(x @ w1, 0) @ w2 + np.tanh(x @ w3) @ w4
    for rank in range(2):
        np.testing.assert_allclose(np.load(tmp_path / f"y{rank}.npy"),
                                   reference, rtol=1e-5, atol=1e-4)


def test_launch_stops_the_others_when_a_rank_fails(tmp_path):
    done = run_ranks(tmp_path, 3, """
        import sys, time
        import ms
        if ms.distributed.rank() == 1:
            sys.exit(3)
        time.sleep(60)
        """, timeout=60)
    assert done.returncode == 3
    assert "rank 1 exited with status 3" in done.stderr


def test_a_dead_peer_fails_the_others(tmp_path):
    # Rank 1 dies before the collective: rank 0 gets an ExecutionError
    # within MS_COMM_TIMEOUT instead of hanging.
    done = run_ranks(tmp_path, 2, """
        import os, sys
        import numpy as np
        import ms
        os.environ["MS_COMM_TIMEOUT"] = "3"
        f = ms.jit(lambda x, w: x @ w, mesh=ms.Mesh(2, "tp"),
                   in_shardings=(ms.P(None, "tp"), ms.P("tp", None)))
        if ms.distributed.rank() == 1:
            os._exit(5)
        try:
            f(np.ones((4, 8), np.float32), np.ones((8, 4), np.float32))
        except ms.Error as error:
            open("rank0-error.txt", "w").write(str(error))
            sys.exit(7)
        """, timeout=90, grace=30)
    assert done.returncode == 5, (done.returncode, done.stderr)
    error = (tmp_path / "rank0-error.txt").read_text()
    assert error, done.stderr
