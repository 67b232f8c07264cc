"""ms.compile_file / ms.load / Module: ONNX models from Python, module files
written by ms-compile, and the errors of bad inputs and bad files."""

import os
import subprocess

import numpy as np
import pytest

import ms

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
ONNX_INPUTS = os.path.join(ROOT, "test", "Importer", "ONNX", "Inputs")
W = np.array([1.0, -2.0, 0.5], np.float32)  # add-relu.onnx's initializer


def add_relu(x):
    return np.maximum(x, 0) + W


@pytest.fixture(scope="module")
def model():
    return ms.compile_file(os.path.join(ONNX_INPUTS, "add-relu.onnx"))


def test_compile_file_runs_the_model(model, rng):
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(model(x), add_relu(x))
    assert model.inputs == [("x", "f32", (2, 3))]
    assert model.outputs == [("y", "f32", (2, 3))]
    assert "x: f32[2, 3]" in repr(model)


def test_inputs_by_name_and_as_lists(model):
    x = [[1.0, -1.0, 2.0], [0.0, 3.0, -4.0]]
    expected = add_relu(np.array(x, np.float32))
    np.testing.assert_array_equal(model(x=x), expected)
    np.testing.assert_array_equal(model(x), expected)


def test_save_and_load(model, tmp_path, rng):
    path = tmp_path / "m.msm"
    model.save(path)
    loaded = ms.load(path)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(loaded(x), add_relu(x))
    # Saving a loaded module copies its file.
    again = tmp_path / "again.msm"
    loaded.save(again)
    assert again.read_bytes() == path.read_bytes()


def test_load_a_module_written_by_ms_compile(tmp_path, rng):
    tool = os.path.join(ROOT, "build", "bin", "ms-compile")
    tool = os.environ.get("MS_COMPILE", tool)
    if not os.path.exists(tool):
        pytest.skip(f"{tool} not built")
    out = tmp_path / "mlp.msm"
    subprocess.run([tool, os.path.join(ROOT, "examples", "mlp.mlir"), "-o",
                    str(out)], check=True)
    module = ms.load(out)
    (name, dtype, shape), = module.inputs
    y = module(rng.standard_normal(shape).astype(np.float32))
    assert y.shape == module.outputs[0][2]
    np.testing.assert_allclose(y.sum(-1), 1, rtol=1e-5)  # softmax rows


def test_dynamic_dims_are_pinned(rng):
    path = os.path.join(ONNX_INPUTS, "dynamic-batch.onnx")
    model = ms.compile_file(path, input_shapes={"x": (5, 3)})
    x = rng.standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_array_equal(model(x), np.maximum(x, 0))

    with pytest.raises(ms.CompileError, match="input shape is given for 'y'"):
        ms.compile_file(path, input_shapes={"y": (5, 3)})

def test_wrong_inputs_are_errors(model):
    with pytest.raises(ms.ExecutionError, match=r"input 'x': expected shape "
                       r"\(2, 3\), but found \(3, 2\)"):
        model(np.zeros((3, 2), np.float32))
    with pytest.raises(ms.ExecutionError,
                       match="input 'x': expected dtype f32"):
        model(np.zeros((2, 3), np.float64))
    with pytest.raises(TypeError, match="takes 1 inputs, but 2 were given"):
        model(np.zeros((2, 3), np.float32), np.zeros(1))
    with pytest.raises(TypeError, match="unknown input 'z'"):
        model(z=np.zeros((2, 3), np.float32))


@pytest.mark.parametrize("name,pattern", [
    ("unsupported-ops.onnx", "FancyOp"),
    ("truncated.onnx", "truncated.onnx"),
    ("garbage.onnx", "garbage.onnx"),
    ("cycle.onnx", "cycle"),
])
def test_bad_models_raise_compile_errors(name, pattern):
    with pytest.raises(ms.CompileError, match=pattern):
        ms.compile_file(os.path.join(ONNX_INPUTS, name))


def test_missing_and_misnamed_files(tmp_path):
    with pytest.raises(ms.CompileError, match="cannot read"):
        ms.compile_file(tmp_path / "missing.onnx")
    with pytest.raises(ValueError, match="expected an ONNX model"):
        ms.compile_file(tmp_path / "model.pb")
    with pytest.raises(ms.ExecutionError):
        ms.load(tmp_path / "missing.msm")


def test_corrupt_module_files(model, tmp_path):
    path = tmp_path / "m.msm"
    model.save(path)
    data = bytearray(path.read_bytes())
    for damaged in (data[:len(data) // 2], b"", b"MSMX" + bytes(data[4:]),
                    bytes(b ^ 0x5A if i == len(data) - 10 else b
                          for i, b in enumerate(data))):
        bad = tmp_path / "bad.msm"
        bad.write_bytes(bytes(damaged))
        with pytest.raises(ms.ExecutionError):
            ms.load(bad)
