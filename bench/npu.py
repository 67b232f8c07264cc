#!/usr/bin/python3
"""Measures the npu target on the simulated NPU: GEMMs of 256 to 4096
(square, f32 in GM, fp16 on the cube), a linear layer with bias and GELU
(its weight an input, and a constant of the model: stored in the cube's
type at compile time), a ResNet-style 3x3 convolution (64 channels, 56x56), attention (BERT-base
heads), softmax and layer normalization rows, and the
PyTorch TransformerEncoderLayer and small CNN of the e2e tests (a
BERT-style layer; conv-relu-maxpool x2 and linear layers), against
PyTorch's outputs. Each is compiled with
`ms-compile --target npu -O1` at each `--precision` asked for (the type the
cube multiplies: f16, the default, bf16 or f32), run once with
`ms-run --device npu` (the simulator is deterministic: one round is the
measurement) and compared with the float64 NumPy result of the same f32
inputs.

Columns: simulated cycles; the cube's utilization (the pipe M's busy
cycles over all cores' cycles, as ms-run reports it) and the ideal one (the
fractal products the problem needs over the cycles every core had: an f32
fractal is 16x8 by 8x16, half an f16 one's products); the
pipe that bounds the run (the busiest); the largest error relative to the
largest reference magnitude.

Usage: bench/npu.py [--build-dir build] [--sizes 256,512,1024,2048,4096]
                    [--precisions f16] (a list: f16,bf16,f32)
"""
import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from benchutil import print_table  # noqa: E402

# ONNX models written without the onnx package.
spec = importlib.util.spec_from_file_location(
    "gen", os.path.join(ROOT, "utils", "gen-onnx-test-models.py"))
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)


def gelu(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, g, b):
    m = x.mean(axis=-1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + 1e-5) * g + b


def t(*dims):
    """The tensor type of f32 `dims`."""
    return "tensor<%sxf32>" % "x".join(str(d) for d in dims)


def attention(q, k, v):
    s = q @ k.swapaxes(-1, -2) / np.sqrt(q.shape[-1])
    return softmax(s) @ v


def conv2d(x, w):
    """NCHW convolution, 3x3, padding 1, stride 1 (float64)."""
    n, c, h, wd = x.shape
    m = w.shape[0]
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    out = np.zeros((n, m, h, wd))
    for kh in range(3):
        for kw in range(3):
            out += np.einsum("nchw,mc->nmhw", p[:, :, kh:kh + h, kw:kw + wd],
                             w[:, :, kh, kw])
    return out


def linear_gelu_model(directory, m, k, h):
    """Writes `directory`/model.onnx, x @ W + b then GELU (erf) with W and b
    initializers, its input_0.npy and its float64 output_0.npy; returns the
    model's path."""
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    w = rng.uniform(-1, 1, (k, h)).astype(np.float32)
    b = rng.uniform(-1, 1, (h,)).astype(np.float32)
    c = {"s": np.array(1 / np.sqrt(2), np.float32),
         "one": np.array(1, np.float32), "half": np.array(0.5, np.float32)}
    nodes = [gen.node("MatMul", ["input_0", "W"], ["y"], "mm"),
             gen.node("Add", ["y", "b"], ["z"], "bias"),
             gen.node("Mul", ["z", "s"], ["zs"], "scale"),
             gen.node("Erf", ["zs"], ["e"], "erf"),
             gen.node("Add", ["e", "one"], ["e1"], "add1"),
             gen.node("Mul", ["z", "half"], ["zh"], "half"),
             gen.node("Mul", ["zh", "e1"], ["output_0"], "gelu")]
    inits = [gen.tensor("W", gen.FLOAT, [k, h], w.tobytes()),
             gen.tensor("b", gen.FLOAT, [h], b.tobytes())]
    inits += [gen.tensor(name, gen.FLOAT, [], value.tobytes())
              for name, value in c.items()]
    g = gen.graph(nodes, [gen.value_info("input_0", gen.FLOAT, [m, k])],
                  [gen.value_info("output_0", gen.FLOAT, [m, h])], inits)
    path = os.path.join(directory, "model.onnx")
    with open(path, "wb") as f:
        f.write(gen.model(g))
    np.save(os.path.join(directory, "input_0.npy"), x)
    np.save(os.path.join(directory, "output_0.npy"),
            gelu(x.astype(np.float64) @ w + b))
    return path


def cases(sizes, work):
    """(name, msgraph program, input shapes, reference, fractal products)."""
    for n in sizes:
        yield ("gemm %d^3" % n,
               f"func.func @main(%a: {t(n, n)}, %b: {t(n, n)}) -> {t(n, n)} {{\n"
               f"  %0 = msgraph.matmul %a, %b : ({t(n, n)}, {t(n, n)}) -> {t(n, n)}\n"
               f"  return %0 : {t(n, n)}\n}}\n",
               [(n, n), (n, n)], lambda a, b: a @ b, (n // 16) ** 3)
    m, k, h = 512, 768, 3072
    yield ("linear+bias+gelu 512x768x3072",
           f"func.func @main(%x: {t(m, k)}, %w: {t(k, h)}, %b: {t(h)}) -> {t(m, h)} {{\n"
           f"  %0 = msgraph.matmul %x, %w : ({t(m, k)}, {t(k, h)}) -> {t(m, h)}\n"
           f"  %1 = msgraph.add %0, %b : ({t(m, h)}, {t(h)}) -> {t(m, h)}\n"
           f"  %2 = msgraph.gelu %1 : {t(m, h)}\n"
           f"  return %2 : {t(m, h)}\n}}\n",
           [(m, k), (k, h), (h,)], lambda x, w, b: gelu(x @ w + b),
           (m // 16) * (k // 16) * (h // 16))
    model = linear_gelu_model(os.path.join(work, "linear"), m, k, h)
    yield ("linear+bias+gelu, constant weight", model, [None],
           lambda x, d=os.path.dirname(model): np.load(
               os.path.join(d, "output_0.npy")),
           (m // 16) * (k // 16) * (h // 16))
    c, hw = 64, 56
    x, wt, y = t(1, c, hw, hw), t(c, c, 3, 3), t(1, c, hw, hw)
    yield ("conv 3x3 64->64 56x56",
           f"func.func @main(%x: {x}, %w: {wt}) -> {y} {{\n"
           f"  %0 = msgraph.conv %x, %w {{pads = array<i64: 1, 1, 1, 1>}}"
           f" : ({x}, {wt}) -> {y}\n"
           f"  return %0 : {y}\n}}\n",
           [(1, c, hw, hw), (c, c, 3, 3)], conv2d,
           (hw * hw // 16) * (c // 16) * (c * 9 // 16))
    b, h, n, d = 1, 12, 128, 64
    q = t(b, h, n, d)
    yield ("attention 1x12x128x64",
           f"func.func @main(%q: {q}, %k: {q}, %v: {q}) -> {q} {{\n"
           f"  %0 = msgraph.attention %q, %k, %v : ({q}, {q}, {q}) -> {q}\n"
           f"  return %0 : {q}\n}}\n",
           [(b, h, n, d)] * 3, attention, 2 * b * h * (n // 16) ** 2 * (d // 16))
    r, c = 4096, 1024
    yield ("softmax 4096x1024",
           f"func.func @main(%x: {t(r, c)}) -> {t(r, c)} {{\n"
           f"  %0 = msgraph.softmax %x : {t(r, c)}\n"
           f"  return %0 : {t(r, c)}\n}}\n",
           [(r, c)], softmax, 0)
    yield ("layer_norm 4096x1024",
           f"func.func @main(%x: {t(r, c)}, %g: {t(c)}, %b: {t(c)}) -> {t(r, c)} {{\n"
           f"  %0 = msgraph.layer_norm %x, %g, %b : ({t(r, c)}, {t(c)}, {t(c)}) -> {t(r, c)}\n"
           f"  return %0 : {t(r, c)}\n}}\n",
           [(r, c), (c,), (c,)], layer_norm, 0)
    for name, label in (("transformer_encoder",
                         "encoder layer (PyTorch, 2x16x64)"),
                        ("cnn", "CNN (PyTorch, 1x3x32x32)")):
        model = os.path.join(ROOT, "test", "e2e", "torch", name, "model.onnx")
        yield (label, model, [None],
               lambda x, d=os.path.dirname(model): np.load(
                   os.path.join(d, "output_0.npy")), 0)


def run_case(build, work, precision, name, program, shapes, reference,
             fractals):
    """Compiles `program` (msgraph text, or an .onnx path whose directory
    holds input_0.npy and PyTorch's output_0.npy) for the cube's
    `precision`, runs it on the simulated NPU and returns the table row
    (`fractals`: the problem's 16x16x16 products)."""
    if program.endswith(".onnx"):
        src = program
    else:
        src = os.path.join(work, "case.mlir")
        with open(src, "w") as f:
            f.write(program)
    module = os.path.join(work, "case.msm")
    subprocess.run([os.path.join(build, "bin", "ms-compile"), src, "-O1",
                    "--target", "npu", "--precision", precision, "-o",
                    module], check=True)
    rng = np.random.default_rng(0)
    inputs, bind = [], []
    for i, shape in enumerate(shapes):
        if src == program:
            path = os.path.join(os.path.dirname(src), "input_%d.npy" % i)
            a = np.load(path)
        else:
            a = rng.uniform(-1, 1, shape).astype(np.float32)
            path = os.path.join(work, "in%d.npy" % i)
            np.save(path, a)
        inputs.append(a)
        bind += ["--input", "input_%d=%s" % (i, path)]
    out = os.path.join(work, "out")
    text = subprocess.run([os.path.join(build, "bin", "ms-run"), module,
                           "--device", "npu", "--output-dir", out] + bind,
                          check=True, capture_output=True, text=True).stdout
    cycles = int(re.search(r"npu_cycles: (\d+)", text).group(1))
    util = dict(re.findall(r"(\w+) ([\d.]+)%", re.search(
        r"npu_utilization: (.*)", text).group(1)))
    bound = re.search(r"npu_bound_by: (\w+)", text).group(1)
    got = np.load(os.path.join(out, "output_0.npy")).astype(np.float64)
    want = reference(*[a.astype(np.float64) for a in inputs])
    err = np.abs(got - want).max() / np.abs(want).max()
    cores = 2
    if precision == "f32":
        fractals *= 2
    ideal = "%.1f%%" % (100.0 * fractals / cores / cycles) if fractals else "-"
    return [name, precision, str(cycles), "%s%%" % util.get("m", "0"), ideal,
            bound, "%.2e" % err]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sizes", default="256,512,1024,2048,4096")
    ap.add_argument("--precisions", default="f16")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for case in cases(sizes, work):
            for precision in args.precisions.split(","):
                rows.append(run_case(args.build_dir, work, precision, *case))
                print(" ".join(str(c) for c in rows[-1]), file=sys.stderr)
    print("Simulated NPU (default NpuConfig: 2 cores), ms-compile --target npu -O1")
    print_table(["case", "precision", "cycles", "cube busy", "cube ideal",
                 "bound by", "max rel err"], rows)


if __name__ == "__main__":
    main()
