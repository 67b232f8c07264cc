"""Transformer layers for the GPU benchmarks (utils/gpu-kit.py): a BERT-base
encoder layer and a GPT-2 (small) block at batch 8, sequence 128, in f32,
written as PyTorch functions of their input and weights.

utils/gpu-kit.py prepare exports each function to ONNX here (opset 17, the
weights as graph inputs, so that nothing but shapes travels) and compiles it
with ms-compile at O1 and O2; where the GPU is, the same function, given the
same inputs, is PyTorch's reference and is timed eager and under
torch.compile beside ms.

Each entry of LAYERS: name -> (function, inputs, FLOPs), the inputs as
(name, shape, scale): uniform in [-scale, scale), scaled like a trained
layer's so that the softmax and GELU see ordinary values.
"""
import math

import torch
import torch.nn.functional as F

BATCH, SEQ, DIM, HEADS, FFN = 8, 128, 768, 12, 3072
HEAD = DIM // HEADS


def _heads(t):
    """[batch, seq, dim] -> [batch, heads, seq, head]."""
    return t.reshape(BATCH, SEQ, HEADS, HEAD).transpose(1, 2)


def _merge(t):
    """[batch, heads, seq, head] -> [batch, seq, dim]."""
    return t.transpose(1, 2).reshape(BATCH, SEQ, DIM)


def bert_layer(x, wqkv, bqkv, wo, bo, g1, b1, w1, c1, w2, c2, g2, b2):
    """BERT's encoder layer: self-attention, add and norm, GELU FFN, add and
    norm (post-norm)."""
    q, k, v = (x @ wqkv + bqkv).split(DIM, -1)
    scores = _heads(q) @ _heads(k).transpose(-1, -2) * (1.0 / math.sqrt(HEAD))
    attention = _merge(torch.softmax(scores, -1) @ _heads(v)) @ wo + bo
    h = F.layer_norm(x + attention, (DIM,), g1, b1)
    return F.layer_norm(h + F.gelu(h @ w1 + c1) @ w2 + c2, (DIM,), g2, b2)


def gpt2_block(x, g1, b1, wqkv, bqkv, wo, bo, g2, b2, w1, c1, w2, c2):
    """GPT-2's block: pre-norm causal self-attention and a tanh-GELU FFN,
    each added to the residual stream."""
    h = F.layer_norm(x, (DIM,), g1, b1)
    q, k, v = (h @ wqkv + bqkv).split(DIM, -1)
    scores = _heads(q) @ _heads(k).transpose(-1, -2) * (1.0 / math.sqrt(HEAD))
    future = torch.ones(SEQ, SEQ, dtype=torch.bool, device=x.device).triu(1)
    scores = scores.masked_fill(future, float("-inf"))
    x = x + _merge(torch.softmax(scores, -1) @ _heads(v)) @ wo + bo
    h = F.layer_norm(x, (DIM,), g2, b2)
    return x + F.gelu(h @ w1 + c1, approximate="tanh") @ w2 + c2


def _inputs(order):
    shapes = {"x": ((BATCH, SEQ, DIM), 1.0),
              "wqkv": ((DIM, 3 * DIM), DIM ** -0.5), "bqkv": ((3 * DIM,), 0.02),
              "wo": ((DIM, DIM), DIM ** -0.5), "bo": ((DIM,), 0.02),
              "w1": ((DIM, FFN), DIM ** -0.5), "c1": ((FFN,), 0.02),
              "w2": ((FFN, DIM), FFN ** -0.5), "c2": ((DIM,), 0.02),
              "g1": ((DIM,), 1.0), "b1": ((DIM,), 0.02),
              "g2": ((DIM,), 1.0), "b2": ((DIM,), 0.02)}
    return [(name,) + shapes[name] for name in order.split()]


# Matrix products only: 2 * rows * (3 d^2 + d^2 + 2 d f) for the projections
# and FFN, 2 * 2 * batch * seq^2 * d for the attention.
_FLOPS = (2 * BATCH * SEQ * (4 * DIM * DIM + 2 * DIM * FFN)
          + 4 * BATCH * SEQ * SEQ * DIM)

LAYERS = {
    "bert-layer": (bert_layer, _inputs("x wqkv bqkv wo bo g1 b1 w1 c1 w2 c2 g2 b2"), _FLOPS),
    "gpt2-block": (gpt2_block, _inputs("x g1 b1 wqkv bqkv wo bo g2 b2 w1 c1 w2 c2"), _FLOPS),
}
