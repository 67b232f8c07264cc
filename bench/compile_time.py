#!/usr/bin/python3
"""Measures compile time and compiler memory: BERT-base encoder stacks of 1,
4 and 12 layers (seq 128, exported from PyTorch as bench/fusion.py does),
compiled by `ms-compile` at each level, side by side in one run.

Each round compiles every model cold (an empty kernel cache, a new output
file), then warm
(again, with the kernel cache the cold compile filled, to the same output
path, where the module is already: ms-compile compares its bytes with the
file's and does not write it again), then with one layer's weights changed
(another export of the model whose first layer has other weights, with that
warm cache: its module replaces the file), then warm again to a new file
(the output removed first: the module written whole). Each compile starts with the
earlier ones' files flushed to disk (os.sync, untimed). Rounds alternate the
order of the models; the table shows median wall times, the largest peak resident
memory of `ms-compile` (its rusage) in the cold compiles, the kernels in the
module (distinct code; the plan launches them once per layer), the steps its
plan writes (a repeated layer's steps once, in a body, plus one call per
layer; the runtime runs the body per call) and the cold time relative to one
layer at the same level. The weights take 28 MB per
layer in the .onnx file; the compiler maps the file and reads them in
place (#msgraph.mapped), and a self-contained module holds a copy.

Rows marked "ext" compile the same models with their weights in an ONNX
external-data file (utils/onnx-external-data) and `--external-weights`: the
module refers to that file instead of holding a copy, so a compile does
not write them (it reads them to lay out packed weights' sources, and
checksums the file; at O2 the offloaded graph takes their addresses from
the runtime).

Requirements: python3-torch and python3-onnx (Debian) to export the
models.

Usage: bench/compile_time.py [--build-dir build] [--rounds 3]
                             [--layers 1,4,12] [--levels O0,O1,O2]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "utils"))
from benchutil import cpu_name, print_table  # noqa: E402
import msm  # noqa: E402


def compile_once(cmd):
    """Runs `cmd`; returns (wall seconds, peak resident MiB). Earlier
    compiles' modules are flushed to disk first (untimed): otherwise a
    compile's write waits on their writeback, up to a second here."""
    os.sync()
    start = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError((err.strip() or "exit %d" % p.returncode).splitlines()[0])
    return wall, usage.ru_maxrss / 1024.0


def kernel_count(path):
    """The kernels a module holds (at O2: its offloaded graph functions)."""
    return len(msm.read_meta(path).get("kernels", []))


def plan_steps(path):
    """The steps a module's plan writes: its own and its bodies' once."""
    meta = msm.read_meta(path)
    return len(meta.get("steps", [])) + sum(
        len(body["steps"]) for body in meta.get("bodies", []))


def module_mib(path):
    """The module file's size in MiB."""
    return os.path.getsize(path) / 2.0**20


def export_models(work, layers):
    """Writes work/bert<N>.onnx, N BERT-base layers, and
    work/bert<N>-changed.onnx, the same with other weights in the first
    layer, for each N."""
    import torch
    from fusion import build_models, export
    bert, shape = build_models()["bert"]
    for n in layers:
        torch.manual_seed(0)
        module = torch.nn.Sequential(*(bert() for _ in range(n)))
        export(module, shape, os.path.join(work, "bert%d.onnx" % n))
        torch.manual_seed(1)
        module[0] = bert()
        export(module, shape, os.path.join(work, "bert%d-changed.onnx" % n))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--layers", default="1,4,12")
    ap.add_argument("--levels", default="O0,O1,O2")
    ap.add_argument("--keep", help="write the models and modules here")
    ap.add_argument("--export", metavar="DIR", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.export:
        export_models(args.export, [int(n) for n in args.layers.split(",")])
        return
    layers = [int(n) for n in args.layers.split(",") if n.strip()]
    levels = [l.strip() for l in args.levels.split(",") if l.strip()]
    ms_compile = os.path.join(args.build_dir, "bin", "ms-compile")
    work = args.keep or tempfile.mkdtemp(prefix="ms-bench-compile-")
    os.makedirs(work, exist_ok=True)

    # Exported by a child process: ms-compile's peak memory (its rusage)
    # counts what it inherits from this process before exec, which then
    # stays small (no torch).
    paths = {n: os.path.join(work, "bert%d.onnx" % n) for n in layers}
    subprocess.run([sys.executable, os.path.abspath(__file__), "--export",
                    work, "--layers", args.layers], check=True)

    # The same models with their weights in external-data files.
    for n in layers:
        for suffix in ("", "-changed"):
            name = "bert%d%s.onnx" % (n, suffix)
            subprocess.run([os.path.join(ROOT, "utils", "onnx-external-data"),
                            os.path.join(work, name),
                            os.path.join(work, "ext-" + name)], check=True)

    jobs = [(n, level, ext) for ext in (False, True) for n in layers
            for level in levels]
    kinds = ("cold", "warm", "changed", "warm-new")
    times = {(job, kind): [] for job in jobs for kind in kinds}
    memory = {job: 0.0 for job in jobs}

    def output(job):
        n, level, ext = job
        return os.path.join(work, "bert%d-%s%s.msm" % (n, level,
                                                        "-ext" if ext else ""))
    for r in range(args.rounds):
        for job in (jobs if r % 2 == 0 else list(reversed(jobs))):
            n, level, ext = job
            out = output(job)
            cache = tempfile.mkdtemp(prefix="cache-", dir=work)
            for kind in kinds:
                model = paths[n] if kind != "changed" else \
                    paths[n].replace(".onnx", "-changed.onnx")
                if ext:
                    model = os.path.join(work, "ext-" + os.path.basename(model))
                if kind in ("cold", "warm-new") and os.path.exists(out):
                    os.remove(out)
                wall, rss = compile_once(
                    [ms_compile, model, "-O" + level[1:], "--cache-dir", cache,
                     "-o", out] + (["--external-weights"] if ext else []))
                times[job, kind].append(wall)
                if kind == "cold":
                    memory[job] = max(memory[job], rss)
            shutil.rmtree(cache)

    def median(v):
        v = sorted(v)
        return v[len(v) // 2]

    print("machine: %s, %d cores" % (cpu_name(), os.cpu_count() or 1))
    print("median over %d rounds; BERT-base layers (seq 128), ms-compile "
          "--target-cpu native" % args.rounds)
    rows = []
    for job in jobs:
        n, level, ext = job
        cold = median(times[job, "cold"])
        base = median(times[(layers[0], level, ext), "cold"])
        rows.append(["%d layer%s %s%s" % (n, "" if n == 1 else "s", level,
                                          " ext" if ext else ""),
                     "%.3f" % cold, "%.2fx" % (cold / base),
                     "%.3f" % median(times[job, "warm"]),
                     "%.3f" % median(times[job, "changed"]),
                     "%.3f" % median(times[job, "warm-new"]),
                     "%.0f" % memory[job], "%.1f" % module_mib(output(job)),
                     str(kernel_count(output(job))),
                     str(plan_steps(output(job)))])
    print_table(["model", "cold s", "cold vs %d layer" % layers[0], "warm s",
                 "1 layer changed s", "warm new file s", "peak MiB", "module MiB", "kernels",
                 "plan steps"],
                rows)


if __name__ == "__main__":
    main()
