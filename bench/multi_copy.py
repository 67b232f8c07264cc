#!/usr/bin/python3
"""Multi-copy parallelism (--multi-copy N): step time and the fraction of
tensor-parallel communication hidden under compute, measured on CPU ranks
and simulated at tensor-parallel degree 8.

Measured: a GPT-style block (pre-norm, 12-head causal attention, GELU FFN;
hidden 768, FFN 3072, batch 2 x 128 tokens) and the BERT-style layer of
bench/dist.py (post-norm, batch 1 x 128 tokens), both ONNX models built here
with fixed-seed weights, Megatron tensor parallel (first linear of each pair
by output features, second by input features, heads with them), compiled at
-O1 with --multi-copy 1, 2 and 4 and run on 2 and 4 processes with
`ms-run --nproc R` (Gloo over loopback). Rounds interleave the
configurations; each round times `--bench RUNS` runs (median_ms), then a
traced run (`--trace`, 5 timed runs after the 3 warm-ups) gives the hidden
fraction with `python3 -m ms.timeline` (all ranks summed). Columns are the
medians of the rounds. Every split result is compared with the unsplit
(N = 1) result of the same ranks.

On this 2-core machine the ranks share two cores (4 ranks oversubscribe
them) and Gloo's loopback transfers take CPU time too, so "hidden" here
means the collective ran while a kernel ran, not that it was free.

Simulated: examples/gpt-layer.mlir (GPT-3 6.7B's width: hidden 4096, FFN
16384, 2048 tokens) at tensor-parallel degree 8, -O2, dry runs replayed by
`ms-compile --simulate` on the h100-nvlink, h100-pcie and ethernet models
(model inputs, not measurements: docs/Architecture.md, "Simulating a plan").

Usage: bench/multi_copy.py [--build-dir build] [--rounds 3] [--runs 20]
       [--ranks 2,4] [--copies 1,2,4] [--skip-measured] [--skip-simulated]
"""
import argparse
import json
import os
import re
import statistics
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchutil import cpu_name, print_table, run  # noqa: E402
from dist import LayerBuilder, bert_model  # noqa: E402


def gpt_model(path, hidden=768, heads=12, ffn=3072, seq=128, batch=2):
    """A GPT-style pre-norm block; returns (shard specs, input shape)."""
    layer = LayerBuilder(hidden)
    layer.const("g", np.ones(hidden))
    layer.const("z", np.zeros(hidden))
    for c, v in (("sqrt2", 2 ** 0.5), ("one", 1.0), ("half", 0.5)):
        layer.const(c, v)
    layer.node("LayerNormalization", ["x", "g", "z"], ["n1"], axis=-1)
    layer.attention("n1", batch, seq, hidden, heads,
                    mask=np.triu(np.full((seq, seq), -1e9, np.float32), 1))
    layer.node("Add", ["x", "a"], ["r1"])
    layer.node("LayerNormalization", ["r1", "g", "z"], ["n2"], axis=-1)
    layer.linear("n2", "f1", hidden, ffn, "f")
    layer.node("Div", ["f", "sqrt2"], ["g0"])
    layer.node("Erf", ["g0"], ["g1"])
    layer.node("Add", ["g1", "one"], ["g2"])
    layer.node("Mul", ["f", "g2"], ["g3"])
    layer.node("Mul", ["g3", "half"], ["fg"])
    layer.linear("fg", "f2", ffn, hidden, "f2o")
    layer.node("Add", ["r1", "f2o"], ["y"])
    layer.save(path, "gpt_block", [batch, seq, hidden])
    return LayerBuilder.SHARDS, (batch, seq, hidden)


def hidden_fraction(trace, env):
    """The total hidden fraction and comm milliseconds of `trace` (timed
    runs only)."""
    out = run([sys.executable, "-m", "ms.timeline", trace, "--json",
               "--min-run", "4"], env=env)
    total = json.loads(out)["total"]
    return total["hidden_fraction"] or 0.0, total["comm_us"] / 1000.0


def measured(args, tmp):
    bin_dir = os.path.join(args.build_dir, "bin")
    compiler = os.path.join(bin_dir, "ms-compile")
    runner = os.path.join(bin_dir, "ms-run")
    env = dict(os.environ, PYTHONPATH=os.path.join(args.build_dir, "python"))
    ranks = [int(r) for r in args.ranks.split(",")]
    copies = [int(c) for c in args.copies.split(",")]
    rows = []
    for name, make in (("GPT-style block", gpt_model),
                       ("BERT-style layer", bert_model)):
        tag = name.split("-")[0]
        model = os.path.join(tmp, tag + ".onnx")
        shards, shape = make(model)
        xin = os.path.join(tmp, tag + "-x.npy")
        np.save(xin, np.random.default_rng(1).standard_normal(shape).astype(
            np.float32))
        configs = [(r, n) for r in ranks for n in copies]
        paths = {}
        for r, n in configs:
            paths[r, n] = os.path.join(tmp, f"{tag}-{r}-{n}.msm")
            run([compiler, model, "-O1", "--mesh", str(r), "--mesh-axes",
                 "tp", "--multi-copy", str(n), "-o", paths[r, n]] +
                [a for s in shards for a in ("--shard", s)])
        times = {c: [] for c in configs}
        hidden = {c: [] for c in configs}
        comm = {c: [] for c in configs}
        outputs = {}
        for _ in range(args.rounds):
            for r, n in configs:
                threads = dict(env, OMP_NUM_THREADS=str(
                    max(1, (os.cpu_count() or 1) // r)))
                out = os.path.join(tmp, f"out-{tag}-{r}-{n}")
                text = run([runner, paths[r, n], "--nproc", str(r),
                            "--input", f"x={xin}", "--bench",
                            str(args.runs), "--output-dir", out],
                           env=threads)
                times[r, n].append(float(re.search(
                    r"median_ms: ([0-9.]+)", text).group(1)))
                outputs[r, n] = np.load(os.path.join(out, "y.npy"))
                trace = os.path.join(tmp, f"trace-{tag}-{r}-{n}.json")
                run([runner, paths[r, n], "--nproc", str(r), "--input",
                     f"x={xin}", "--bench", "5", "--trace", trace],
                    env=threads)
                share, ms = hidden_fraction(trace, env)
                hidden[r, n].append(share)
                comm[r, n].append(ms)
        for r, n in configs:
            base = statistics.median(times[r, copies[0]])
            t = statistics.median(times[r, n])
            error = np.abs(outputs[r, n] - outputs[r, copies[0]]).max()
            rows.append([name, str(r), str(n), f"{t:.3f}",
                         f"{base / t:.2f}x",
                         f"{statistics.median(comm[r, n]):.3f}",
                         f"{100 * statistics.median(hidden[r, n]):.1f}%",
                         f"{error:.1e}"])
    print(f"# measured: {cpu_name()}, {os.cpu_count()} cores; -O1; Gloo over "
          f"loopback; {args.rounds} rounds x {args.runs} runs; "
          "comm and hidden from traced runs (all ranks summed)")
    print_table(["model", "ranks", "copies", "median_ms", "vs 1 copy",
                 "comm_ms", "hidden", "max |err| vs 1 copy"], rows)


def simulated(args):
    compiler = os.path.join(args.build_dir, "bin", "ms-compile")
    layer = os.path.join(ROOT, "examples", "gpt-layer.mlir")
    shards = ["wq=-,tp", "wk=-,tp", "wv=-,tp", "wo=tp,-", "w1=-,tp",
              "w2=tp,-"]
    copies = [int(c) for c in args.copies.split(",")]
    rows = []
    pattern = re.compile(r"step ([0-9.]+) (m|u)s, compute ([0-9.]+) (m|u)s, "
                         r"communication ([0-9.]+) (m|u)s, hidden ([0-9.]+) "
                         r"(m|u)s \(([0-9.]+)%\)")
    for preset in ("h100-nvlink", "h100-pcie", "ethernet"):
        base = None
        for n in copies:
            text = run([compiler, layer, "-O2", "--dry-run", "--simulate",
                        preset, "--mesh", "8", "--mesh-axes", "tp",
                        "--multi-copy", str(n)] +
                       [a for s in shards for a in ("--shard", s)])
            m = pattern.search(text)

            def ms(value, unit):
                return float(value) / (1000.0 if unit == "u" else 1.0)
            step = ms(m.group(1), m.group(2))
            base = base or step
            rows.append([preset, str(n), f"{step:.3f}", f"{base / step:.2f}x",
                         f"{ms(m.group(3), m.group(4)):.3f}",
                         f"{ms(m.group(5), m.group(6)):.3f}",
                         f"{m.group(9)}%"])
    print("# simulated: examples/gpt-layer.mlir (hidden 4096, FFN 16384, "
          "2048 tokens), tensor parallel over 8, -O2, ms-compile --simulate")
    print_table(["model", "copies", "step_ms", "vs 1 copy", "compute_ms",
                 "comm_ms", "hidden"], rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--ranks", default="2,4")
    p.add_argument("--copies", default="1,2,4")
    p.add_argument("--skip-measured", action="store_true")
    p.add_argument("--skip-simulated", action="store_true")
    args = p.parse_args()
    if not args.skip_simulated:
        simulated(args)
    if not args.skip_measured:
        with tempfile.TemporaryDirectory() as tmp:
            measured(args, tmp)


if __name__ == "__main__":
    main()
