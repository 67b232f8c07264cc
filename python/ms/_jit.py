"""`ms.jit`: trace a Python function once per signature, compile it through
the same pipeline as `ms-compile`, and run it on the runtime.

Array arguments (NumPy arrays and scalars) are the compiled module's inputs;
their shapes and dtypes form the signature. Every other argument is static:
it is passed to the function as is while tracing and is part of the
signature, so it must be hashable. The function returns a tensor, or a tuple,
list or dict of them.
"""

import functools
import inspect
import threading

import numpy as np

from . import _cache, _ms, _tracing
from ._tracing import Tensor, compile_error

_LEVELS = {"O0": 0, "O1": 1, "O2": 2, 0: 0, 1: 1, 2: 2}


def _level(level):
    try:
        return _LEVELS[level]
    except (KeyError, TypeError):
        raise ValueError(f"unknown optimization level {level!r}; expected "
                         "'O0', 'O1' or 'O2'") from None


def _target_cpu(target, target_cpu):
    """The processor to compile for: on cuda an architecture (ms-compile's
    --cuda-arch: "sm_80" ... "sm_120a"), where "native" is the GPU's own
    (compute capability 9.0: "sm_90a"; 8.6: "sm_86"), or the compiler's
    default (sm_90a) when no GPU is here to ask."""
    target_cpu = str(target_cpu)
    if str(target) != "cuda" or target_cpu != "native":
        return target_cpu
    from ._ms import CompileError, ExecutionError
    try:
        device = _ms.device_arch("cuda")
    except ExecutionError:
        return target_cpu
    arch = _ms.cuda_arch_for(device)
    if not arch:
        raise CompileError(f"the GPU ({device}) is older than every "
                           "architecture ms generates code for (sm_80 and "
                           "newer)")
    return arch


def _precision(precision):
    """The compiler's name of `precision`: "" (None: the target's
    default), "f32", "tf32", "bf16" or "f16"."""
    if precision is None:
        return ""
    if precision not in ("f32", "tf32", "bf16", "f16"):
        raise ValueError(f"unknown precision {precision!r}; expected None, "
                         "'f32', 'tf32', 'bf16' or 'f16'")
    return precision


def _is_array(value):
    """NumPy arrays and scalars, and other array-likes (torch tensors, ...)
    that export __array__ or __array_interface__."""
    return isinstance(value, (np.ndarray, np.generic)) or (
        not isinstance(value, (str, bytes, type)) and (
            hasattr(value, "__array_interface__")
            or hasattr(type(value), "__array__")))


def _arg_key(value):
    if type(value) is np.ndarray:
        return (value.shape, value.dtype)
    if _is_array(value):
        value = np.asarray(value)
        return (value.shape, value.dtype)
    try:
        hash(value)
    except TypeError:
        raise TypeError(
            f"ms.jit: argument {value!r} is neither an array nor hashable; "
            "non-array arguments are static and key the compiled-module "
            "cache") from None
    return ("static", type(value), value)


# --- output trees ---------------------------------------------------------

def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return (type(tree), [_flatten(t, leaves) for t in tree])
    if isinstance(tree, dict):
        return (dict, [(k, _flatten(v, leaves)) for k, v in tree.items()])
    leaves.append(tree)
    return None


def _unflatten(spec, leaves):
    if spec is None:
        return next(leaves)
    kind, children = spec
    if kind is dict:
        return {k: _unflatten(c, leaves) for k, c in children}
    return kind(_unflatten(c, leaves) for c in children)


class Lowered:
    """A traced function for one signature: print it at a pipeline stage or
    compile it."""

    def __init__(self, builder, settings):
        self._builder = builder
        self._settings = settings

    def as_text(self, stage="graph"):
        """The IR at `stage`: "traced" (as traced, with source locations),
        or a compiler stage: graph, kernels, linalg, bufferized, llvm,
        llvmir, plan."""
        if stage == "traced":
            return self._builder.print(True)
        level, target, target_cpu, multi_copy, precision = self._settings
        return self._builder.lower(stage, level, target, target_cpu,
                                   multi_copy, precision)


class _Entry:
    __slots__ = ("executable", "positions", "spec", "single", "all_dynamic")

    def __init__(self, executable, positions, spec, count):
        self.executable = executable
        self.positions = positions
        self.spec = spec
        self.single = spec is None
        self.all_dynamic = positions == list(range(count))

    def __call__(self, args):
        if self.all_dynamic:
            outputs = self.executable.run(args)
        else:
            outputs = self.executable.run([args[i] for i in self.positions])
        # Array-likes without the buffer protocol are converted by the
        # runtime binding (one copy).
        if self.single:
            return outputs[0]
        return _unflatten(self.spec, iter(outputs))


class JitFunction:
    """A function compiled on first call for each signature (see ms.jit)."""

    def __init__(self, fn, level="O0", target="cpu", target_cpu="native",
                 mesh=None, in_shardings=None, out_shardings=None,
                 multi_copy=1, precision=None):
        functools.update_wrapper(self, fn)
        from .sharding import Mesh, P
        if mesh is not None and not isinstance(mesh, Mesh):
            raise TypeError(f"ms.jit: mesh must be an ms.Mesh, but found "
                            f"{mesh!r}")
        if mesh is None and (in_shardings is not None
                             or out_shardings is not None):
            raise TypeError("ms.jit: in_shardings and out_shardings need a "
                            "mesh (mesh=ms.Mesh(...))")
        if isinstance(in_shardings, P):
            in_shardings = (in_shardings,)
        for spec in (in_shardings or ()):
            if spec is not None and not isinstance(spec, P):
                raise TypeError(f"ms.jit: in_shardings entries must be ms.P "
                                f"or None, but found {spec!r}")
        self._mesh = mesh
        self._in_shardings = tuple(in_shardings) if in_shardings else ()
        self._out_shardings = out_shardings
        if not hasattr(self, "__qualname__"):
            self.__qualname__ = getattr(fn, "__name__", repr(fn))
        self._fn = fn
        if multi_copy == "auto":
            multi_copy = 0  # CompileOptions' kMultiCopyAuto
        elif not isinstance(multi_copy, int) or isinstance(multi_copy, bool) \
                or not 1 <= multi_copy <= 64:
            raise ValueError(f"ms.jit: multi_copy must be an int from 1 to "
                             f"64 or \"auto\", but found {multi_copy!r}")
        if multi_copy != 1 and mesh is None:
            raise TypeError("ms.jit: multi_copy splits the regions around "
                            "collectives; it needs a mesh (mesh=ms.Mesh(...))")
        self._settings = (_level(level), str(target), _target_cpu(target, target_cpu),
                          multi_copy, _precision(precision))
        self._entries = {}
        self._lock = threading.RLock()
        self._stats = {"traces": 0, "compiles": 0, "disk_hits": 0}
        try:
            self._signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self._signature = None
        self._names = []
        self._varargs = None
        if self._signature is not None:
            for p in self._signature.parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    self._names.append(p.name)
                elif p.kind == p.VAR_POSITIONAL:
                    self._varargs = p.name

    def __call__(self, *args, **kwargs):
        if kwargs:
            args = self._positional(args, kwargs)
        if _tracing.current_trace() is not None and any(
                isinstance(a, Tensor) for a in args):
            # Called from another jitted function: inline.
            return self._fn(*args)
        try:
            key = tuple([_arg_key(a) for a in args])
        except TypeError as error:
            raise TypeError(f"{self.__qualname__}: {error}") from None
        entry = self._entries.get(key)
        if entry is None:
            entry = self._build(key, args)
        return entry(args)

    def lower(self, *args, **kwargs):
        """Traces the function for these arguments; returns a Lowered."""
        if kwargs:
            args = self._positional(args, kwargs)
        builder, _, _ = self._trace(args)
        return Lowered(builder, self._settings)

    def cache_info(self):
        """Counts: traces, compiles and disk-cache hits by this function;
        `signatures` is the number of compiled signatures in memory."""
        with self._lock:
            info = dict(self._stats)
            info["signatures"] = len(self._entries)
        return info

    def clear_cache(self):
        """Forgets the compiled signatures held in memory."""
        with self._lock:
            self._entries = {}

    # -- internals ---------------------------------------------------------

    def _positional(self, args, kwargs):
        if self._signature is None:
            raise TypeError(f"{self.__qualname__}: keyword arguments need "
                            "an inspectable signature")
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        if bound.kwargs:
            raise TypeError(f"{self.__qualname__}: keyword-only arguments "
                            "are not supported by ms.jit")
        return bound.args

    def _input_name(self, index):
        if index < len(self._names):
            return self._names[index]
        return f"{self._varargs or 'arg'}_{index}"

    def _trace(self, args):
        trace = _tracing.Trace(getattr(self._fn, "__qualname__", "fn"))
        positions = []
        if self._mesh is not None:
            trace.builder.set_mesh(list(self._mesh.shape),
                                   list(self._mesh.axis_names))
            if len(self._in_shardings) > len(args):
                raise TypeError(
                    f"{self.__qualname__}: {len(self._in_shardings)} "
                    f"in_shardings for {len(args)} arguments")
        with trace:
            traced = []
            for i, arg in enumerate(args):
                if _is_array(arg):
                    arg = np.asarray(arg)
                    traced.append(trace.input(self._input_name(i), arg.dtype,
                                              arg.shape))
                    if i < len(self._in_shardings) and \
                            self._in_shardings[i] is not None:
                        trace.builder.set_input_sharding(
                            len(positions), self._in_shardings[i].text())
                    positions.append(i)
                else:
                    traced.append(arg)
            result = self._fn(*traced)
            leaves = []
            spec = _flatten(result, leaves)
            if not leaves:
                raise compile_error(
                    f"{self.__qualname__} returns no tensor", *self._where())
            outputs = []
            seen = set()
            for leaf in leaves:
                if not isinstance(leaf, Tensor):
                    if _is_array(leaf):
                        leaf = trace.constant(np.asarray(leaf))
                    else:
                        raise compile_error(
                            f"{self.__qualname__} returns {leaf!r}; expected "
                            "tensors (or tuples, lists, dicts of them)",
                            *self._where())
                if leaf.trace is not trace:
                    raise compile_error(
                        f"{self.__qualname__} returns a tensor of another "
                        "trace", *self._where())
                # Each output gets its own buffer: copy repeated outputs
                # and inputs returned as they are.
                if (leaf.value in seen or leaf.value < len(positions)
                        or leaf.value in trace.constants):
                    leaf = trace.op("msgraph.identity", [leaf])
                seen.add(leaf.value)
                outputs.append(leaf.value)
            trace.builder.finish(outputs)
            self._set_output_shardings(trace, len(outputs))
        self._stats["traces"] += 1
        return trace.builder, positions, spec

    def _set_output_shardings(self, trace, count):
        from .sharding import P
        specs = self._out_shardings
        if specs is None:
            return
        if isinstance(specs, P):
            specs = (specs,) * count
        specs = tuple(specs)
        if len(specs) != count:
            raise TypeError(f"{self.__qualname__}: {len(specs)} "
                            f"out_shardings for {count} outputs")
        for i, spec in enumerate(specs):
            if spec is not None:
                if not isinstance(spec, P):
                    raise TypeError(f"ms.jit: out_shardings entries must be "
                                    f"ms.P or None, but found {spec!r}")
                trace.builder.set_output_sharding(i, spec.text())

    def _where(self):
        code = getattr(self._fn, "__code__", None)
        if code is None:
            return ("", 0)
        return (code.co_filename, code.co_firstlineno)

    def _build(self, key, args):
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                return entry
            builder, positions, spec = self._trace(args)
            executable = _cache.load_or_compile(builder, self._settings,
                                                self._stats)
            entry = _Entry(executable, positions, spec, len(args))
            self._entries[key] = entry
            return entry


def jit(fn=None, *, level="O0", target="cpu", target_cpu="native", mesh=None,
        in_shardings=None, out_shardings=None, multi_copy=1, precision=None):
    """Compiles `fn` on first call for each signature and runs it with the
    ms runtime. Use as `@ms.jit`, `@ms.jit(level="O0")` or `ms.jit(fn)`.

    level: "O0" (one kernel per op, run kernel by kernel), "O1" (fused
        groups of ops, one kernel each) or "O2" (the fused kernels compiled
        into one native function).
    target: "cpu"; "cuda" (O0 and O1: the function runs on the first
        GPU, its NumPy inputs copied there and its outputs back; needs an
        NVIDIA driver); or "npu" (O0 and O1: on the simulated NPU, matmuls
        with fp16 inputs, docs/NPU.md).
    target_cpu: "native" (the host's vector features) or an LLVM CPU name
        such as "x86-64" for portable code. On cuda, the GPU architecture:
        "native" (default) is the first GPU's (compute capability 9.0:
        "sm_90a", 8.0: "sm_80"; "sm_90a" when no GPU is here), or name one
        of ms-compile's --cuda-arch ("sm_80" ... "sm_120a").
    mesh: an ms.Mesh: compile one program per mesh device (process), run
        under `python3 -m ms.launch --nproc N` or `mpirun -np N`.
    in_shardings: one ms.P (or None: whole) per positional argument: how
        each array argument is split over the mesh. Every rank passes the
        whole arrays.
    out_shardings: an ms.P for every output, or one per output (default:
        whole on every rank).
    multi_copy: with a mesh, split the regions around collectives into
        this many copies so that one copy's communication overlaps the next
        copy's compute (docs/MultiCopy.md); 1 (default): no split; "auto":
        1, 2 or 4, whichever a simulation of the plans finds fastest.
    precision: the type matmuls multiply in; None (default): the
        target's (cpu: "f32"; npu: "f16", the cube's). On the cpu, "bf16":
        matmuls whose weights are constants (arrays the function closes
        over) store them in bfloat16 and round their other operand to
        bfloat16, summing in f32 (docs/Performance.md states the error
        bound). On the npu, "f16", "bf16" or "f32": the cube's input type,
        sums in f32 (docs/NPU.md: accuracy and cost of each).
    """
    if fn is None:
        return functools.partial(jit, level=level, target=target,
                                 target_cpu=target_cpu, mesh=mesh,
                                 in_shardings=in_shardings,
                                 out_shardings=out_shardings,
                                 multi_copy=multi_copy, precision=precision)
    return JitFunction(fn, level, target, target_cpu, mesh, in_shardings,
                       out_shardings, multi_copy, precision)
