"""ms.jit behaviour: signatures and in-memory caching, static arguments,
output structures, errors with source lines, lowering, threads."""

import os
import threading

import numpy as np
import pytest

import ms
from ms import ops

from conftest import assert_close


def test_one_compile_per_signature(rng):
    @ms.jit
    def f(x, y):
        return x * y + 1.0

    a = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal((2, 3)).astype(np.float32)
    assert_close(f(a, b), a * b + 1)
    assert_close(f(b, a), a * b + 1)
    assert f.cache_info()["traces"] == 1
    # New shape, new dtype: new signatures.
    c = rng.standard_normal((4, 3)).astype(np.float32)
    assert_close(f(c, c), c * c + 1)
    assert_close(f(a.astype(np.float64), b.astype(np.float64)),
                 a.astype(np.float64) * b + 1, rtol=1e-6)
    info = f.cache_info()
    assert info["traces"] == 3 and info["signatures"] == 3
    f.clear_cache()
    assert f.cache_info()["signatures"] == 0


def test_options_and_decorator_forms(rng):
    a = rng.standard_normal(5).astype(np.float32)

    @ms.jit(level="O0", target="cpu", target_cpu="x86-64")
    def f(x):
        return ops.tanh(x)

    assert_close(f(a), np.tanh(a), rtol=1e-5)
    assert_close(ms.jit(ops.tanh, level=0)(a), np.tanh(a), rtol=1e-5)
    with pytest.raises(ValueError, match="unknown optimization level"):
        ms.jit(ops.tanh, level="O7")


def test_unknown_level_is_an_error():
    with pytest.raises(ValueError, match="O3"):
        ms.jit(ops.relu, level="O3")


@pytest.mark.parametrize("level, marker", [
    # The matmul fuses with its bias and GELU, the softmax's consumers
    # into one chain.
    ("O1", "msgraph.matmul+msgraph.add+msgraph.gelu"),
    # O1's kernels run as one generated function.
    ("O2", "msexec.offload"),
])
def test_level_matches_o0(rng, level, marker):
    """Every result element is computed by the same scalar operations in
    the same order at O1 and O2, so the results equal O0's exactly."""
    def block(x, w, b):
        return ops.softmax(ops.gelu(x @ w + b), axis=-1) * 2.0 - x[:, :16]

    x = rng.standard_normal((4, 32)).astype(np.float32)
    w = rng.standard_normal((32, 16)).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    o0 = ms.jit(block, level="O0")(x, w, b)
    f = ms.jit(block, level=level)
    np.testing.assert_array_equal(f(x, w, b), o0)
    assert "msfusion.group" in f.lower(x, w, b).as_text("fusion")
    assert marker in f.lower(x, w, b).as_text("plan")


def _bf16(x):
    """float32 `x` rounded to bfloat16 (to nearest, ties to even)."""
    bits = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("level", ["O0", "O1"])
def test_bf16_precision_rounds_constant_weights(rng, level):
    """A weight the function closes over is a constant: with precision
    "bf16" its matmul reads both operands rounded to bfloat16 and sums in
    f32, which differs from the f32 result by the rounding (about 2^-8
    relative) and matches the rounded operands summed in float64; a weight
    passed as an argument is rounded as the kernel runs, to the same
    result."""
    w = rng.standard_normal((64, 96)).astype(np.float32)
    x = rng.standard_normal((5, 64)).astype(np.float32)

    def layer(x):
        return ops.relu(x @ w + 0.5)

    want = np.maximum(_bf16(x).astype(np.float64) @ _bf16(w) + 0.5, 0)
    got = ms.jit(layer, level=level, precision="bf16")(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    f32 = ms.jit(layer, level=level)(x)
    assert np.abs(f32 - got).max() > 1e-3
    # A weight passed as an argument: both operands rounded as the kernel
    # runs (the same rounding).
    got = ms.jit(lambda x, w: ops.relu(x @ w + 0.5), level=level,
                 precision="bf16")(x, w)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="unknown precision 'f64'"):
        ms.jit(layer, precision="f64")
    with pytest.raises(ms.CompileError, match="target 'cpu' does not "
                                              "multiply in f16"):
        ms.jit(layer, precision="f16")(x)


def _half(x):
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float64)


def test_npu_precision_is_the_cubes_input_type(rng):
    """On the npu the cube multiplies f16 by default (the product of the
    operands rounded to half, summed in f32), bf16 or f32 as asked: each
    matches its rounded operands summed in float64 within the f32 sums'
    error, and only f32 matches the unrounded product."""
    a = rng.standard_normal((32, 96)).astype(np.float32)
    b = rng.standard_normal((96, 48)).astype(np.float32)
    exact = a.astype(np.float64) @ b
    rounded = {None: _half(a) @ _half(b),
               "bf16": _bf16(a).astype(np.float64) @ _bf16(b),
               "f32": exact}
    for precision, want in rounded.items():
        f = ms.jit(lambda x, y: x @ y, target="npu", precision=precision)
        got = f(a, b)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4)
        assert (np.abs(got - exact).max() < 1e-4) == (precision == "f32")


def test_static_arguments(rng):
    @ms.jit
    def scale(x, factor, mode="mul"):
        return x * factor if mode == "mul" else x + factor

    a = rng.standard_normal(4).astype(np.float32)
    assert_close(scale(a, 2.0), a * 2)
    assert_close(scale(a, 3.0), a * 3)
    assert_close(scale(a, 3.0, mode="add"), a + 3)
    assert_close(scale(a, factor=3.0, mode="add"), a + 3)
    assert scale.cache_info()["traces"] == 3
    with pytest.raises(TypeError, match="neither an array nor hashable"):
        scale(a, [1.0])


def test_keyword_array_arguments(rng):
    @ms.jit
    def f(x, y):
        return x - y

    a, b = (rng.standard_normal(3).astype(np.float32) for _ in range(2))
    assert_close(f(y=b, x=a), a - b)


def test_output_structures(rng):
    a = rng.standard_normal((2, 2)).astype(np.float32)

    @ms.jit
    def f(x):
        return {"sum": x + x, "parts": [x * 2, (ops.relu(x), x)]}, x

    out, same = f(a)
    assert_close(out["sum"], a + a)
    assert_close(out["parts"][0], a * 2)
    assert_close(out["parts"][1][0], np.maximum(a, 0))
    assert_close(out["parts"][1][1], a)
    assert_close(same, a)
    # Returned inputs are copies, not views of the caller's array.
    assert not np.shares_memory(same, a)


def test_repeated_and_constant_outputs(rng):
    a = rng.standard_normal(3).astype(np.float32)

    @ms.jit
    def f(x):
        y = x + 1
        return y, y, np.arange(3, dtype=np.float32)

    y1, y2, c = f(a)
    assert_close(y1, a + 1)
    assert_close(y2, a + 1)
    assert not np.shares_memory(y1, y2)
    assert_close(c, np.arange(3, dtype=np.float32))


def test_nested_jit_inlines(rng):
    inner = ms.jit(lambda x: ops.exp(x) - 1)

    @ms.jit
    def outer(x):
        return inner(x) * 2

    a = rng.standard_normal(4).astype(np.float32)
    assert_close(outer(a), (np.exp(a) - 1) * 2, rtol=1e-5)
    assert inner.cache_info()["compiles"] == 0


def test_inputs_are_read_in_place_and_strided_inputs_work(rng):
    a = rng.standard_normal((4, 6)).astype(np.float32)
    f = ms.jit(lambda x: x * 1.0)
    strided = a[:, ::2]
    assert not strided.flags.c_contiguous
    assert_close(f(strided), strided)
    fortran = np.asfortranarray(a)
    assert_close(f(fortran), a)
    assert_close(f(np.float32(2.5)), np.float32(2.5))


def test_scalar_inputs(rng):
    f = ms.jit(lambda x, y: x * y)
    out = f(np.float32(3), np.float32(4))
    assert out.shape == () and out == 12


def test_shape_mismatch_names_the_source_line():
    @ms.jit
    def f(x, w):
        h = ops.relu(x)
        return h @ w  # the offending line

    with pytest.raises(ms.CompileError) as info:
        f(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
    message = str(info.value)
    assert f"{__file__}:" in message
    assert "return h @ w  # the offending line" in message
    assert "expected contracting dimensions to match" in message
    assert "3" in message and "4" in message


def test_broadcast_mismatch_is_reported_at_trace_time():
    f = ms.jit(lambda x, y: x + y)
    with pytest.raises(ms.CompileError, match="broadcast"):
        f(np.ones((2, 3), np.float32), np.ones((4,), np.float32))


def test_dtype_mismatch():
    f = ms.jit(lambda x, y: x * y)
    with pytest.raises(ms.CompileError,
                       match="dtypes float32 and float64"):
        f(np.ones(2, np.float32), np.ones(2, np.float64))


def test_python_control_flow_on_tensors_is_rejected():
    @ms.jit
    def f(x):
        if x.sum() > 0:
            return x
        return -x

    with pytest.raises(TypeError, match="ms.ops.where"):
        f(np.ones(2, np.float32))


def test_bad_reshape_and_index():
    with pytest.raises(ms.CompileError, match="cannot reshape"):
        ms.jit(lambda x: x.reshape(5, -1))(np.ones((2, 3), np.float32))
    with pytest.raises(ms.CompileError, match="out of bounds"):
        ms.jit(lambda x: x[3])(np.ones((2, 3), np.float32))
    with pytest.raises(ms.CompileError, match="too many indices"):
        ms.jit(lambda x: x[0, 0, 0])(np.ones((2, 3), np.float32))


def test_unsupported_values():
    with pytest.raises(ms.CompileError, match="returns None; expected tensors"):
        ms.jit(lambda x: None)(np.ones(2, np.float32))
    with pytest.raises(ms.CompileError, match="expected tensors"):
        ms.jit(lambda x: (x + 1, "text"))(np.ones(2, np.float32))
    with pytest.raises(TypeError, match="unsupported dtype"):
        ms.jit(lambda x: x)(np.ones(2, np.complex64))


def test_tensor_leaking_from_another_trace():
    leaked = []

    @ms.jit
    def first(x):
        leaked.append(x)
        return x + 1

    first(np.ones(2, np.float32))

    @ms.jit
    def second(y):
        return y + leaked[0]

    with pytest.raises(ms.CompileError, match="another trace"):
        second(np.ones(2, np.float32))


def test_ops_outside_a_trace_need_arrays():
    with pytest.raises(ms.CompileError, match="inside an @ms.jit"):
        ops.constant(1.0)


def test_lower_prints_each_stage(rng):
    @ms.jit
    def f(x):
        return ops.softmax(x * 2.0)

    a = rng.standard_normal((2, 8)).astype(np.float32)
    lowered = f.lower(a)
    traced = lowered.as_text("traced")
    assert "msgraph.softmax" in traced and os.path.basename(__file__) in traced
    assert "msgraph.softmax" in lowered.as_text("graph")
    assert "linalg.generic" in lowered.as_text("linalg")
    assert "llvm.func" in lowered.as_text("llvm")
    with pytest.raises(ms.CompileError, match="unknown stage"):
        lowered.as_text("assembly")


def test_threads_share_one_function(rng):
    @ms.jit
    def f(x, y):
        return ops.tanh(x @ y)

    inputs = [(rng.standard_normal((16, 32)).astype(np.float32),
               rng.standard_normal((32, 8)).astype(np.float32))
              for _ in range(8)]
    expected = [np.tanh(x.astype(np.float64) @ y) for x, y in inputs]
    errors = []

    def worker(k):
        try:
            for _ in range(25):
                i = (k * 3 + _) % len(inputs)
                out = f(*inputs[i])
                np.testing.assert_allclose(out, expected[i], rtol=1e-4,
                                           atol=1e-5)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert f.cache_info()["traces"] == 1



class ArrayLike:
    """An array-like that is not an ndarray (like a torch tensor)."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array__(self, dtype=None):
        return self.data if dtype is None else self.data.astype(dtype)


def test_array_likes_are_inputs_not_static():
    f = ms.jit(lambda x: ops.exp(x))
    t = ArrayLike(np.zeros(3, np.float32))
    assert_close(f(t), np.ones(3, np.float32))
    t.data += 1
    assert_close(f(t), np.exp(np.ones(3, np.float32)), rtol=1e-6)
    assert_close(f(ArrayLike(np.zeros(3, np.float32))),
                 np.ones(3, np.float32))
    assert f.cache_info()["signatures"] == 1


def test_torch_tensors_are_inputs(rng):
    torch = pytest.importorskip("torch")
    f = ms.jit(lambda x, y: x @ y)
    a = torch.randn(3, 4)
    b = torch.randn(4, 2)
    assert_close(f(a, b), (a @ b).numpy(), rtol=1e-5, atol=1e-6)


def test_big_endian_inputs_are_rejected(tmp_path):
    f = ms.jit(lambda x: x * 2.0)
    with pytest.raises(TypeError, match="unsupported dtype"):
        f(np.ones(3, ">f4"))


def test_malformed_builder_attributes_are_errors():
    builder = ms._ms.GraphBuilder()
    x = builder.add_input("x", "f32", [2, 3])
    with pytest.raises(ms.CompileError, match="axis"):
        builder.add_op("msgraph.softmax", [x], '{axis = "a"}')
    with pytest.raises(ms.CompileError, match="too large"):
        builder.add_input("y", "f32", [2 ** 32, 2 ** 32])
    with pytest.raises(ValueError, match="not C-contiguous"):
        builder.add_constant(np.arange(4, dtype=np.int32)[::-1], "i32", [4])
