#!/usr/bin/python3
"""Per-call overhead of a cached @ms.jit function on tiny inputs, side by
side in one run with a NumPy call and a torch eager call (when Debian's
python3-torch is installed), printed with ratios.

Each case computes the same tiny function on the same 4-element (or 8x8)
float32 inputs; the first call (trace + compile) is excluded. The time is the
median over `--repeats` batches of `--calls` calls, per call.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/jit_overhead.py
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "build", "python"))
import ms  # noqa: E402
from ms import ops  # noqa: E402


def per_call_us(fn, args, calls, repeats):
    fn(*args)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return float(np.median(samples))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        torch = None

    a = np.arange(4, dtype=np.float32)
    b = np.ones(4, dtype=np.float32)
    m = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32)
    cases = [
        ("add, 4 elements", ms.jit(lambda x, y: x + y), np.add,
         torch.add if torch else None, (a, b)),
        ("relu(x) * y, 4 elements", ms.jit(lambda x, y: ops.relu(x) * y),
         lambda x, y: np.maximum(x, 0) * y,
         (lambda x, y: torch.relu(x) * y) if torch else None, (a, b)),
        ("matmul + tanh, 8x8", ms.jit(lambda x, y: ops.tanh(x @ y)),
         lambda x, y: np.tanh(x @ y),
         (lambda x, y: torch.tanh(x @ y)) if torch else None, (m, m)),
    ]
    print(f"ms.jit per-call overhead ({args.calls} calls x {args.repeats}, "
          "median per call, microseconds)")
    header = f"{'case':<26} {'ms.jit':>8} {'numpy':>8} {'ms/numpy':>9}"
    if torch:
        header += f" {'torch':>8} {'ms/torch':>9}"
    print(header)
    for name, jitted, np_fn, torch_fn, inputs in cases:
        ms_us = per_call_us(jitted, inputs, args.calls, args.repeats)
        np_us = per_call_us(np_fn, inputs, args.calls, args.repeats)
        line = f"{name:<26} {ms_us:8.2f} {np_us:8.2f} {ms_us / np_us:8.1f}x"
        if torch:
            tensors = tuple(torch.from_numpy(x) for x in inputs)
            torch_us = per_call_us(torch_fn, tensors, args.calls,
                                   args.repeats)
            line += f" {torch_us:8.2f} {ms_us / torch_us:8.1f}x"
        print(line)
        assert jitted.cache_info()["traces"] == 1
    if not torch:
        print("(torch not installed: apt-get install python3-torch to add "
              "the torch column)")


if __name__ == "__main__":
    main()
