#!/usr/bin/python3
"""Measures the CPU convolution kernels: each distinct convolution of
ResNet-18 at batch 1, 224x224 (with its ReLU), compiled by ms
(`ms-compile -O1 --target-cpu native`, `ms-run --bench`) side by side with
ONNX Runtime (MLAS, CPU provider, graph optimization "all", through
bench/ort/run.js) in one run, with the same thread count.

Rounds alternate the order of the two; the table shows the median per-call
time and GFLOP/s (2 * Cout * Cin * KH * KW * OH * OW per call) of each, the
ratio ORT/ms (above 1: ms is faster) and the largest absolute difference
between the two outputs.

Requirements: python3-torch and python3-onnx (Debian) to export the convs;
node and `npm ci --ignore-scripts` in bench/ort for ONNX Runtime. Threads:
ms uses OpenMP (OMP_NUM_THREADS), ORT intra-op threads; --threads sets both
(default: all cores).

Usage: bench/conv.py [--build-dir build] [--rounds 5] [--threads N]
                     [--layers stem,l1,...]
"""
import argparse
import json
import os
import re
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchutil import cpu_name, print_table, run  # noqa: E402

# name: (in channels, out channels, kernel, stride, pad, input size)
LAYERS = {
    "stem": (3, 64, 7, 2, 3, 224),
    "l1": (64, 64, 3, 1, 1, 56),
    "l2-s2": (64, 128, 3, 2, 1, 56),
    "l2-down": (64, 128, 1, 2, 0, 56),
    "l2": (128, 128, 3, 1, 1, 28),
    "l3-s2": (128, 256, 3, 2, 1, 28),
    "l3": (256, 256, 3, 1, 1, 14),
    "l4-s2": (256, 512, 3, 2, 1, 14),
    "l4": (512, 512, 3, 1, 1, 7),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--layers", default=",".join(LAYERS))
    ap.add_argument("--min-time", type=float, default=0.3,
                    help="seconds one timing should take")
    args = ap.parse_args()
    import torch
    from torch import nn

    names = [n.strip() for n in args.layers.split(",") if n.strip()]
    unknown = [n for n in names if n not in LAYERS]
    if unknown:
        ap.error("unknown layer %r; expected %s" % (unknown[0], ", ".join(LAYERS)))
    bindir = os.path.join(args.build_dir, "bin")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    work = tempfile.mkdtemp(prefix="ms-bench-conv-")
    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    jobs, flops, diffs = {}, {}, {}
    for name in names:
        cin, cout, k, s, p, hw = LAYERS[name]
        path = os.path.join(work, name)
        module = nn.Sequential(nn.Conv2d(cin, cout, k, s, p), nn.ReLU()).eval()
        torch.onnx.export(module, torch.randn(1, cin, hw, hw), path + ".onnx",
                          opset_version=17, input_names=["x"], output_names=["y"])
        x = rng.standard_normal((1, cin, hw, hw)).astype(np.float32)
        np.save(path + "-x.npy", x)
        x.tofile(path + "-x.f32")
        run([os.path.join(bindir, "ms-compile"), path + ".onnx", "-O1",
             "--target-cpu", "native", "-o", path + ".msm"])
        run([os.path.join(bindir, "ms-run"), path + ".msm", "--input",
             "x=" + path + "-x.npy", "--output-dir", path + "-ms"], env)
        with open(path + "-spec.json", "w") as f:
            json.dump({"inputs": [{"name": "x", "shape": [1, cin, hw, hw],
                                   "file": path + "-x.f32"}],
                       "outputs_dir": path + "-ort"}, f)
        ort = ["node", os.path.join(ROOT, "bench", "ort", "run.js"), path + ".onnx",
               path + "-spec.json", "--threads", str(args.threads)]
        run(ort + ["--min-time", "0"])
        ours = np.load(os.path.join(path + "-ms", "y.npy")).ravel()
        theirs = np.fromfile(os.path.join(path + "-ort", "y.f32"), np.float32)
        diffs[name] = float(np.max(np.abs(ours.astype(np.float64) - theirs)))
        o = (hw + 2 * p - k) // s + 1
        flops[name] = 2.0 * cout * cin * k * k * o * o
        jobs[name, "ms"] = [os.path.join(bindir, "ms-run"), path + ".msm",
                            "--input", "x=" + path + "-x.npy"]
        jobs[name, "ort"] = ort

    def time_ms(key):
        if key[1] == "ort":
            out = run(jobs[key] + ["--min-time", str(args.min_time)])
            return json.loads(out)["median_ms"]
        once = float(re.search(r"median_ms: ([0-9.eE+-]+)",
                               run(jobs[key] + ["--bench", "3"], env)).group(1))
        calls = int(min(100000, max(3, args.min_time * 1000 / max(once, 1e-6))))
        out = run(jobs[key] + ["--bench", str(calls)], env)
        return float(re.search(r"median_ms: ([0-9.eE+-]+)", out).group(1))

    times = {key: [] for key in jobs}
    for r in range(args.rounds):
        for name in names:
            for col in (("ms", "ort") if r % 2 == 0 else ("ort", "ms")):
                times[name, col].append(time_ms((name, col)))

    print("machine: %s, %d cores; %d threads (ms: OpenMP, ORT: intra-op); "
          "--target-cpu native" % (cpu_name(), os.cpu_count() or 0, args.threads))
    print("median per-call time over %d rounds; ORT: onnxruntime-node, CPU, "
          "graph optimization all" % args.rounds)
    header = ["conv (+ReLU)", "ms ms", "ms GFLOP/s", "ORT ms", "ORT GFLOP/s",
              "ORT/ms", "max|ms-ORT|"]
    rows = []
    total = {"ms": 0.0, "ort": 0.0}
    for name in names:
        cin, cout, k, s, p, hw = LAYERS[name]
        med = {c: float(np.median(times[name, c])) for c in ("ms", "ort")}
        for c in med:
            total[c] += med[c]
        rows.append(["%s %dx%d %dx%d s%d @%d" % (name, cin, cout, k, k, s, hw),
                     "%.3f" % med["ms"], "%.1f" % (flops[name] / med["ms"] / 1e6),
                     "%.3f" % med["ort"], "%.1f" % (flops[name] / med["ort"] / 1e6),
                     "%.2fx" % (med["ort"] / med["ms"]), "%.2g" % diffs[name]])
    rows.append(["sum", "%.3f" % total["ms"], "", "%.3f" % total["ort"], "",
                 "%.2fx" % (total["ort"] / total["ms"]), ""])
    print_table(header, rows)


if __name__ == "__main__":
    main()
