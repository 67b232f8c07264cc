#!/usr/bin/python3
"""Benchmarks the 64x1024 -> 4096 -> 1024 GELU MLP (bench/mlp_gelu.mlir)
compiled by ms-compile and run by ms-run, side by side with NumPy on the same
machine in the same run, and prints the ratios.

Usage: bench/mlp_gelu.py [--build-dir build] [--iters 20]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np


def median_ms(fn, iters):
    for _ in range(3):
        fn()
    times = []
    for _ in range(iters):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(os.path.dirname(__file__), "..", "build"))
    ap.add_argument("--iters", type=int, default=20)
    args = ap.parse_args()
    bindir = os.path.join(args.build_dir, "bin")
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "mlp.msm")
        subprocess.run([os.path.join(bindir, "ms-compile"), os.path.join(here, "mlp_gelu.mlir"),
                        "-o", module], check=True)
        out = subprocess.run([os.path.join(bindir, "ms-run"), module, "--bench", str(args.iters)],
                             check=True, capture_output=True, text=True).stdout
        ms_mlp = float(re.search(r"median_ms: ([0-9.]+)", out).group(1))

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (64, 1024)).astype(np.float32)
    w1 = rng.uniform(-1, 1, (1024, 4096)).astype(np.float32)
    b1 = rng.uniform(-1, 1, 4096).astype(np.float32)
    w2 = rng.uniform(-1, 1, (4096, 1024)).astype(np.float32)
    b2 = rng.uniform(-1, 1, 1024).astype(np.float32)

    def numpy_mlp():
        h = x @ w1 + b1
        h = 0.5 * h * (1 + np.tanh(0.7978845608 * (h + 0.044715 * h ** 3)))
        return h @ w2 + b2

    np_matmul = median_ms(lambda: x @ w1, args.iters)
    np_mlp = median_ms(numpy_mlp, args.iters)
    print("machine: %d cores; numpy %s" % (os.cpu_count(), np.__version__))
    print("%-44s %10s" % ("what", "median ms"))
    print("%-44s %10.3f" % ("ms (O0, cpu) GELU MLP 64x1024->4096->1024", ms_mlp))
    print("%-44s %10.3f" % ("numpy GELU MLP (tanh GELU)", np_mlp))
    print("%-44s %10.3f" % ("numpy one matmul 64x1024 @ 1024x4096", np_matmul))
    print("ratio ms MLP / numpy MLP:    %.2fx" % (ms_mlp / np_mlp))
    print("ratio ms MLP / numpy matmul: %.2fx" % (ms_mlp / np_matmul))
    return 0


if __name__ == "__main__":
    sys.exit(main())
