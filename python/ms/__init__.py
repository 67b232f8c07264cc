"""ms: an MLIR-based ML compiler, from Python.

    import numpy as np
    import ms
    from ms import ops

    @ms.jit
    def mlp(x, w1, b1, w2, b2):
        return ops.softmax(ops.gelu(x @ w1 + b1) @ w2 + b2)

    y = mlp(x, w1, b1, w2, b2)          # traced, compiled, run; cached

Also `ms.compile_file("model.onnx")` and `ms.load("model.msm")`, which return
callable modules, and `mlp.lower(*args).as_text("linalg")` to see the IR.
"""

import os as _os

from . import _ms
from ._ms import CompileError, Error, ExecutionError
from ._cache import cache_dir
from ._jit import JitFunction, Lowered, jit
from .sharding import Mesh, P, shard
from . import distributed, ops

__version__ = "0.1.0"

__all__ = [
    "CompileError", "Error", "ExecutionError", "JitFunction", "Lowered",
    "Mesh", "Module", "P", "cache_dir", "compile_file", "distributed", "jit",
    "load", "ops", "shard",
]


class Module:
    """A compiled module loaded on the CPU: call it with one array per input
    (positionally, or by input name); returns one array, or a tuple when the
    module has several outputs."""

    def __init__(self, executable, data=None):
        self._executable = executable
        self._data = data
        self._names = [name for name, _, _ in executable.inputs]

    @property
    def inputs(self):
        """[(name, dtype, shape)] of the inputs."""
        return self._executable.inputs

    @property
    def outputs(self):
        """[(name, dtype, shape)] of the outputs."""
        return self._executable.outputs

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = list(args) + [None] * (len(self._names) - len(args))
            for name, value in kwargs.items():
                if name not in self._names:
                    raise TypeError(f"unknown input '{name}'; expected one "
                                    f"of {', '.join(self._names)}")
                args[self._names.index(name)] = value
            missing = [n for n, a in zip(self._names, args) if a is None]
            if missing:
                raise TypeError(f"missing inputs: {', '.join(missing)}")
        outputs = self._executable.run(args)
        return outputs[0] if len(outputs) == 1 else outputs

    def save(self, path):
        """Writes the module file to `path` (atomically). A module compiled
        with --external-weights refers to its weight files by a path
        relative to its directory when they lay inside it: save it beside
        them (or copy them along)."""
        from ._cache import write_atomically
        if self._data is None:
            with open(self._executable.path, "rb") as f:
                data = f.read()
        else:
            data = self._data
        write_atomically(_os.fspath(path), data)

    def __repr__(self):
        def sig(tensors):
            return ", ".join(f"{n}: {d}{list(s)}" for n, d, s in tensors)
        return f"<ms.Module ({sig(self.inputs)}) -> ({sig(self.outputs)})>"


def load(path, device="cpu"):
    """Loads a module file (.msm) written by ms-compile or Module.save on
    `device` ("cpu"; "cuda" for a module compiled with --target cuda:
    NumPy inputs are copied to the GPU and the outputs back; "npu" for one
    compiled with --target npu, run on the simulated NPU)."""
    return Module(_ms.Executable(_os.fspath(path), str(device)))


def compile_file(path, level="O0", target="cpu", target_cpu="native",
                 input_shapes=None, precision=None):
    """Compiles an ONNX model; `input_shapes` ({name: shape}) pins dynamic
    dimensions; `precision` is the type matmuls multiply in (None: the
    target's default; see ms.jit); `target_cpu` is the processor (on cuda
    the GPU architecture, "native" the GPU's own; see ms.jit). Returns a
    callable Module, loaded on the target's device."""
    from ._jit import _level, _precision, _target_cpu
    from ._cache import write_atomically, _process_dir
    import tempfile
    path = _os.fspath(path)
    if not path.endswith(".onnx"):
        raise ValueError(f"unsupported model '{path}': expected an ONNX "
                         "model (.onnx)")
    shapes = {name: [int(d) for d in shape]
              for name, shape in (input_shapes or {}).items()}
    _ms.check_device(str(target))
    data = _ms.compile_onnx_file(path, _level(level), str(target),
                                 _target_cpu(target, target_cpu), shapes,
                                 _precision(precision))
    fd, module_path = tempfile.mkstemp(dir=_process_dir(), suffix=".msm")
    _os.close(fd)
    write_atomically(module_path, data)
    return Module(_ms.Executable(module_path, str(target)), data)
