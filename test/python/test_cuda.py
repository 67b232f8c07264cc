"""ms on the cuda device from Python: ms.jit(target="cuda"), ms.load(...,
device="cuda"). Without a GPU the device is unavailable and says why; with
the runtime's driver stand-in (build/runtime/fake-cuda, which interprets the
PTX) and on a GPU the results are checked against NumPy."""

import os
import subprocess
import sys

import numpy as np
import pytest

import ms
from ms import ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.dirname(os.environ.get(
    "MS_COMPILE", os.path.join(ROOT, "build", "bin", "ms-compile"))))
FAKE_CUDA = os.path.join(BUILD, "runtime", "fake-cuda")


def cuda_available():
    try:
        ms._ms.check_device("cuda")
        return True
    except ms.ExecutionError:
        return False


def run_on_the_stand_in(script, tmp_path, **environment):
    """Runs the Python `script` in a process whose libcuda is the driver
    stand-in (with `environment` set); it must print 'matches'."""
    env = dict(os.environ, LD_LIBRARY_PATH=FAKE_CUDA,
               MS_CACHE_DIR=str(tmp_path / "cache"), **environment)
    p = subprocess.run([sys.executable, "-c", script], env=env,
                       capture_output=True, text=True)
    assert p.returncode == 0 and "matches" in p.stdout, p.stdout + p.stderr


def exp_add(x, y):
    return ops.exp(x) + y


def test_unknown_device_is_an_error(tmp_path):
    with pytest.raises(ms.ExecutionError, match="unknown device 'tpu'; "
                       "expected cpu, cuda or npu"):
        ms.load(tmp_path / "none.msm", device="tpu")


@pytest.mark.skipif(cuda_available(), reason="a CUDA device is present")
def test_cuda_without_a_driver_says_why():
    f = ms.jit(exp_add, target="cuda")
    with pytest.raises(ms.ExecutionError,
                       match="the cuda device is not available"):
        f(np.ones(4, np.float32), np.ones(4, np.float32))


@pytest.mark.skipif(not os.path.exists(os.path.join(FAKE_CUDA, "libcuda.so.1")),
                    reason="the driver stand-in is not built")
@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
def test_jit_runs_on_the_driver_stand_in(level, tmp_path):
    # In a process whose libcuda is the stand-in: compiled, loaded on the
    # cuda device, the inputs staged, the PTX interpreted (at O2 as a CUDA
    # graph), the result copied back.
    script = (
        "import numpy as np, ms\n"
        "from ms import ops\n"
        "rng = np.random.default_rng(0)\n"
        "x = rng.standard_normal((33, 257)).astype(np.float32)\n"
        "y = rng.standard_normal((257,)).astype(np.float32)\n"
        "f = ms.jit(lambda x, y: ops.exp(x) + y, target='cuda', level='%s')\n"
        % level +
        "np.testing.assert_allclose(f(x, y), np.exp(x) + y, rtol=1e-5, atol=1e-6)\n"
        "print('matches')\n")
    run_on_the_stand_in(script, tmp_path)


@pytest.mark.skipif(not os.path.exists(os.path.join(FAKE_CUDA, "libcuda.so.1")),
                    reason="the driver stand-in is not built")
def test_jit_compiles_for_the_gpus_architecture(tmp_path):
    # On a GPU of compute capability 8.0 (the stand-in told so), ms.jit's
    # target_cpu="native" compiles for sm_80, whose PTX loads there; PTX
    # compiled for sm_90a does not load, and the error says for what it
    # was compiled. Each compute capability's architecture: its
    # arch-specific one where ms has it, else the newest it runs.
    script = (
        "import numpy as np, ms\n"
        "from ms import ops\n"
        "assert ms._ms.device_arch('cuda') == 'sm_80', ms._ms.device_arch('cuda')\n"
        "archs = [ms._ms.cuda_arch_for(a) for a in ('sm_80', 'sm_87', 'sm_90',\n"
        "         'sm_100', 'sm_103', 'sm_121', 'sm_75', 'x')]\n"
        "assert archs == ['sm_80', 'sm_86', 'sm_90a', 'sm_100a', 'sm_100',\n"
        "                 'sm_120', '', ''], archs\n"
        "x = np.arange(8, dtype=np.float32)\n"
        "f = ms.jit(lambda x: ops.exp(x), target='cuda', level='O1')\n"
        "np.testing.assert_allclose(f(x), np.exp(x), rtol=1e-5)\n"
        "g = ms.jit(lambda x: ops.exp(x), target='cuda', level='O1',\n"
        "           target_cpu='sm_90a')\n"
        "try:\n"
        "    g(x)\n"
        "    raise SystemExit('sm_90a PTX loaded on a GPU of 8.0')\n"
        "except ms.ExecutionError as e:\n"
        "    assert 'compiled for sm_90a' in str(e), e\n"
        "    assert e.code == 'unavailable', e.code\n"
        "print('matches')\n")
    run_on_the_stand_in(script, tmp_path, MS_FAKE_CUDA_COMPUTE_CAPABILITY="8.0")
    # A second process finds the sm_90a module in the cache: whole, it is
    # not discarded as corrupt and recompiled, and the error is the same.
    again = script.replace("print('matches')", "import warnings\n"
                           "with warnings.catch_warnings():\n"
                           "    warnings.simplefilter('error')\n"
                           "    try:\n"
                           "        g(x)\n"
                           "        raise SystemExit('loaded')\n"
                           "    except ms.ExecutionError as e:\n"
                           "        assert 'compiled for sm_90a' in str(e), e\n"
                           "print('matches')")
    run_on_the_stand_in(again, tmp_path, MS_FAKE_CUDA_COMPUTE_CAPABILITY="8.0")


@pytest.mark.skipif(not os.path.exists(os.path.join(FAKE_CUDA, "libcuda.so.1")),
                    reason="the driver stand-in is not built")
def test_jit_refuses_a_gpu_older_than_sm_80(tmp_path):
    # On a GPU of compute capability 7.5 no architecture ms generates code
    # for runs: ms.jit says so when the function is made, naming the GPU's,
    # before compiling anything; an explicit architecture still compiles
    # (and its PTX then does not load there).
    script = (
        "import numpy as np, ms\n"
        "from ms import ops\n"
        "x = np.arange(8, dtype=np.float32)\n"
        "try:\n"
        "    ms.jit(lambda x: ops.exp(x), target='cuda', level='O1')\n"
        "    raise SystemExit('ms.jit took a GPU of 7.5')\n"
        "except ms.CompileError as e:\n"
        "    assert 'the GPU (sm_75) is older than every architecture' in str(e), e\n"
        "g = ms.jit(lambda x: ops.exp(x), target='cuda', level='O1',\n"
        "           target_cpu='sm_80')\n"
        "try:\n"
        "    g(x)\n"
        "    raise SystemExit('sm_80 PTX loaded on a GPU of 7.5')\n"
        "except ms.ExecutionError as e:\n"
        "    assert 'compiled for sm_80' in str(e), e\n"
        "print('matches')\n")
    run_on_the_stand_in(script, tmp_path, MS_FAKE_CUDA_COMPUTE_CAPABILITY="7.5")


@pytest.mark.skipif(not cuda_available(), reason="no CUDA device")
@pytest.mark.parametrize("level", ["O0", "O1", "O2"])
def test_jit_on_the_gpu_matches_numpy(level, rng):
    x = rng.standard_normal((33, 257)).astype(np.float32)
    y = rng.standard_normal((257,)).astype(np.float32)
    f = ms.jit(exp_add, target="cuda", level=level)
    np.testing.assert_allclose(f(x, y), np.exp(x) + y, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not os.path.exists(os.path.join(FAKE_CUDA, "libcuda.so.1")),
                    reason="the driver stand-in is not built")
@pytest.mark.parametrize("precision", ["tf32", "bf16", "f16"])
def test_tensor_core_matmuls_on_the_driver_stand_in(precision, tmp_path):
    # precision= runs the matmuls on tensor cores (mma.sync, interpreted by
    # the stand-in): a linear layer on 3-D input with tails in M (140 rows),
    # N (90) and K (100, in steps of 32), and a product by a transposed
    # matrix. The reference rounds the operands to the precision and sums
    # in float64; the device sums in f32.
    script = (
        "import numpy as np, ms, sys\n"
        "sys.path.insert(0, %r)\n" % os.path.join(ROOT, "test", "e2e") +
        "from ref import bf16\n"
        "from ms import ops\n"
        "rng = np.random.default_rng(0)\n"
        "x = rng.standard_normal((2, 70, 100)).astype(np.float32)\n"
        "w = rng.standard_normal((100, 90)).astype(np.float32)\n"
        "v = rng.standard_normal((48, 100)).astype(np.float32)\n"
        "u = rng.standard_normal((60, 100)).astype(np.float32)\n"
        "f = ms.jit(lambda x, w, v, u: (ops.matmul(x, w), ops.matmul(v, ops.transpose(u))),\n"
        "           target='cuda', level='O1', precision=%r)\n" % precision +
        "def tf32(a):  # to nearest, ties away (cvt.rna.tf32.f32)\n"
        "    u = a.view(np.uint32).astype(np.uint64)\n"
        "    return (((u + 0x1000) & 0xFFFFE000).astype(np.uint32)).view(np.float32)\n"
        "r = {'tf32': tf32, 'bf16': bf16,\n"
        "     'f16': lambda a: a.astype(np.float16).astype(np.float32)}[%r]\n"
        % precision +
        "y, z = f(x, w, v, u)\n"
        "want_y = r(x).astype(np.float64) @ r(w).astype(np.float64)\n"
        "want_z = r(v).astype(np.float64) @ r(u).astype(np.float64).T\n"
        "np.testing.assert_allclose(y, want_y, rtol=1e-4, atol=1e-4)\n"
        "np.testing.assert_allclose(z, want_z, rtol=1e-4, atol=1e-4)\n"
        "assert np.abs(y - x.astype(np.float64) @ w).max() > 1e-3  # rounded\n"
        "print('matches')\n")
    run_on_the_stand_in(script, tmp_path)
