#!/usr/bin/python3
"""Exports a few real PyTorch architectures to ONNX for the end-to-end tests
in test/e2e/torch/.

For each model it writes <out>/<name>/model.onnx, input_0.npy (fixed-seed
random float32 input) and output_0.npy (PyTorch's output for that input).
The test/e2e/torch/<name>.test lit tests compile the model with ms-compile,
run it with ms-run and compare against output_0.npy.

Requirements: Debian's python3-torch (1.13; `apt-get install python3-torch
python3-onnx`) and numpy. This is a generator, not a test or runtime
dependency: its outputs are committed, so building and testing ms needs no
torch. Rerun it after changing a model and commit the regenerated files:

    /usr/bin/python3 utils/export-torch-models.py [--out test/e2e/torch]

Everything is deterministic (fixed seeds, eval mode, static shapes, opset
17 unless a model says otherwise, constant folding), and the models are kept
small (well under 1 MB each).

The transformer layer exercises two things the importer and the CPU path
handle: torch lowers the `chunk(3)` of MultiheadAttention's packed q/k/v
projection to Shape -> Gather -> Add -> Div -> Mul -> Slice on a computed
tensor (the importer folds Shape from the static type), and LayerNorm at
opsets below 17 decomposes into ReduceMean/Sub/Pow with negative bases.
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPSET = 17


class SmallCNN(nn.Module):
    """conv-bn-relu-maxpool x2, flatten, linear-bn-relu-linear:
    1x3x32x32 -> 1x10.

    In eval mode the exporter folds each conv's BatchNorm into the conv
    weights, so the head's BatchNorm1d is what keeps a BatchNormalization
    node in the ONNX graph.
    """

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2))
        self.classifier = nn.Sequential(
            nn.Linear(16 * 8 * 8, 32), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Linear(32, 10))

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class MLP(nn.Module):
    """Linear-GELU-Linear-softmax: 8x32 -> 8x16."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(64, 16)

    def forward(self, x):
        return torch.softmax(self.fc2(self.act(self.fc1(x))), dim=-1)


def randomize_batchnorm(model):
    # Freshly built BatchNorm layers have mean 0 / var 1 / weight 1 / bias 0,
    # which would make them identities; give them real statistics.
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            with torch.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)


def make_cnn():
    model = SmallCNN()
    randomize_batchnorm(model)
    return model, (1, 3, 32, 32)


def make_transformer():
    model = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                       batch_first=True)
    return model, (2, 16, 64)


def make_mlp():
    return MLP(), (8, 32)


class RMSNorm(nn.Module):
    """LLaMA's RMSNorm as its reference code writes it (torch has none)."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.empty(dim).uniform_(0.5, 1.5))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * \
            self.weight


class LlamaBlock(nn.Module):
    """A LLaMA-style decoder block written as its reference code does:
    RMSNorm, causal multi-head attention from matmuls, a -inf triangle and
    softmax, SwiGLU feed-forward, residuals: 2x16x64 -> 2x16x64. Nothing in
    it is a fused ONNX op; fusion has to find the norms and the attention.
    """

    def __init__(self, dim=64, heads=4, hidden=128, seq=16):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(dim)
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.ffn_norm = RMSNorm(dim)
        self.w1 = nn.Linear(dim, hidden, bias=False)
        self.w2 = nn.Linear(hidden, dim, bias=False)
        self.w3 = nn.Linear(dim, hidden, bias=False)
        self.register_buffer(
            "mask", torch.triu(torch.full((seq, seq), float("-inf")), 1))

    def forward(self, x):
        b, s, d = x.shape
        hd = d // self.heads
        h = self.attn_norm(x)
        q = self.wq(h).view(b, s, self.heads, hd).transpose(1, 2)
        k = self.wk(h).view(b, s, self.heads, hd).transpose(1, 2)
        v = self.wv(h).view(b, s, self.heads, hd).transpose(1, 2)
        scores = q @ k.transpose(2, 3) / (hd ** 0.5) + self.mask
        o = torch.softmax(scores, dim=-1) @ v
        x = x + self.wo(o.transpose(1, 2).reshape(b, s, d))
        h = self.ffn_norm(x)
        return x + self.w2(nn.functional.silu(self.w1(h)) * self.w3(h))


def make_llama_block():
    return LlamaBlock(), (2, 16, 64)


class BertLayer(nn.Module):
    """A BERT encoder layer as Hugging Face's BertLayer writes it: separate
    query, key and value projections with biases, scaled dot-product
    attention over 4 heads with an additive padding mask (the last 3
    positions of the second sequence masked), the output projection, a
    residual and LayerNorm, then a GELU (erf) feed-forward, a residual and
    LayerNorm (post-norm): 4x16x64 -> 4x16x64. What tensor parallelism
    shards as Megatron does: q/k/v and the first feed-forward projection by
    output features (heads), the two others by input features.
    """

    def __init__(self, dim=64, heads=4, hidden=256, batch=4, seq=16):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.attn_out = nn.Linear(dim, dim)
        self.attn_norm = nn.LayerNorm(dim, eps=1e-12)
        self.intermediate = nn.Linear(dim, hidden)
        self.output = nn.Linear(hidden, dim)
        self.out_norm = nn.LayerNorm(dim, eps=1e-12)
        for norm in (self.attn_norm, self.out_norm):
            nn.init.uniform_(norm.weight, 0.5, 1.5)
            nn.init.uniform_(norm.bias, -0.1, 0.1)
        mask = torch.zeros(batch, 1, 1, seq)
        mask[1, :, :, seq - 3:] = -10000.0
        self.register_buffer("mask", mask)

    def split_heads(self, t):
        b, s, d = t.shape
        return t.view(b, s, self.heads, d // self.heads).permute(0, 2, 1, 3)

    def forward(self, x):
        b, s, d = x.shape
        q = self.split_heads(self.query(x))
        k = self.split_heads(self.key(x))
        v = self.split_heads(self.value(x))
        scores = q @ k.transpose(-1, -2) / ((d // self.heads) ** 0.5)
        probs = torch.softmax(scores + self.mask, dim=-1)
        ctx = (probs @ v).permute(0, 2, 1, 3).reshape(b, s, d)
        x = self.attn_norm(x + self.attn_out(ctx))
        h = nn.functional.gelu(self.intermediate(x))
        return self.out_norm(x + self.output(h))


def make_bert_layer():
    return BertLayer(), (4, 16, 64)


class EmbeddingLM(nn.Module):
    """A language model's ends: token embedding, LayerNorm and the output
    projection to vocabulary logits: 2x16 int64 token ids -> 2x16x96. The
    embedding exports as a Gather from its [96, 32] table (what
    vocabulary-parallel sharding splits by rows)."""

    def __init__(self, vocab=96, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)

    def forward(self, ids):
        return self.head(self.norm(self.embed(ids)))


def make_embedding_lm():
    ids = np.random.default_rng(0).integers(0, 96, (2, 16)).astype(np.int64)
    return EmbeddingLM(), ids.shape, ids


# name -> (factory, post-export rewrite of the ONNX model or None, opset);
# a factory returns (model, input shape) for a float32 input drawn here, or
# (model, shape, input) for another.
MODELS = {
    "cnn": (make_cnn, None, OPSET),
    "transformer_encoder": (make_transformer, None, OPSET),
    # The same layer as exporters before opset 17 write it: each LayerNorm
    # as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add.
    "transformer_encoder_opset14": (make_transformer, None, 14),
    "mlp": (make_mlp, None, OPSET),
    "llama_block": (make_llama_block, None, OPSET),
    "embedding_lm": (make_embedding_lm, None, OPSET),
    "bert_layer": (make_bert_layer, None, OPSET),
}


def disable_fast_paths():
    # TransformerEncoderLayer / MultiheadAttention have fused inference fast
    # paths (aten::_transformer_encoder_layer_fwd, aten::_native_multi_head_
    # attention) that the ONNX exporter cannot express; newer torch can turn
    # them off globally. In 1.13 they are not taken while autograd is
    # recording for parameters that require grad, which is how we trace.
    mha = getattr(torch.backends, "mha", None)
    if mha is not None and hasattr(mha, "set_fastpath_enabled"):
        mha.set_fastpath_enabled(False)


def export(name, factory, rewrite, opset, out_root):
    torch.manual_seed(0)
    model, shape, *given = factory()
    model.eval()
    rng = np.random.default_rng(0)
    x = given[0] if given else rng.standard_normal(shape).astype(np.float32)
    xt = torch.from_numpy(x)
    # Reference output with the same (non-fused) code path as the export.
    y = model(xt).detach().numpy().astype(np.float32)

    d = os.path.join(out_root, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (xt,), path, opset_version=opset,
                      do_constant_folding=True, input_names=["input_0"],
                      output_names=["output_0"], dynamic_axes=None)
    if rewrite is not None:
        onnx.save(rewrite(onnx.load(path)), path)
    np.save(os.path.join(d, "input_0.npy"), x)
    np.save(os.path.join(d, "output_0.npy"), y)

    m = onnx.load(path)
    onnx.checker.check_model(m)
    ops = sorted({n.op_type for n in m.graph.node})
    print("%s: %s (%d bytes) in %s out %s ops %s" % (
        name, path, os.path.getsize(path), list(x.shape), list(y.shape),
        " ".join(ops)))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(ROOT, "test", "e2e", "torch"),
                   help="output directory (default: test/e2e/torch)")
    p.add_argument("models", nargs="*", help="subset of %s" % ", ".join(MODELS))
    args = p.parse_args()
    disable_fast_paths()
    for name in args.models or MODELS:
        if name not in MODELS:
            sys.exit("unknown model '%s' (have %s)" % (name, ", ".join(MODELS)))
        export(name, *MODELS[name], args.out)


if __name__ == "__main__":
    main()
