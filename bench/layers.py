#!/usr/bin/python3
"""Measures where a model's time goes, kernel by kernel: each kernel launch
of ms (`ms-run --bench N --trace`, spans per plan step) beside each node of
ONNX Runtime (its own profiler, per node kernel times), in the same run
of the same model (bench/fusion.py's models, exported the same way), as
medians over the timed runs.

Isolated kernels (bench/conv.py, bench/matmul.py) are not the same
comparison: an isolated ORT call pays ORT's per-call overhead, and an
isolated kernel finds its weights in cache where a whole model streams them
from memory. This script compares the kernels where they run.

Usage: bench/layers.py [--model resnet18] [--level O1] [--runs 100]
                       [--precision f32|bf16] [--threads N]
                       [--build-dir build] [--keep DIR]
"""
import argparse
import collections
import glob
import json
import os
import shutil
import statistics
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchutil import cpu_name, print_table, run  # noqa: E402
from fusion import build_models, export  # noqa: E402


def ms_steps(trace_path, runs):
    """Median duration (us) of each plan step over the last `runs` runs of a
    trace (ms-run's warm-up runs before them left out), in plan order:
    [(name, us)]."""
    with open(trace_path) as f:
        events = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
    numbers = sorted({e["args"]["run"] for e in events})
    timed = set(numbers[-runs:])
    durations, names = collections.defaultdict(list), {}
    for e in events:
        if e["args"]["run"] in timed:
            durations[e["args"]["step"]].append(e["dur"])
            names[e["args"]["step"]] = e["name"]
    return [(names[i], statistics.median(durations[i])) for i in sorted(names)]


def ort_nodes(profile_path, skip):
    """Median kernel time (us) of each node in ORT's profile, in execution
    order, the first `skip` runs (warm-up) left out: [(name, op, us)]."""
    with open(profile_path) as f:
        events = json.load(f)
    durations, ops = collections.defaultdict(list), {}
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            name = e["name"][: -len("_kernel_time")]
            durations.setdefault(name, [])
            durations[name].append(e["dur"])
            ops[name] = e.get("args", {}).get("op_name", "")
    return [(n, ops[n], statistics.median(d[skip:] or d)) for n, d in durations.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="resnet18")
    ap.add_argument("--level", default="O1")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--target-cpu", default="native")
    ap.add_argument("--precision", default="f32",
                    help="ms-compile --precision (ORT runs f32)")
    ap.add_argument("--keep", help="write the model, modules and profiles here")
    args = ap.parse_args()
    models = build_models()
    if args.model not in models:
        ap.error("unknown model %r; expected %s" % (args.model, ", ".join(models)))
    work = args.keep or tempfile.mkdtemp(prefix="ms-bench-layers-")
    os.makedirs(work, exist_ok=True)
    import torch
    factory, shape = models[args.model]
    torch.manual_seed(0)
    onnx_path = os.path.join(work, args.model + ".onnx")
    export(factory(), shape, onnx_path)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    npy = os.path.join(work, "x.npy")
    np.save(npy, x)

    bindir = os.path.join(args.build_dir, "bin")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    module = os.path.join(work, "%s-%s-%s.msm" % (args.model, args.level,
                                                  args.precision))
    run([os.path.join(bindir, "ms-compile"), onnx_path, "-O" + args.level[1:],
         "--target-cpu", args.target_cpu, "--precision", args.precision,
         "-o", module])
    trace = os.path.join(work, "ms-trace.json")
    out = run([os.path.join(bindir, "ms-run"), module, "--input", "x=" + npy,
               "--bench", str(args.runs), "--trace", trace], env)
    ms_call = float(next(l.split()[1] for l in out.splitlines()
                         if l.startswith("median_ms:")))
    steps = ms_steps(trace, args.runs)

    print("machine: %s, %d cores; %d threads; model %s, ms at %s (%s); medians over %d runs"
          % (cpu_name(), os.cpu_count() or 1, args.threads, args.model, args.level,
             args.precision, args.runs))
    total = sum(us for _, us in steps)
    print_table(["ms kernel", "us", "share"],
                [[n, "%.1f" % us, "%.1f%%" % (100 * us / total)] for n, us in steps] +
                [["sum of kernels", "%.1f" % total, ""],
                 ["per call (ms-run --bench)", "%.1f" % (ms_call * 1000), ""]])

    ort_dir = os.path.join(ROOT, "bench", "ort")
    if not (shutil.which("node") and
            os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node"))):
        print("note: no ONNX Runtime (run `npm ci --ignore-scripts` in bench/ort)")
        return
    raw = os.path.join(work, "x.f32")
    x.tofile(raw)
    spec = os.path.join(work, "spec.json")
    with open(spec, "w") as f:
        json.dump({"inputs": [{"name": "x", "shape": list(shape), "file": raw}],
                   "outputs_dir": os.path.join(work, "ort-out")}, f)
    # (ORT's per-call time below is measured with its profiler on.)
    prefix = os.path.join(work, "ort-profile")
    for old in glob.glob(prefix + "*.json"):
        os.remove(old)
    result = json.loads(run(["node", os.path.join(ort_dir, "run.js"), onnx_path, spec,
                             "--threads", str(args.threads), "--min-time", "1",
                             "--profile", prefix]))
    profiles = glob.glob(prefix + "*.json")
    if not profiles:
        print("note: ONNX Runtime wrote no profile")
        return
    nodes = ort_nodes(profiles[0], skip=3)
    total = sum(us for _, _, us in nodes)
    print()
    print_table(["ORT node", "op", "us", "share"],
                [[n, op, "%.1f" % us, "%.1f%%" % (100 * us / total)] for n, op, us in nodes] +
                [["sum of nodes", "", "%.1f" % total, ""],
                 ["per call (run.js, profiling)", "", "%.1f" % (result["median_ms"] * 1000),
                  ""]])


if __name__ == "__main__":
    main()
