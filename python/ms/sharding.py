"""Sharding in JAX's conventions: `Mesh`, `P` (a partition spec) and
`shard`, used with `ms.jit(fn, mesh=..., in_shardings=...,
out_shardings=...)`:

    mesh = ms.Mesh((2, 2), ("dp", "tp"))
    f = ms.jit(fn, mesh=mesh, in_shardings=(ms.P("dp", None), ms.P(None, "tp")),
               out_shardings=ms.P("dp", None))
    y = f(x, w)   # every rank passes the whole arrays; y is whole

The compiled module runs one process per mesh device: start the script with
`python3 -m ms.launch --nproc 4 script.py` or `mpirun -np 4 python3
script.py`. Layouts not given are propagated through the graph; the
compiler inserts the communication (docs/spec/msdist.md).
"""

from . import _tracing


class Mesh:
    """A grid of devices with named axes: Mesh((2, 2), ("dp", "tp")) is 4
    devices, rank r at the row-major position of r."""

    def __init__(self, shape, axis_names):
        if isinstance(shape, int):
            shape = (shape,)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        self.shape = tuple(_tracing.integer(d, "a mesh dim") for d in shape)
        self.axis_names = tuple(str(a) for a in axis_names)
        if len(self.shape) != len(self.axis_names) or not self.shape:
            raise ValueError(f"Mesh{self.shape}: expected one axis name per "
                             f"dim, but found {len(self.axis_names)} names")
        if any(d < 1 for d in self.shape):
            raise ValueError(f"Mesh{self.shape}: dims must be at least 1")
        if len(set(self.axis_names)) != len(self.axis_names):
            raise ValueError(f"Mesh axis names must be distinct, but found "
                             f"{self.axis_names}")

    @property
    def size(self):
        """The number of devices (processes)."""
        size = 1
        for d in self.shape:
            size *= d
        return size

    def __eq__(self, other):
        return isinstance(other, Mesh) and (self.shape, self.axis_names) == \
            (other.shape, other.axis_names)

    def __hash__(self):
        return hash((self.shape, self.axis_names))

    def __repr__(self):
        return f"Mesh({self.shape}, {self.axis_names})"


class P(tuple):
    """A partition spec: one entry per dim, a mesh axis name, a tuple of
    names (split over several axes, major first) or None (whole). Dims
    beyond the entries are whole; P() is replicated."""

    def __new__(cls, *dims):
        for d in dims:
            names = d if isinstance(d, tuple) else (d,)
            if d is not None and not all(isinstance(n, str) and n
                                         for n in names):
                raise TypeError(f"P{dims!r}: each entry must be a mesh axis "
                                "name, a tuple of names, or None")
        return super().__new__(cls, dims)

    def text(self):
        """The spec as the compiler reads it ("dp,-")."""
        parts = []
        for d in self:
            if d is None:
                parts.append("-")
            elif isinstance(d, tuple):
                parts.append("+".join(d))
            else:
                parts.append(d)
        return ",".join(parts)

    def __repr__(self):
        return "P(" + ", ".join(repr(d) for d in self) + ")"


def shard(x, spec):
    """Inside a traced function (MindSpore's shard()): `x` laid out as
    `spec` says; propagation starts from it. Outside a trace, returns `x`."""
    from ._tracing import Tensor, current_trace, user_location, with_source
    from . import _ms
    if not isinstance(spec, P):
        raise TypeError(f"ms.shard: expected an ms.P spec, but found {spec!r}")
    trace = current_trace()
    if trace is None or not isinstance(x, Tensor):
        return x
    file, line = user_location()
    try:
        value = trace.builder.add_constraint(x.value, spec.text(), file, line)
    except _ms.CompileError as error:
        raise _ms.CompileError(with_source(str(error), file, line)) from None
    return Tensor(trace, value, x.shape, x.dtype)
