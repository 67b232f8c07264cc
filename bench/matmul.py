#!/usr/bin/python3
"""Measures the CPU matmul kernels: f32 C = A x B at transformer shapes, ms
(`ms-compile -O1 --target-cpu native`, `ms-run --bench`) side by side with
NumPy's BLAS (OpenBLAS on Debian) and ONNX Runtime (MLAS, through
bench/ort/run.js) in one run, with the same thread count.

Each shape is M x K times K x N with both operands as inputs (nothing is
packed ahead of time). Rounds alternate the order of the three; the table
shows the median per-call time and GFLOP/s (2*M*N*K per call) of each, and
the ratios BLAS/ms and ORT/ms (above 1: ms is faster). Outputs are compared
with NumPy's (largest absolute difference).

Requirements: numpy, with OpenBLAS (`apt-get install libopenblas0-pthread`;
without it Debian's NumPy uses the reference BLAS, about 6 GFLOP/s);
python3-onnx and node with `npm ci --ignore-scripts` in bench/ort for the
ORT column (skipped with a note when missing). Threads: ms
uses OpenMP (OMP_NUM_THREADS), NumPy OPENBLAS_NUM_THREADS, ORT intra-op
threads; --threads sets all three (default: all cores).

Usage: bench/matmul.py [--build-dir build] [--rounds 5] [--threads N]
                       [--shapes 128x768x768,128x768x3072,...]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchutil import cpu_name, run  # noqa: E402

SHAPES = ("128x768x768,128x768x3072,128x3072x768,512x512x512,1024x1024x1024,"
          "2048x2048x2048,64x1024x4096")

# Times np.matmul in a process of its own, so that OPENBLAS_NUM_THREADS
# applies; prints the median milliseconds.
NUMPY_TIMER = r"""
import sys, time, numpy as np
a, b, min_time = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
np.save(sys.argv[4], a @ b)
for _ in range(3):
    a @ b
times, start = [], time.perf_counter()
while len(times) < 3 or time.perf_counter() - start < min_time:
    t0 = time.perf_counter()
    a @ b
    times.append((time.perf_counter() - t0) * 1000)
print(sorted(times)[len(times) // 2])
"""


def matmul_mlir(m, k, n):
    return ("func.func @main(%%a: tensor<%dx%dxf32>, %%b: tensor<%dx%dxf32>) -> tensor<%dx%dxf32> {\n"
            "  %%c = msgraph.matmul %%a, %%b : (tensor<%dx%dxf32>, tensor<%dx%dxf32>) -> tensor<%dx%dxf32>\n"
            "  return %%c : tensor<%dx%dxf32>\n}\n" % (m, k, k, n, m, n, m, k, k, n, m, n, m, n))


def matmul_onnx(m, k, n, path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["a", "b"], ["c"])], "matmul",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [m, k]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [k, n])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, [m, n])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--shapes", default=SHAPES, help="MxKxN,...")
    ap.add_argument("--target-cpu", default="native")
    args = ap.parse_args()
    bindir = os.path.join(args.build_dir, "bin")
    ms_compile, ms_run = os.path.join(bindir, "ms-compile"), os.path.join(bindir, "ms-run")
    threads = str(args.threads)
    env = dict(os.environ, OMP_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads)
    ort_dir = os.path.join(ROOT, "bench", "ort")
    have_ort = bool(shutil.which("node")) and os.path.isdir(
        os.path.join(ort_dir, "node_modules", "onnxruntime-node"))
    try:
        import onnx  # noqa: F401
    except ImportError:
        have_ort = False
    if not have_ort:
        print("note: no ONNX Runtime column (python3-onnx, node and "
              "`npm ci --ignore-scripts` in bench/ort)")
    work = tempfile.mkdtemp(prefix="ms-bench-matmul-")
    rng = np.random.default_rng(0)
    shapes = [tuple(int(x) for x in s.split("x")) for s in args.shapes.split(",")]
    jobs, diffs = {}, {}
    for m, k, n in shapes:
        tag = "%dx%dx%d" % (m, k, n)
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        pa, pb = os.path.join(work, tag + "-a.npy"), os.path.join(work, tag + "-b.npy")
        np.save(pa, a)
        np.save(pb, b)
        ref_path = os.path.join(work, tag + "-ref.npy")
        jobs[tag, "blas"] = [sys.executable, "-c", NUMPY_TIMER, pa, pb]
        run(jobs[tag, "blas"] + ["0", ref_path], env)
        ref = np.load(ref_path).astype(np.float64)
        src = os.path.join(work, tag + ".mlir")
        with open(src, "w") as f:
            f.write(matmul_mlir(m, k, n))
        module = os.path.join(work, tag + ".msm")
        run([ms_compile, src, "-O1", "--target-cpu", args.target_cpu, "-o", module])
        out = os.path.join(work, tag + "-out")
        jobs[tag, "ms"] = [ms_run, module, "--input", "input_0=" + pa,
                           "--input", "input_1=" + pb]
        run(jobs[tag, "ms"] + ["--output-dir", out], env)
        diffs[tag, "ms"] = float(np.max(np.abs(np.load(os.path.join(out, "output_0.npy")) - ref)))
        if have_ort:
            model = os.path.join(work, tag + ".onnx")
            matmul_onnx(m, k, n, model)
            spec = os.path.join(work, tag + "-spec.json")
            a.tofile(pa + ".f32")
            b.tofile(pb + ".f32")
            ort_out = os.path.join(work, tag + "-ort")
            with open(spec, "w") as f:
                json.dump({"inputs": [{"name": "a", "shape": [m, k], "file": pa + ".f32"},
                                      {"name": "b", "shape": [k, n], "file": pb + ".f32"}],
                           "outputs_dir": ort_out}, f)
            jobs[tag, "ort"] = ["node", os.path.join(ort_dir, "run.js"), model, spec,
                                "--threads", threads]
            run(jobs[tag, "ort"] + ["--min-time", "0"])
            c = np.fromfile(os.path.join(ort_out, "c.f32"), np.float32).reshape(m, n)
            diffs[tag, "ort"] = float(np.max(np.abs(c - ref)))

    def time_ms(tag, col):
        cmd = jobs[tag, col]
        if col == "blas":
            return float(run(cmd + [str(args.min_time), os.path.join(work, "scratch.npy")], env))
        if col == "ort":
            return json.loads(run(cmd + ["--min-time", str(args.min_time)]))["median_ms"]
        once = float(re.search(r"median_ms: ([0-9.eE+-]+)",
                               run(cmd + ["--bench", "3"], env)).group(1))
        calls = int(min(100000, max(3, args.min_time * 1000 / max(once, 1e-6))))
        return float(re.search(r"median_ms: ([0-9.eE+-]+)",
                               run(cmd + ["--bench", str(calls)], env)).group(1))

    columns = ["ms", "blas"] + (["ort"] if have_ort else [])
    times = {key: [] for key in jobs}
    for r in range(args.rounds):
        for m, k, n in shapes:
            tag = "%dx%dx%d" % (m, k, n)
            for col in (columns if r % 2 == 0 else columns[::-1]):
                times[tag, col].append(time_ms(tag, col))

    print("machine: %s, %d cores; %d threads (ms: OpenMP, NumPy: OpenBLAS, ORT: "
          "intra-op); --target-cpu %s" % (cpu_name(), os.cpu_count() or 0,
                                          args.threads, args.target_cpu))
    print("median per-call time over %d rounds (ms) and GFLOP/s" % args.rounds)
    header = ["M x K x N"]
    for col in columns:
        header += ["%s ms" % col, "%s GF/s" % col]
    header += ["BLAS/ms"] + (["ORT/ms"] if have_ort else []) + ["max|ms-BLAS|"]
    rows = []
    for m, k, n in shapes:
        tag = "%dx%dx%d" % (m, k, n)
        med = {c: float(np.median(times[tag, c])) for c in columns}
        flop = 2.0 * m * n * k
        row = [tag]
        for col in columns:
            row += ["%.3f" % med[col], "%.1f" % (flop / med[col] / 1e6)]
        row += ["%.2fx" % (med["blas"] / med["ms"])]
        if have_ort:
            row += ["%.2fx" % (med["ort"] / med["ms"])]
        row += ["%.2g" % diffs[tag, "ms"]]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                        for i, (c, w) in enumerate(zip(row, widths))))


if __name__ == "__main__":
    main()
