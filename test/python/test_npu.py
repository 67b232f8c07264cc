"""ms on the simulated NPU from Python: ms.jit(target="npu") and
ms.load(..., device="npu") run on the runtime's NPU simulator, so results
are checked against NumPy on every machine (matmuls within fp16's
tolerance: the cube multiplies fp16 inputs, docs/NPU.md)."""

import os

import numpy as np
import pytest

import ms
from ms import ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mlp(x, w, b):
    return ops.softmax(ops.relu(x @ w + b))


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_jit_runs_on_the_npu(level):
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (32, 64)).astype(np.float32)
    w = rng.uniform(-1, 1, (64, 48)).astype(np.float32)
    b = rng.uniform(-1, 1, (48,)).astype(np.float32)
    got = ms.jit(mlp, level=level, target="npu")(x, w, b)
    h = np.maximum(x.astype(np.float64) @ w + b, 0)
    e = np.exp(h - h.max(axis=-1, keepdims=True))
    want = e / e.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-3)


def test_o2_is_refused():
    with pytest.raises(ms.CompileError, match="target 'npu' does not compile "
                       "at -O2 yet"):
        ms.jit(mlp, level="O2", target="npu")(
            np.zeros((2, 4), np.float32), np.zeros((4, 3), np.float32),
            np.zeros((3,), np.float32))


def test_compile_file_and_load_on_the_npu(tmp_path):
    model = os.path.join(ROOT, "test", "e2e", "torch", "mlp")
    x = np.load(os.path.join(model, "input_0.npy"))
    want = np.load(os.path.join(model, "output_0.npy"))
    module = ms.compile_file(os.path.join(model, "model.onnx"), level="O1",
                             target="npu")
    np.testing.assert_allclose(module(x), want, rtol=1e-2, atol=1e-3)
    path = tmp_path / "mlp.msm"
    module.save(path)
    np.testing.assert_allclose(ms.load(path, device="npu")(x), want,
                               rtol=1e-2, atol=1e-3)
