"""Fuzzes the Python entry points' argument checking (docs/Testing.md).

    python_fuzz.py [--seed N] [--cases N | --seconds N] [--run-every N]

Each case calls one public op of `ms.ops` inside a traced function with
arguments drawn from a pool of valid and invalid values (tensors of random
dtypes and ranks, NumPy arrays, out-of-range and negative ints, huge ints,
NaN, None, strings, nested lists), lowers it to the graph stage (importer
verifier and graph passes included), and every `--run-every` case that
lowers also compiles and runs it. A loaded module is called with wrong
arguments too. The only acceptable failures are ms.Error (CompileError,
ExecutionError), TypeError and ValueError with a message; any other
exception is a bug and stops the run with the case that raised it. A crash
kills the process: the last "case N" line on stderr (with --trace) names it.
"""
import argparse
import inspect
import os
import random
import sys
import time
import traceback

import numpy as np

import ms
from ms import ops

# Helpers of the tracing machinery, not operations.
SKIP = {"Tensor", "boolean", "compile_error", "current_trace", "f32", "f64",
        "f64s", "i64", "i64s", "string"}
OPS = sorted(name for name in dir(ops)
             if not name.startswith("_") and name not in SKIP
             and callable(getattr(ops, name)))
DTYPES = [np.float32, np.float64, np.float16, np.int32, np.int64, np.int8,
          np.uint8, np.bool_]
ACCEPTED = (ms.Error, TypeError, ValueError)


class Case:
    """One generated call: arrays become traced inputs, the rest stay
    Python values."""

    def __init__(self, rng):
        self.rng = rng
        self.inputs = []

    def shape(self):
        rank = self.rng.choice([0, 1, 1, 2, 2, 3, 4, 5])
        return tuple(self.rng.choice([0, 1, 1, 2, 3, 4, 5])
                     for _ in range(rank))

    def array(self, shape=None):
        dtype = self.rng.choice(DTYPES)
        shape = self.shape() if shape is None else shape
        return (np.random.default_rng(self.rng.getrandbits(32))
                .standard_normal(shape) * 3).astype(dtype)

    def tensor(self):
        """A traced input: the position of a new function argument."""
        self.inputs.append(self.array())
        return ("input", len(self.inputs) - 1)

    def int_value(self):
        return self.rng.choice([0, 1, 2, 3, -1, -2, -7, 7, 64, 2**31,
                                2**63 - 1, -2**63, 2**64, 10**30])

    def value(self, depth=0):
        kind = self.rng.randrange(16)
        if kind < 5:
            return self.tensor()
        if kind == 5:
            return self.array()
        if kind == 6:
            return self.int_value()
        if kind == 7:
            return self.rng.choice([0.0, 0.5, -1.5, float("nan"),
                                    float("inf"), 1e300])
        if kind == 8:
            return self.rng.choice([None, True, False])
        if kind == 9:
            return self.rng.choice(["", "x", "float32", "int64", "same",
                                    "tanh", "none", "reflect", "\x00"])
        if kind in (10, 11):
            return tuple(self.int_value() if self.rng.random() < 0.3
                         else self.rng.randrange(-3, 5)
                         for _ in range(self.rng.randrange(0, 5)))
        if kind == 12 and depth < 2:
            return [self.value(depth + 1)
                    for _ in range(self.rng.randrange(0, 4))]
        if kind == 13:
            return self.rng.choice([np.float32, np.int64, np.bool_, "f32",
                                    "i64", "bf16", object])
        if kind == 14:
            return np.array(["a", "b"]) if self.rng.random() < 0.5 \
                else np.empty((2, 0, 3), np.float32)
        return [self.tensor() for _ in range(self.rng.randrange(0, 4))]


def resolve(value, traced):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "input":
        return traced[value[1]]
    if isinstance(value, list):
        return [resolve(v, traced) for v in value]
    return value


def describe(value):
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "input":
        return f"<input {value[1]}>"
    if isinstance(value, np.ndarray):
        return f"np.array({value.dtype}{list(value.shape)})"
    if isinstance(value, list):
        return "[" + ", ".join(describe(v) for v in value) + "]"
    return repr(value)


def make_case(rng):
    case = Case(rng)
    name = rng.choice(OPS)
    fn = getattr(ops, name)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    args, kwargs = [], {}
    for param in params:
        if param.kind == param.VAR_POSITIONAL:
            args.extend(case.value() for _ in range(rng.randrange(0, 4)))
        elif param.default is param.empty or rng.random() < 0.4:
            if param.default is param.empty and rng.random() < 0.7:
                # Mostly keep the tensor operands tensors.
                value = case.tensor() if rng.random() < 0.8 else case.value()
            else:
                value = case.value()
            if param.kind == param.KEYWORD_ONLY or (
                    param.default is not param.empty and rng.random() < 0.5):
                kwargs[param.name] = value
            else:
                args.append(value)
    # Now and then a wrong number of arguments.
    if rng.random() < 0.05:
        args.append(case.value())
    elif rng.random() < 0.05 and args:
        args.pop()
    return name, fn, args, kwargs, case.inputs


def check(outcome, label):
    """Raises AssertionError unless `outcome` is an acceptable failure."""
    if outcome is None:
        return
    if isinstance(outcome, ACCEPTED) and str(outcome).strip():
        return
    raise AssertionError(f"{label}: {type(outcome).__name__}: {outcome}")


def run_case(index, rng, run_every, trace):
    name, fn, args, kwargs, inputs = make_case(rng)
    label = (f"case {index}: ops.{name}("
             + ", ".join([describe(a) for a in args]
                         + [f"{k}={describe(v)}" for k, v in kwargs.items()])
             + ") with inputs "
             + ", ".join(f"{a.dtype}{list(a.shape)}" for a in inputs))
    if trace:
        print(label, file=sys.stderr, flush=True)

    def traced(*tensors):
        return fn(*resolve(args, tensors),
                  **{k: resolve(v, tensors) for k, v in kwargs.items()})

    function = ms.jit(traced)
    try:
        function.lower(*inputs).as_text("graph")
    except Exception as error:  # noqa: BLE001 - the point is to classify
        check(error, label)
        return "rejected"
    if run_every and index % run_every == 0:
        try:
            function(*inputs)
        except Exception as error:  # noqa: BLE001
            check(error, label + " (compiled and run)")
            return "rejected at run"
        return "ran"
    return "lowered"


def module_cases(rng, count):
    """Calls one small compiled module with wrong arguments."""
    module = ms.jit(lambda x, y: ops.add(x, y))
    x = np.ones((2, 3), np.float32)
    module(x, x)  # compiles
    case = Case(rng)
    for index in range(count):
        args = [case.value() for _ in range(rng.randrange(0, 4))]
        args = [case.array() if isinstance(a, tuple) and a[:1] == ("input",)
                else a for a in args]
        label = "module call (" + ", ".join(describe(a) for a in args) + ")"
        try:
            module(*args)
        except Exception as error:  # noqa: BLE001
            check(error, label)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=0)
    parser.add_argument("--run-every", type=int, default=25)
    parser.add_argument("--trace", action="store_true")
    options = parser.parse_args()
    if not options.cases and not options.seconds:
        options.cases = 500
    rng = random.Random(options.seed)
    start = time.monotonic()
    counts = {}
    index = 0
    try:
        module_cases(rng, 50)
        while True:
            if options.cases and index >= options.cases:
                break
            if options.seconds and time.monotonic() - start > options.seconds:
                break
            outcome = run_case(index, rng, options.run_every, options.trace)
            counts[outcome] = counts.get(outcome, 0) + 1
            index += 1
    except AssertionError as error:
        print(f"python_fuzz: seed {options.seed}, {error}")
        traceback.print_exc()
        return 1
    elapsed = time.monotonic() - start
    print(f"python_fuzz: {index} cases in {elapsed:.0f} s "
          f"({index / max(elapsed, 1e-9):.0f}/s), seed {options.seed}: "
          + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("MS_CACHE_DIR", "")
    sys.exit(main())
