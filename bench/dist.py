#!/usr/bin/python3
"""Scaling of sharded models over 1, 2 and 4 CPU processes (ranks) on this
machine: an MLP (Linear 1024->4096, GELU, Linear 4096->1024, 64 rows) and a
BERT-style layer (hidden 768, 12 heads, FFN 3072, sequence 128, post-norm),
both built as ONNX models here with fixed-seed weights, compiled at -O1 with
Megatron tensor parallelism (first linear of each pair split by output
features, second by input features; heads split with them) and run with
`ms-run --nproc N --bench R` (Gloo over loopback). Each rank is given
cores/N OpenMP threads so that every configuration uses the machine's cores
once; 1 rank is the unsharded compile.

Columns: median milliseconds per step over R runs after warm-up (rounds
interleaved, median of the rounds' medians), speed-up over 1 rank, and the
bytes each rank contributes to collectives per step (from
`ms-compile --dry-run`). The results of every configuration are checked
against the 1-rank result (max abs error).

On a 2-core machine, 4 ranks oversubscribe (2 threads of work for 4
processes); the numbers say what communication and splitting cost, not
what 4 devices would gain. Rerun on GPUs when NCCL ranks exist.

Usage: bench/dist.py [--build-dir build] [--rounds 3] [--runs 20]
"""
import argparse
import os
import re
import statistics
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchutil import cpu_name, print_table, run  # noqa: E402


def initializer(rng, name, shape, scale):
    return numpy_helper.from_array(
        (rng.standard_normal(shape) * scale).astype(np.float32), name)


def mlp_model(path):
    rng = np.random.default_rng(0)
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["h0"]),
        helper.make_node("Add", ["h0", "b1"], ["h1"]),
        helper.make_node("Gelu", ["h1"], ["h"], domain="com.microsoft"),
        helper.make_node("MatMul", ["h", "w2"], ["y0"]),
        helper.make_node("Add", ["y0", "b2"], ["y"]),
    ]
    inits = [initializer(rng, "w1", (1024, 4096), 0.03),
             initializer(rng, "b1", (4096,), 0.1),
             initializer(rng, "w2", (4096, 1024), 0.015),
             initializer(rng, "b2", (1024,), 0.1)]
    # Gelu as Erf (opset 17 has no Gelu).
    nodes[2:3] = [
        helper.make_node("Div", ["h1", "sqrt2"], ["g0"]),
        helper.make_node("Erf", ["g0"], ["g1"]),
        helper.make_node("Add", ["g1", "one"], ["g2"]),
        helper.make_node("Mul", ["h1", "g2"], ["g3"]),
        helper.make_node("Mul", ["g3", "half"], ["h"]),
    ]
    inits += [numpy_helper.from_array(np.array(v, np.float32), n)
              for n, v in (("sqrt2", 2 ** 0.5), ("one", 1.0), ("half", 0.5))]
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 1024])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 1024])],
        inits)
    onnx.save(helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)]), path)
    return ["w1=-,tp", "b1=tp", "w2=tp,-"], (64, 1024)


class LayerBuilder:
    """Nodes and initializers of a transformer layer built as ONNX here:
    linear layers with fixed-seed weights (scaled 1/sqrt(hidden)),
    constants, and Megatron shard specs for them."""

    # q, k, v and the first FFN linear by output features, the attention
    # output and the second FFN linear by input features.
    SHARDS = ["q.w=-,tp", "q.b=tp", "k.w=-,tp", "k.b=tp", "v.w=-,tp",
              "v.b=tp", "o.w=tp,-", "f1.w=-,tp", "f1.b=tp", "f2.w=tp,-"]

    def __init__(self, hidden):
        self.rng = np.random.default_rng(0)
        self.scale = 1 / np.sqrt(hidden)
        self.nodes, self.inits = [], []

    def node(self, op, inputs, outputs, **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, **attrs))

    def const(self, name, value, dtype=np.float32):
        self.inits.append(numpy_helper.from_array(np.array(value, dtype),
                                                  name))

    def linear(self, x, name, n_in, n_out, out):
        self.inits.append(initializer(self.rng, name + ".w", (n_in, n_out),
                                      self.scale))
        self.inits.append(initializer(self.rng, name + ".b", (n_out,), 0.02))
        self.node("MatMul", [x, name + ".w"], [out + "0"])
        self.node("Add", [out + "0", name + ".b"], [out])

    def attention(self, x, batch, seq, hidden, heads, mask=None):
        """Multi-head self-attention of `x` (batch x seq x hidden) with an
        optional additive `mask`; its output projection is "a"."""
        hd = hidden // heads
        self.const("heads_shape", [batch, seq, heads, hd], np.int64)
        self.const("merge_shape", [batch, seq, hidden], np.int64)
        self.const("scale", 1 / np.sqrt(hd))
        for name in ("q", "k", "v"):
            self.linear(x, name, hidden, hidden, name)
            self.node("Reshape", [name, "heads_shape"], [name + "r"])
            perm = [0, 2, 3, 1] if name == "k" else [0, 2, 1, 3]
            self.node("Transpose", [name + "r"], [name + "t"], perm=perm)
        self.node("MatMul", ["qt", "kt"], ["s0"])
        self.node("Mul", ["s0", "scale"], ["s1"])
        scores = "s1"
        if mask is not None:
            self.const("mask", mask)
            self.node("Add", ["s1", "mask"], ["s2"])
            scores = "s2"
        self.node("Softmax", [scores], ["p"], axis=-1)
        self.node("MatMul", ["p", "vt"], ["o0"])
        self.node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3])
        self.node("Reshape", ["o1", "merge_shape"], ["o2"])
        self.linear("o2", "o", hidden, hidden, "a")

    def save(self, path, name, shape):
        """Saves the graph from input "x" to output "y" of `shape`."""
        graph = helper.make_graph(
            self.nodes, name,
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)],
            self.inits)
        onnx.save(helper.make_model(graph, opset_imports=[
            helper.make_opsetid("", 17)]), path)


def bert_model(path, hidden=768, heads=12, ffn=3072, seq=128):
    layer = LayerBuilder(hidden)
    layer.attention("x", 1, seq, hidden, heads)
    layer.node("Add", ["x", "a"], ["r1"])
    layer.const("g1", np.ones(hidden))
    layer.const("z1", np.zeros(hidden))
    layer.node("LayerNormalization", ["r1", "g1", "z1"], ["n1"], axis=-1)
    layer.linear("n1", "f1", hidden, ffn, "f")
    layer.node("Relu", ["f"], ["fr"])
    layer.linear("fr", "f2", ffn, hidden, "f2o")
    layer.node("Add", ["n1", "f2o"], ["r2"])
    layer.node("LayerNormalization", ["r2", "g1", "z1"], ["y"], axis=-1)
    layer.save(path, "bert_layer", [1, seq, hidden])
    return LayerBuilder.SHARDS, (1, seq, hidden)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--ranks", default="1,2,4")
    args = p.parse_args()
    bin_dir = os.path.join(args.build_dir, "bin")
    compiler = os.path.join(bin_dir, "ms-compile")
    runner = os.path.join(bin_dir, "ms-run")
    cores = os.cpu_count() or 1
    ranks = [int(r) for r in args.ranks.split(",")]
    print(f"# {cpu_name()}, {cores} cores; -O1; Gloo over loopback; "
          f"{args.rounds} rounds x {args.runs} runs")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in (("MLP 64x1024x4096", mlp_model),
                           ("BERT-style layer", bert_model)):
            model = os.path.join(tmp, name.split()[0] + ".onnx")
            shards, shape = make(model)
            x = np.random.default_rng(1).standard_normal(shape).astype(
                np.float32)
            xin = os.path.join(tmp, "x.npy")
            np.save(xin, x)
            input_name = "x"
            configs = {}
            for n in ranks:
                path = os.path.join(tmp, f"{name.split()[0]}-{n}.msm")
                flags = []
                if n > 1:
                    flags = ["--mesh", str(n), "--mesh-axes", "tp"] + [
                        a for s in shards for a in ("--shard", s)]
                run([compiler, model, "-O1", "-o", path] + flags)
                dry = run([compiler, model, "-O1", "--dry-run"] + flags)
                m = re.search(r"collectives per rank per run: (\d+) bytes",
                              dry)
                configs[n] = (path, int(m.group(1)) if m else 0)
            medians = {n: [] for n in ranks}
            outputs = {}
            for _ in range(args.rounds):
                for n in ranks:
                    path, _ = configs[n]
                    env = dict(os.environ, OMP_NUM_THREADS=str(
                        max(1, cores // n)))
                    out = os.path.join(tmp, f"out-{n}")
                    cmd = [runner, path, "--input", f"{input_name}={xin}",
                           "--bench", str(args.runs), "--output-dir", out]
                    if n > 1:
                        cmd[2:2] = ["--nproc", str(n)]
                    text = run(cmd, env=env)
                    medians[n].append(float(re.search(
                        r"median_ms: ([0-9.]+)", text).group(1)))
                    outputs[n] = np.load(os.path.join(out, "y.npy"))
            base = statistics.median(medians[ranks[0]])
            for n in ranks:
                ms = statistics.median(medians[n])
                error = np.abs(outputs[n] - outputs[ranks[0]]).max()
                rows.append([name, str(n), f"{ms:.3f}", f"{base / ms:.2f}x",
                             str(configs[n][1]), f"{error:.1e}"])
    print_table(["model", "ranks", "median_ms", "speed-up",
                 "collective bytes/rank", "max |err| vs 1 rank"], rows)


if __name__ == "__main__":
    main()
