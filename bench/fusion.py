#!/usr/bin/python3
"""Measures operator fusion: kernel count and per-call time of models
exported from PyTorch, compiled at -O0, -O1 and -O2, side by side with ONNX
Runtime (CPU provider, graph optimization "all", which applies ORT's own
fusions) in one run.

Models (float32, batch 1, weights as initializers, ONNX opset 17):
  chain   64x4096: scale and shift, GELU in its tanh form written out
          (x^3, tanh, ...), LayerNorm over 4096
  mlp     128x768 -> Linear 3072 -> GELU -> Linear 768
  bert    a BERT-base encoder layer, sequence 128: hidden 768, 12 heads,
          FFN 3072 with GELU, post-LayerNorm, residuals
  bert4   a stack of 4 such layers (the issue's "4-layer stack"); bert12: 12
  gpt2    a GPT-2 block, sequence 128: pre-LayerNorm, 12 heads with a causal
          mask, tanh GELU, FFN 3072, residuals; gpt2-1k: the same block at
          sequence 1024 (attention's share of the time grows with it)
  llama   a LLaMA-style block, sequence 128, as its reference code writes
          it: RMSNorm (x * rsqrt(mean(x^2) + eps) * w), 12 heads with a
          -inf causal triangle, SwiGLU FFN 2048, residuals
  resnet18  torchvision's ResNet-18 (written out), batch 1, 224x224, 1000
          classes; BatchNorm folded into the convs by the exporter

Every model is compiled with `ms-compile -O<n> --target-cpu native`; each
level and ORT run once on the same input and their outputs are compared
with O0's (largest absolute difference); then a round times every level and
ORT (`ms-run --bench N`, ORT through bench/ort/run.js with the same number
of threads), the order changing between rounds. The table shows medians
over the rounds, the ratios O0/O1 and ORT/O1 (above 1: O1 is faster), and
the kernels launched per call at O0 and O1 (O2 runs O1's kernels from one
generated function).

Requirements: python3-torch and python3-onnx (Debian) to export the models;
node and `npm ci --ignore-scripts` in bench/ort for ONNX Runtime (skipped
with a note when missing). Threads: ms uses OpenMP (OMP_NUM_THREADS, default
all cores); ORT gets the same count.

Usage: bench/fusion.py [--build-dir build] [--rounds 5] [--min-time 0.5]
                       [--models chain,mlp,bert,bert4,gpt2,gpt2-1k,llama,
                                 resnet18]
                       [--levels O0,O1,O2]   (O1:bf16: -O1 --precision bf16;
                                              O1:ext: the weights in an
                                              external-data file,
                                              --external-weights)
                       [--threads N] [--keep DIR]
"""
import argparse
import json
import math
import os
import re
import shutil
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "utils"))
import msm  # noqa: E402  (reads a module file's meta section)
from benchutil import cpu_name, print_table, run  # noqa: E402

OPSET = 17


def build_models():
    """Returns {name: (a function making the torch module, input shape)};
    each module is made with the random seed reset to 0."""
    import torch
    from torch import nn

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (x + 0.044715 * torch.pow(x, 3.0))))

    class Chain(nn.Module):
        def __init__(self, dim=4096):
            super().__init__()
            self.scale = nn.Parameter(torch.randn(dim) * 0.5 + 1.0)
            self.shift = nn.Parameter(torch.randn(dim) * 0.1)
            self.norm = nn.LayerNorm(dim)

        def forward(self, x):
            return self.norm(gelu_tanh(x * self.scale + self.shift))

    class Mlp(nn.Module):
        def __init__(self, dim=768, hidden=3072):
            super().__init__()
            self.fc1 = nn.Linear(dim, hidden)
            self.fc2 = nn.Linear(hidden, dim)

        def forward(self, x):
            return self.fc2(nn.functional.gelu(self.fc1(x)))

    class Attention(nn.Module):
        def __init__(self, dim, heads, causal, seq):
            super().__init__()
            self.heads, self.head_dim = heads, dim // heads
            self.q, self.k, self.v = (nn.Linear(dim, dim) for _ in range(3))
            self.out = nn.Linear(dim, dim)
            self.causal = causal
            if causal:
                self.register_buffer("mask", torch.tril(torch.ones(seq, seq)).bool())

        def split(self, t):
            b, s, _ = t.shape
            return t.reshape(b, s, self.heads, self.head_dim).transpose(1, 2)

        def forward(self, x):
            b, s, d = x.shape
            q, k, v = self.split(self.q(x)), self.split(self.k(x)), self.split(self.v(x))
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
            if self.causal:
                scores = scores.masked_fill(~self.mask, float("-inf"))
            ctx = torch.softmax(scores, dim=-1) @ v
            return self.out(ctx.transpose(1, 2).reshape(b, s, d))

    class Bert(nn.Module):
        def __init__(self, dim=768, heads=12, hidden=3072, seq=128):
            super().__init__()
            self.attn = Attention(dim, heads, False, seq)
            self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.ffn = Mlp(dim, hidden)

        def forward(self, x):
            x = self.norm1(x + self.attn(x))
            return self.norm2(x + self.ffn(x))

    class BertStack(nn.Module):
        def __init__(self, layers=4):
            super().__init__()
            self.layers = nn.ModuleList(Bert() for _ in range(layers))

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    class Gpt2(nn.Module):
        def __init__(self, dim=768, heads=12, hidden=3072, seq=128):
            super().__init__()
            self.attn = Attention(dim, heads, True, seq)
            self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.fc1, self.fc2 = nn.Linear(dim, hidden), nn.Linear(hidden, dim)

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.fc2(gelu_tanh(self.fc1(self.norm2(x))))

    class RMSNorm(nn.Module):
        # As LLaMA's reference code writes it (torch 1.13 has none).
        def __init__(self, dim, eps=1e-6):
            super().__init__()
            self.eps = eps
            self.weight = nn.Parameter(torch.rand(dim) + 0.5)

        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) +
                                   self.eps) * self.weight

    class Llama(nn.Module):
        def __init__(self, dim=768, heads=12, hidden=2048, seq=128):
            super().__init__()
            self.heads, self.head_dim = heads, dim // heads
            self.wq, self.wk, self.wv, self.wo = (
                nn.Linear(dim, dim, bias=False) for _ in range(4))
            self.w1, self.w3 = (nn.Linear(dim, hidden, bias=False)
                                for _ in range(2))
            self.w2 = nn.Linear(hidden, dim, bias=False)
            self.norm1, self.norm2 = RMSNorm(dim), RMSNorm(dim)
            self.register_buffer(
                "mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

        def split(self, t):
            b, s, _ = t.shape
            return t.view(b, s, self.heads, self.head_dim).transpose(1, 2)

        def forward(self, x):
            b, s, d = x.shape
            h = self.norm1(x)
            q, k, v = self.split(self.wq(h)), self.split(self.wk(h)), self.split(self.wv(h))
            scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim) + self.mask
            o = torch.softmax(scores, dim=-1) @ v
            x = x + self.wo(o.transpose(1, 2).reshape(b, s, d))
            h = self.norm2(x)
            return x + self.w2(nn.functional.silu(self.w1(h)) * self.w3(h))

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = None
            if stride != 1 or cin != cout:
                self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                          nn.BatchNorm2d(cout))

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            y = self.bn2(self.conv2(y))
            return torch.relu(y + (x if self.down is None else self.down(x)))

    class ResNet18(nn.Module):
        """torchvision's resnet18, written out (no torchvision in Debian's
        python3-torch); BatchNorm statistics randomized so that folding them
        into the convs is not a no-op."""
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 64, 7, 2, 3, bias=False),
                                      nn.BatchNorm2d(64), nn.ReLU(),
                                      nn.MaxPool2d(3, 2, 1))
            blocks, cin = [], 64
            for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                blocks += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
                cin = cout
            self.blocks = nn.Sequential(*blocks)
            self.fc = nn.Linear(512, 1000)
            for m in self.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.running_mean.uniform_(-0.1, 0.1)
                    m.running_var.uniform_(0.5, 1.5)
                    m.weight.data.uniform_(0.5, 1.5)
                    m.bias.data.uniform_(-0.1, 0.1)

        def forward(self, x):
            x = self.blocks(self.stem(x))
            return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))

    return {
        "resnet18": (ResNet18, (1, 3, 224, 224)),
        "chain": (Chain, (64, 4096)),
        "mlp": (Mlp, (128, 768)),
        "bert": (Bert, (1, 128, 768)),
        "bert4": (BertStack, (1, 128, 768)),
        "bert12": (lambda: BertStack(12), (1, 128, 768)),
        "gpt2": (Gpt2, (1, 128, 768)),
        "gpt2-1k": (lambda: Gpt2(seq=1024), (1, 1024, 768)),
        "llama": (Llama, (1, 128, 768)),
    }


LABELS = {
    "chain": "chain (64x4096 scale, tanh GELU, LayerNorm)",
    "mlp": "mlp (128x768, 3072 GELU)",
    "bert": "bert (BERT-base layer, seq 128)",
    "bert4": "bert4 (4 BERT-base layers, seq 128)",
    "gpt2": "gpt2 (GPT-2 block, causal, seq 128)",
    "gpt2-1k": "gpt2-1k (GPT-2 block, causal, seq 1024)",
    "llama": "llama (LLaMA block, RMSNorm, SwiGLU, seq 128)",
    "resnet18": "resnet18 (ResNet-18, batch 1, 224x224)",
}


def export(module, shape, path):
    import torch
    module.eval()
    with torch.no_grad():
        torch.onnx.export(module, torch.randn(*shape), path, opset_version=OPSET,
                          input_names=["x"], output_names=["y"],
                          do_constant_folding=True)




def kernel_launches(module):
    """Kernel launches per call of a module compiled at O0 or O1 (its plan's
    launch steps)."""
    meta = msm.read_meta(module)
    return sum(step.get("kind") == "launch" for step in msm.run_steps(meta))




def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="seconds one timing of one level should take")
    ap.add_argument("--models", default="chain,mlp,bert,gpt2,llama")
    ap.add_argument("--levels", default="O0,O1,O2")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--target-cpu", default="native")
    ap.add_argument("--keep", help="write the models, inputs and modules here")
    args = ap.parse_args()
    levels = [l.strip() for l in args.levels.split(",") if l.strip()]
    names = [m.strip() for m in args.models.split(",") if m.strip()]
    bindir = os.path.join(args.build_dir, "bin")
    ms_compile, ms_run = os.path.join(bindir, "ms-compile"), os.path.join(bindir, "ms-run")
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    ort_dir = os.path.join(ROOT, "bench", "ort")
    have_ort = (shutil.which("node") and
                os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")))
    if not have_ort:
        print("note: no ONNX Runtime (run `npm ci --ignore-scripts` in bench/ort); "
              "timing ms only")
    work = args.keep or tempfile.mkdtemp(prefix="ms-bench-fusion-")
    os.makedirs(work, exist_ok=True)
    import torch
    models = build_models()
    unknown = [n for n in names if n not in models]
    if unknown:
        ap.error("unknown model %r; expected %s" % (unknown[0], ", ".join(models)))

    rng = np.random.default_rng(0)
    jobs, outputs, diffs, kernels, notes = {}, {}, {}, {}, []
    for name in names:
        factory, shape = models[name]
        torch.manual_seed(0)
        module = factory()
        onnx_path = os.path.join(work, name + ".onnx")
        export(module, shape, onnx_path)
        x = rng.standard_normal(shape).astype(np.float32)
        npy = os.path.join(work, name + "-x.npy")
        np.save(npy, x)
        for level in levels:
            msm_path = os.path.join(work, "%s-%s.msm" % (name, level))
            try:
                # ("O1:bf16": -O1 --precision bf16; "O1:ext": -O1 with the
                # weights in an external-data file, --external-weights.)
                opt, _, variant = level.partition(":")
                model, extra = onnx_path, []
                if variant == "ext":
                    model = os.path.join(work, name + "-ext.onnx")
                    if not os.path.exists(model):
                        run([os.path.join(ROOT, "utils", "onnx-external-data"),
                             onnx_path, model])
                    extra = ["--external-weights"]
                elif variant:
                    extra = ["--precision", variant]
                run([ms_compile, model, "-O" + opt[1:], "--target-cpu",
                     args.target_cpu, "-o", msm_path] + extra)
                out = os.path.join(work, "%s-%s-out" % (name, level))
                run([ms_run, msm_path, "--input", "x=" + npy, "--output-dir", out], env)
                outputs[name, level] = np.load(os.path.join(out, "y.npy"))
                kernels[name, level] = kernel_launches(msm_path)
                jobs[name, level] = [ms_run, msm_path, "--input", "x=" + npy]
            except RuntimeError as e:
                notes.append("%s at %s: %s" % (name, level, e))
        if have_ort:
            raw = os.path.join(work, name + "-x.f32")
            x.tofile(raw)
            spec = os.path.join(work, name + "-spec.json")
            out = os.path.join(work, name + "-ort-out")
            with open(spec, "w") as f:
                json.dump({"inputs": [{"name": "x", "shape": list(shape), "file": raw}],
                           "outputs_dir": out}, f)
            jobs[name, "ort"] = ["node", os.path.join(ort_dir, "run.js"), onnx_path, spec,
                                 "--threads", str(args.threads)]
            try:
                run(jobs[name, "ort"] + ["--min-time", "0"])
                outputs[name, "ort"] = np.fromfile(os.path.join(out, "y.f32"),
                                                   np.float32)
            except RuntimeError as e:
                notes.append("%s on ORT: %s" % (name, e))
                del jobs[name, "ort"]
        base = outputs.get((name, levels[0]))
        for key in ("ort", *levels[1:]):
            if base is not None and (name, key) in outputs:
                diffs[name, key] = float(np.max(np.abs(
                    outputs[name, key].astype(np.float64).ravel() -
                    base.astype(np.float64).ravel())))

    def time_ms(key):
        cmd = jobs[key]
        if key[1] == "ort":
            out = run(cmd + ["--min-time", str(args.min_time)])
            return json.loads(out)["median_ms"]
        once = float(re.search(r"median_ms: ([0-9.eE+-]+)",
                               run(cmd + ["--bench", "3"], env)).group(1))
        calls = int(min(100000, max(3, args.min_time * 1000 / max(once, 1e-6))))
        out = run(cmd + ["--bench", str(calls)], env)
        return float(re.search(r"median_ms: ([0-9.eE+-]+)", out).group(1))

    columns = levels + (["ort"] if have_ort else [])
    times = {key: [] for key in jobs}
    for r in range(args.rounds):
        for name in names:
            for col in (columns if r % 2 == 0 else columns[::-1]):
                if (name, col) in jobs:
                    times[name, col].append(time_ms((name, col)))

    print("machine: %s, %d cores; %d threads (ms: OpenMP, ORT: intra-op); "
          "--target-cpu %s" % (cpu_name(), os.cpu_count() or 0, args.threads,
                               args.target_cpu))
    print("median per-call time over %d rounds (ms); ORT: onnxruntime-node, CPU, "
          "graph optimization all" % args.rounds)
    o1 = "O1" if "O1" in levels else levels[-1]
    # O2 launches the kernels of O1 from one generated function.
    launched = [l for l in levels if l != "O2"]
    header = (["model"] + ["%s ms" % c.upper() if c == "ort" else "%s ms" % c for c in columns] +
              ["%s/%s" % (levels[0], o1)] + (["ORT/%s" % o1] if have_ort else []) +
              ["kernels " + "/".join(launched)] +
              ["max|%s-%s|" % (c.upper() if c == "ort" else c, levels[0])
               for c in columns if c != levels[0]])
    rows = []
    for name in names:
        med = {c: float(np.median(times[name, c])) for c in columns if times.get((name, c))}
        cell = lambda c: "%.3f" % med[c] if c in med else "failed"
        ratio = lambda a, b: ("%.2fx" % (med[a] / med[b])
                              if a in med and b in med and med[b] > 0 else "-")
        row = [LABELS[name]] + [cell(c) for c in columns] + [ratio(levels[0], o1)]
        if have_ort:
            row.append(ratio("ort", o1))
        row.append("/".join(str(kernels.get((name, l), "-")) for l in launched))
        row += ["%.2g" % diffs[name, c] if (name, c) in diffs else "-"
                for c in columns if c != levels[0]]
        rows.append(row)
    print_table(header, rows)
    for note in notes:
        print("failed: " + note)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if notes else 0


if __name__ == "__main__":
    sys.exit(main())
